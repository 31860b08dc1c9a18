// bin/nnet3-average.cc
// Averages the parameters (and stored statistics) of several raw networks
// of the same structure, with optional weights normalized to sum to one.
#include <cmath>

#include "bin/cli.h"
#include "nnet3/train/nnet-arith.h"
#include "util/stream.h"
#include "util/text.h"

namespace nnet3 {

int Nnet3Average(int argc, char *argv[]) {
  const char *usage =
      "Averages the parameters of several raw nnet3 networks (which must "
      "have the\n"
      "same structure).\n"
      "\n"
      "Usage:  nnet3-average [options] <model1> <model2> ... <modelN> "
      "<model-out>\n"
      "e.g.:\n"
      " nnet3-average 1.1.raw 1.2.raw 1.3.raw 2.raw\n";
  ParseOptions po(usage);
  bool binary_write = true;
  std::string weights_str;
  po.Register("binary", &binary_write, "Write output in binary mode");
  po.Register("weights", &weights_str,
              "Weight of each input model, separated by colons (e.g. "
              "1:2:1); scaled to sum to one");
  po.Read(argc, argv);
  if (po.NumArgs() < 2) return UsageError(po);
  const int32 num_inputs = po.NumArgs() - 1;
  std::string nnet_wxfilename = po.GetArg(po.NumArgs());

  std::vector<BaseFloat> weights;
  if (!weights_str.empty()) {
    if (!SplitStringToFloats(weights_str, ":", true, &weights) ||
        static_cast<int32>(weights.size()) != num_inputs)
      NNET3_ERR << "--weights option must be a colon-separated list with "
                << num_inputs << " elements, got: " << weights_str;
  } else {
    weights.assign(num_inputs, 1.0 / num_inputs);
  }
  float sum = 0.0;
  for (BaseFloat w : weights) sum += w;
  if (sum == 0.0 || !std::isfinite(sum))
    NNET3_ERR << "--weights must have a nonzero finite sum, got "
              << weights_str;
  for (BaseFloat &w : weights) w /= sum;
  if (std::fabs(sum - 1.0) > 0.01)
    NNET3_WARN << "Normalizing weights to sum to one, sum was " << sum;

  Nnet nnet;
  ReadKaldiObject(po.GetArg(1), &nnet);
  ScaleNnet(weights[0], &nnet);
  for (int32 i = 2; i <= num_inputs; i++) {
    Nnet src;
    ReadKaldiObject(po.GetArg(i), &src);
    CheckSameStructure(src, nnet,
                       "nnet3-average: " + PrintableRxfilename(po.GetArg(i)) +
                           " vs. " + PrintableRxfilename(po.GetArg(1)));
    AddNnet(src, weights[i - 1], &nnet);
  }
  WriteKaldiObject(nnet, nnet_wxfilename, binary_write);
  NNET3_LOG << "Averaged parameters of " << num_inputs
            << " neural nets, and wrote to " << nnet_wxfilename;
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3Average);
}
