// bin/nnet3-compile.cc
// Our addition (no Kaldi equivalent): compiles a network for a request
// described by options and prints the computation and then, unless
// --optimization.optimize=false, the optimized computation, each followed
// by a "# Summary" line (commands, matrices, submatrices, total and peak
// matrix bytes), so a user can see what the network will execute;
// optionally writes the final computation in Kaldi's format.
#include <iostream>
#include <sstream>

#include "bin/cli.h"
#include "nnet3/analyze/analyze.h"
#include "nnet3/compile/compiler.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/optimize/optimize.h"
#include "util/stream.h"

namespace nnet3 {

namespace {
// Rows t-major with n varying fastest, as the compiler lays out its steps.
std::vector<Index> MakeIndexes(int32 t_begin, int32 t_end, int32 t_step,
                               int32 num_sequences) {
  std::vector<Index> indexes;
  for (int32 t = t_begin; t < t_end; t += t_step)
    for (int32 n = 0; n < num_sequences; n++) indexes.push_back(Index(n, t, 0));
  return indexes;
}

// "# Summary[ (what)]: 12 commands, 5 matrices, 7 submatrices, 1024 bytes
// of matrices in total, 512 bytes peak matrix memory".
void PrintSummary(std::ostream &os, const std::string &what,
                  const NnetComputation &computation) {
  int64 num_floats = 0;
  for (size_t m = 1; m < computation.matrices.size(); m++)
    num_floats += static_cast<int64>(computation.matrices[m].num_rows) *
                  computation.matrices[m].num_cols;
  os << "# Summary" << (what.empty() ? "" : " (" + what + ")") << ": "
     << computation.commands.size() << " commands, "
     << (computation.matrices.empty() ? 0 : computation.matrices.size() - 1)
     << " matrices, " << (computation.submatrices.empty()
                              ? 0 : computation.submatrices.size() - 1)
     << " submatrices, " << num_floats * sizeof(BaseFloat)
     << " bytes of matrices in total, " << GetMaxMemoryUse(computation)
     << " bytes peak matrix memory\n";
}
}  // namespace

int Nnet3Compile(int argc, char *argv[]) {
  const char *usage =
      "Compile a neural network for a request described by the options and\n"
      "print the computation (matrices with what they hold, one command per\n"
      "line), followed by a summary; then the same for the optimized\n"
      "computation (unless --optimization.optimize=false).\n"
      "\n"
      "Usage: nnet3-compile [options] <raw-nnet-in> [<computation-out>]\n"
      " e.g.: nnet3-compile --num-frames=20 --num-sequences=2 --backprop "
      "final.raw\n"
      "If <computation-out> is given, the final (optimized, if optimizing) "
      "computation is also written there (Kaldi's format; see --binary).\n";
  ParseOptions po(usage);
  int32 num_frames = 1, num_sequences = 1, left_context = -1,
        right_context = -1, frame_subsampling_factor = 1;
  bool backprop = false, input_deriv = false, store_stats = false,
       binary = true, print = true;
  CompilerOptions compiler_opts;
  NnetOptimizeOptions optimize_opts;
  po.Register("num-frames", &num_frames, "Number of output frames requested");
  po.Register("num-sequences", &num_sequences,
              "Number of sequences (distinct 'n' values) in the request");
  po.Register("left-context", &left_context,
              "Frames of input given before the first output frame (-1: the "
              "network's left context)");
  po.Register("right-context", &right_context,
              "Frames of input given after the last output frame (-1: the "
              "network's right context)");
  po.Register("frame-subsampling-factor", &frame_subsampling_factor,
              "Output frames are this many input frames apart");
  po.Register("backprop", &backprop,
              "Request output derivatives and the model derivative (a "
              "training computation)");
  po.Register("input-deriv", &input_deriv,
              "Request derivatives with respect to the inputs");
  po.Register("store-stats", &store_stats,
              "Request that components store statistics");
  po.Register("print", &print, "Print the computation to stdout");
  po.Register("binary", &binary, "Write <computation-out> in binary");
  ParseOptions compiler_po("compiler", &po);
  compiler_opts.Register(&compiler_po);
  ParseOptions optimization_po("optimization", &po);
  optimize_opts.Register(&optimization_po);
  po.Read(argc, argv);
  if (po.NumArgs() < 1 || po.NumArgs() > 2) return UsageError(po);
  if (num_frames < 1 || num_sequences < 1 || frame_subsampling_factor < 1)
    NNET3_ERR << "--num-frames, --num-sequences and "
              << "--frame-subsampling-factor must be >= 1";
  Nnet nnet;
  ReadKaldiObject(po.GetArg(1), &nnet);
  if (left_context < 0 || right_context < 0) {
    int32 lc, rc;
    ComputeSimpleNnetContext(nnet, &lc, &rc);
    if (left_context < 0) left_context = lc;
    if (right_context < 0) right_context = rc;
  }
  int32 last_output_t = (num_frames - 1) * frame_subsampling_factor;
  ComputationRequest request;
  request.need_model_derivative = backprop;
  request.store_component_stats = store_stats;
  for (int32 n = 0; n < nnet.NumNodes(); n++) {
    if (!nnet.IsInputNode(n)) continue;
    const std::string &name = nnet.GetNodeName(n);
    IoSpecification io;
    io.name = name;
    io.has_deriv = input_deriv;
    if (name == "ivector")  // read through ReplaceIndex(ivector, t, 0)
      io.indexes = MakeIndexes(0, 1, 1, num_sequences);
    else
      io.indexes = MakeIndexes(-left_context, last_output_t + right_context + 1,
                               1, num_sequences);
    request.inputs.push_back(io);
  }
  for (int32 n = 0; n < nnet.NumNodes(); n++) {
    if (!nnet.IsOutputNode(n)) continue;
    IoSpecification io;
    io.name = nnet.GetNodeName(n);
    io.has_deriv = backprop;
    io.indexes = MakeIndexes(0, last_output_t + 1, frame_subsampling_factor,
                             num_sequences);
    request.outputs.push_back(io);
  }
  if (request.outputs.empty())
    NNET3_ERR << "The network has no output nodes";

  NnetComputation computation;
  CompileComputation(nnet, request, compiler_opts, &computation);
  std::ostream &os = std::cout;
  if (print) {
    os << "# Request\n";
    request.Print(os);
    os << "# Computation\n";
    computation.Print(os, nnet);
  }
  PrintSummary(os, "", computation);
  if (optimize_opts.optimize) {
    NnetComputation optimized(computation);
    Optimize(optimize_opts, nnet, last_output_t, &optimized);
    if (print) {
      os << "# Optimized computation\n";
      optimized.Print(os, nnet);
    }
    PrintSummary(os, "optimized", optimized);
    computation = optimized;
  }
  if (po.NumArgs() == 2) WriteKaldiObject(computation, po.GetArg(2), binary);
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3Compile);
}
