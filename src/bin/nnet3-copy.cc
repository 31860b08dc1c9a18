// bin/nnet3-copy.cc
// Copies a raw nnet3 network, optionally changing it (learning rates,
// scale, added config, edits, test mode). --prepare-for-test writes what
// Kaldi's nnet3-copy writes: BatchNorm and Dropout-family components set to
// test mode and nothing else changed (no component is folded into another;
// folding for speed happens inside compiled computations instead).
#include <sstream>

#include "bin/cli.h"
#include "nnet3/nnet/nnet-edit.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/nnet/nnet.h"
#include "util/stream.h"

namespace nnet3 {

int Nnet3Copy(int argc, char *argv[]) {
  const char *usage =
      "Copies a raw nnet3 network (e.g. to change between binary and text),\n"
      "optionally modifying it on the way.\n"
      "Usage:  nnet3-copy [options] <raw-nnet-in> <raw-nnet-out>\n"
      "e.g.: nnet3-copy --binary=false 0.raw text.raw\n"
      "      nnet3-copy --edits='remove-output-nodes name=xent*;remove-orphans' in.raw out.raw\n";
  ParseOptions po(usage);
  bool binary = true, prepare_for_test = false, batchnorm_test_mode = false;
  BaseFloat learning_rate = -1.0, scale = 1.0;
  std::string nnet_config, edits_config, edits;
  po.Register("binary", &binary, "Write the output in binary");
  po.Register("learning-rate", &learning_rate,
              "If >= 0, set the learning rate of every updatable component "
              "(times its learning-rate-factor)");
  po.Register("scale", &scale, "Multiply all parameters by this factor");
  po.Register("nnet-config", &nnet_config,
              "A config file applied to the network as nnet3-init would "
              "(adds or replaces components and nodes)");
  po.Register("edits-config", &edits_config,
              "A file of edit directives (see nnet3/nnet/nnet-edit.h), "
              "applied after --nnet-config");
  po.Register("edits", &edits,
              "Edit directives separated by ';', applied after "
              "--edits-config, e.g. 'remove-output-nodes name=xent;"
              "remove-orphans'");
  po.Register("prepare-for-test", &prepare_for_test,
              "Prepare the model for decoding: set batch-norm and dropout "
              "components to test mode (the components stay in the model)");
  po.Register("batchnorm-test-mode", &batchnorm_test_mode,
              "Set batch-norm components to test mode");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  std::string in = po.GetArg(1), out = po.GetArg(2);
  Nnet nnet;
  ReadKaldiObject(in, &nnet);
  if (!nnet_config.empty()) {
    Input ki;
    ki.OpenTextMode(nnet_config);
    nnet.ReadConfig(ki.Stream(), PrintableRxfilename(nnet_config));
  }
  if (learning_rate >= 0) SetLearningRate(learning_rate, &nnet);
  if (scale != 1.0) ScaleNnet(scale, &nnet);
  if (!edits_config.empty()) {
    Input ki;
    ki.OpenTextMode(edits_config);
    ReadEditConfig(ki.Stream(), &nnet);
  }
  if (!edits.empty()) {
    std::string lines = edits;
    for (char &c : lines)
      if (c == ';') c = '\n';
    std::istringstream is(lines);
    ReadEditConfig(is, &nnet);
  }
  if (batchnorm_test_mode || prepare_for_test) SetBatchnormTestMode(true, &nnet);
  if (prepare_for_test) SetDropoutTestMode(true, &nnet);
  WriteKaldiObject(nnet, out, binary);
  NNET3_LOG << "Copied raw neural net from " << PrintableRxfilename(in)
            << " to " << PrintableWxfilename(out);
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3Copy);
}
