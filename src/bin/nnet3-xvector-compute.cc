// bin/nnet3-xvector-compute.cc
// Writes one x-vector per utterance: the network's "output" at t=0 computed
// from chunks of the utterance's features, averaged with chunk-length
// weights (nnet3/compute/xvector.h has the rules), as Kaldi's tool of the
// same name does.
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "bin/cli.h"
#include "bin/inference-tool.h"
#include "bin/utt-threads.h"
#include "cudamatrix/cu-device.h"
#include "base/timer.h"
#include "matrix/host-memory.h"
#include "matrix/table-types.h"
#include "nnet3/compute/decodable-simple.h"
#include "nnet3/compute/xvector.h"
#include "nnet3/nnet/nnet-collapse.h"
#include "nnet3/nnet/nnet-utils.h"
#include "util/stream.h"
#include "util/table.h"

namespace nnet3 {

namespace {

// One utterance on its way through the tool (its own copy of the features
// when it waits for a batch of several).
struct XvectorJob {
  std::string utt;
  const Matrix<BaseFloat> *features = nullptr;
  Matrix<BaseFloat> own_features;
  Vector<BaseFloat> xvector;
  bool ok = false;
  std::string why_not;
  std::exception_ptr error;
};

}  // namespace

int Nnet3XvectorCompute(int argc, char *argv[]) {
  const char *usage =
      "Runs features through an x-vector network (frame-level layers, "
      "statistics pooling, segment-level layers) and writes the vector the "
      "output node gives at t=0, one per utterance. With --chunk-size the "
      "utterance is cut into chunks whose vectors are averaged, weighted "
      "by chunk length.\n"
      "\n"
      "Usage: nnet3-xvector-compute [options] <raw-nnet-in> "
      "<features-rspecifier> <vector-wspecifier>\n"
      " e.g.: nnet3-xvector-compute final.raw scp:feats.scp "
      "ark:xvectors.ark\n";
  ParseOptions po(usage);
  Timer timer;
  NnetSimpleComputationOptions opts;
  opts.acoustic_scale = 1.0;  // accepted; x-vectors are not scaled
  CachingOptimizingCompilerOptions compiler_config;
  XvectorExtractionOptions xvector_opts;
  std::string use_gpu = "no";
  UttThreadsOption threads;
  int32 spliced_affine_min_dim = kMinSplicedPartDimForTdnn;
  opts.Register(&po);
  RegisterSplicedAffineMinDim(&po, &spliced_affine_min_dim);
  compiler_config.Register(&po);
  po.Register("use-gpu", &use_gpu, CuDevice::OptionHelp());
  xvector_opts.Register(&po);
  threads.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() != 3) return UsageError(po);
  SelectGpuForTool(use_gpu);
  xvector_opts.Check();
  threads.Resolve();

  std::string nnet_rxfilename = po.GetArg(1),
              feature_rspecifier = po.GetArg(2),
              vector_wspecifier = po.GetArg(3);
  Nnet nnet;
  ReadKaldiObject(nnet_rxfilename, &nnet);
  if (nnet.InputDim("input") < 0 || nnet.OutputDim("output") < 0)
    NNET3_ERR << "The network in " << PrintableRxfilename(nnet_rxfilename)
              << " needs an input node named 'input' and an output node "
              << "named 'output'";
  SetBatchnormTestMode(true, &nnet);
  SetDropoutTestMode(true, &nnet);
  CollapseModel(CollapseModelConfig(), &nnet);
  ComputeSplicedAffinesForTool(spliced_affine_min_dim, &nnet);
  CachingOptimizingCompiler compiler(nnet, opts.optimize_config,
                                     compiler_config);
  // The compilers' freed temporaries go back to the system: after each
  // compilation of the ordinary compiler (the callback), and after the
  // plan's two, which its constructor makes (the call below it).
  compiler.SetAfterCompile([] { ReleaseFreeHeapPages(); });
  XvectorComputer computer(xvector_opts, nnet, &compiler,
                           opts.optimize_config, compiler_config);
  ReleaseFreeHeapPages();
  if (xvector_opts.reuse_compilation && !computer.Plan()->Applies())
    NNET3_LOG << "Not reusing compilations across chunk lengths: "
              << computer.Plan()->WhyNot();

  BaseFloatVectorWriter vector_writer(vector_wspecifier);
  int32 num_success = 0, num_fail = 0;
  int64 frame_count = 0;
  // Utterances computed on the threads, written in input order.
  InOrderRunner<XvectorJob> runner(
      threads.num_threads, threads.Window(),
      [&](XvectorJob *job) {
        try {
          try {
            job->ok = computer.ComputeUtterance(*job->features, &job->xvector,
                                                &job->why_not);
          } catch (const UserError &e) {
            NNET3_ERR << "Utterance " << job->utt << ": " << e.message();
          }
        } catch (...) {
          job->error = std::current_exception();
        }
      },
      [&](XvectorJob *job) {
        if (job->error) std::rethrow_exception(job->error);
        if (!job->ok) {
          NNET3_WARN << "No x-vector for utterance " << job->utt << ": "
                     << job->why_not;
          num_fail++;
          return;
        }
        vector_writer.Write(job->utt, job->xvector);
        frame_count += job->features->NumRows();
        num_success++;
      });
  SequentialBaseFloatMatrixReader feature_reader(feature_rspecifier);
  for (; !feature_reader.Done(); feature_reader.Next()) {
    std::unique_ptr<XvectorJob> job(new XvectorJob);
    job->utt = feature_reader.Key();
    job->features = &feature_reader.Value();
    // One thread computes the utterance inside Add, before the reader moves
    // on; several need the job to own a copy.
    if (runner.Threaded()) {
      job->own_features = *job->features;
      job->features = &job->own_features;
    }
    runner.Add(std::move(job));
  }
  runner.Finish();
  double elapsed = timer.Elapsed();
  NNET3_LOG << "Time taken " << elapsed
            << "s: real-time factor assuming 100 frames/sec is "
            << (frame_count > 0 ? elapsed * 100.0 / frame_count : 0.0);
  NNET3_LOG << "Compilations: " << computer.NumCompilations() << " ("
            << computer.CompileSeconds() << "s); chunks computed in "
            << "reusable blocks: " << computer.NumChunksThroughPlan()
            << ", as whole chunks: " << computer.NumChunksOrdinary();
  NNET3_LOG << "Done " << num_success << " utterances, failed for "
            << num_fail;
  return num_success != 0 ? 0 : 1;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3XvectorCompute);
}
