// bin/nnet3-show-progress.cc
// Compares two raw networks of the same structure: the L2 norm of the
// parameter change per updatable component (absolute and relative to the
// old one) and, given examples, the objective along the line between them
// and the change of objective each component's change explains (from the
// gradient at the segment midpoints).
#include "bin/cli.h"
#include "bin/cpu-threads.h"
#include "cudamatrix/cu-device.h"
#include "nnet3/egs/nnet-example.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/train/nnet-arith.h"
#include "nnet3/train/nnet-diagnostics.h"
#include "util/stream.h"
#include "util/table.h"

namespace nnet3 {

int Nnet3ShowProgress(int argc, char *argv[]) {
  const char *usage =
      "Given an old and a new raw nnet3 network and, optionally, training\n"
      "examples (possibly held-out), show the average objective function "
      "on the\n"
      "line between the two networks and its change explained by each "
      "component\n"
      "(from derivatives), and the parameter differences per component.\n"
      "\n"
      "Usage:  nnet3-show-progress [options] <old-net-in> <new-net-in> "
      "[<training-examples-in>]\n"
      "e.g.: nnet3-show-progress 1.raw 2.raw ark:valid.egs\n";
  ParseOptions po(usage);
  int32 num_segments = 1;
  std::string use_gpu = "no";
  NnetComputeProbOptions opts;
  opts.compute_deriv = true;
  po.Register("num-segments", &num_segments,
              "Number of line segments used for computing derivatives");
  po.Register("use-gpu", &use_gpu, CuDevice::OptionHelp());
  opts.Register(&po);
  po.Read(argc, argv);
  if (po.NumArgs() < 2 || po.NumArgs() > 3) return UsageError(po);
  SelectGpuForTool(use_gpu);
  HandBlasThreadsToLibrary();
  if (num_segments <= 0)
    NNET3_ERR << "--num-segments must be > 0, got " << num_segments;
  opts.compute_deriv = true;
  std::string nnet1_rxfilename = po.GetArg(1),
              nnet2_rxfilename = po.GetArg(2),
              examples_rspecifier = po.GetOptArg(3);
  Nnet nnet1, nnet2;
  ReadKaldiObject(nnet1_rxfilename, &nnet1);
  ReadKaldiObject(nnet2_rxfilename, &nnet2);
  if (NumParameters(nnet1) != NumParameters(nnet2)) {
    NNET3_WARN << "Parameter-dim mismatch, cannot show progress.";
    return 0;
  }
  CheckSameStructure(nnet1, nnet2, "nnet3-show-progress");
  const int32 num_updatable = NumUpdatableComponents(nnet1);

  if (!examples_rspecifier.empty()) {
    std::vector<NnetExample> examples;
    SequentialNnetExampleReader example_reader(examples_rspecifier);
    for (; !example_reader.Done(); example_reader.Next())
      examples.push_back(example_reader.Value());
    if (examples.empty()) NNET3_ERR << "No examples read.";
    Vector<BaseFloat> diff(num_updatable);
    for (int32 s = 0; s < num_segments; s++) {
      BaseFloat start = (s + 0.0) / num_segments,
                end = (s + 1.0) / num_segments,
                middle = 0.5 * (start + end);
      Nnet interp(nnet2);
      ScaleNnet(middle, &interp);
      AddNnet(nnet1, 1.0 - middle, &interp);
      NnetComputeProb prob(opts, static_cast<const Nnet &>(interp));
      for (const NnetExample &eg : examples) prob.Compute(eg);
      double tot_weight = 0.0;
      for (const auto &p : prob.GetAllObjectiveInfo()) {
        NNET3_LOG << "At position " << middle << ", objf per frame for '"
                  << p.first << "' is "
                  << p.second.tot_objective / p.second.tot_weight;
        tot_weight += p.second.tot_weight;
      }
      Vector<BaseFloat> old_dot, new_dot;
      ComponentDotProducts(prob.GetDeriv(), nnet1, &old_dot);
      ComponentDotProducts(prob.GetDeriv(), nnet2, &new_dot);
      old_dot.Scale(1.0 / tot_weight);
      new_dot.Scale(1.0 / tot_weight);
      diff.AddVec(1.0 / num_segments, new_dot);
      diff.AddVec(-1.0 / num_segments, old_dot);
      NNET3_VLOG(1) << "By segment " << s << ", objf change is "
                    << PrintVectorPerUpdatableComponent(nnet1, diff);
    }
    NNET3_LOG << "Total objf change per component is "
              << PrintVectorPerUpdatableComponent(nnet1, diff);
  }
  {
    Nnet diff_nnet(nnet1);
    AddNnet(nnet2, -1.0, &diff_nnet);
    Vector<BaseFloat> dot_prod, baseline;
    ComponentDotProducts(diff_nnet, diff_nnet, &dot_prod);
    dot_prod.ApplyPow(0.5);
    NNET3_LOG << "Parameter differences per layer are "
              << PrintVectorPerUpdatableComponent(nnet1, dot_prod);
    ComponentDotProducts(nnet1, nnet1, &baseline);
    baseline.ApplyPow(0.5);
    dot_prod.DivElements(baseline);
    NNET3_LOG << "Relative parameter differences per layer are "
              << PrintVectorPerUpdatableComponent(nnet1, dot_prod);
  }
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3ShowProgress);
}
