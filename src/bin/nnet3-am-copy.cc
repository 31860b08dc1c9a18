// bin/nnet3-am-copy.cc
// Copies an nnet3 acoustic model (.mdl), or writes its raw network,
// optionally changing the network on the way.
#include <sstream>

#include "bin/am-tool.h"
#include "bin/cli.h"
#include "nnet3/nnet/nnet-collapse.h"
#include "nnet3/nnet/nnet-edit.h"
#include "nnet3/nnet/nnet-utils.h"
#include "util/stream.h"

namespace nnet3 {

int Nnet3AmCopy(int argc, char *argv[]) {
  const char *usage =
      "Copies an nnet3 acoustic model (e.g. between binary and text), or with\n"
      "--raw=true writes only its network. The network can be replaced\n"
      "(--set-raw-nnet) or changed (config, learning rate, edits, scale,\n"
      "test mode) on the way, in that order.\n"
      "Usage:  nnet3-am-copy [options] <nnet-in> <nnet-out>\n"
      "e.g.: nnet3-am-copy --binary=false 1.mdl text.mdl\n"
      "      nnet3-am-copy --raw=true 1.mdl 1.raw\n";
  ParseOptions po(usage);
  bool binary = true, raw = false, prepare_for_test = false;
  BaseFloat learning_rate = -1.0, scale = 1.0;
  std::string set_raw_nnet, nnet_config, edits_config, edits;
  po.Register("binary", &binary, "Write the output in binary");
  po.Register("raw", &raw,
              "Write only the raw network (no transition model, no priors)");
  po.Register("set-raw-nnet", &set_raw_nnet,
              "An rxfilename of a raw network that replaces the model's "
              "network (before the other changes)");
  po.Register("nnet-config", &nnet_config,
              "A config file applied to the network as nnet3-init would "
              "(adds or replaces components and nodes)");
  po.Register("edits-config", &edits_config,
              "A file of edit directives (see nnet3/nnet/nnet-edit.h), "
              "applied after --learning-rate");
  po.Register("edits", &edits,
              "Edit directives separated by ';', applied after "
              "--edits-config, e.g. 'remove-orphans'");
  po.Register("learning-rate", &learning_rate,
              "If >= 0, set the learning rate of every updatable component");
  po.Register("scale", &scale, "Multiply all parameters by this factor");
  po.Register("prepare-for-test", &prepare_for_test,
              "Prepare the model for decoding: set batch-norm and dropout "
              "components to test mode and collapse the network as Kaldi's "
              "CollapseModel() does");
  po.Read(argc, argv);
  if (po.NumArgs() != 2) return UsageError(po);
  std::string in = po.GetArg(1), out = po.GetArg(2);
  TransitionModel trans_model;
  AmNnetSimple am_nnet;
  ReadAmModel(in, &trans_model, &am_nnet);
  if (!set_raw_nnet.empty()) {
    Nnet nnet;
    ReadKaldiObject(set_raw_nnet, &nnet);
    am_nnet.SetNnet(nnet);
  }
  Nnet &nnet = am_nnet.GetNnet();
  if (!nnet_config.empty()) {
    Input ki;
    ki.OpenTextMode(nnet_config);
    nnet.ReadConfig(ki.Stream(), PrintableRxfilename(nnet_config));
    am_nnet.SetContext();
  }
  if (learning_rate >= 0) SetLearningRate(learning_rate, &nnet);
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
  if (scale != 1.0) ScaleNnet(scale, &nnet);
  if (prepare_for_test) {
    SetBatchnormTestMode(true, &nnet);
    SetDropoutTestMode(true, &nnet);
    // What is written stays as close to Kaldi's file as the collapse
    // allows: no fold of batch-norms through spliced Appends.
    CollapseModelConfig collapse_config;
    collapse_config.collapse_batchnorm_through_appends = false;
    CollapseModel(collapse_config, &nnet);
  }
  if (raw) {
    WriteKaldiObject(nnet, out, binary);
    NNET3_LOG << "Wrote the raw network of " << PrintableRxfilename(in)
              << " to " << PrintableWxfilename(out);
  } else {
    if (!set_raw_nnet.empty() || !nnet_config.empty())
      CheckPdfCounts(trans_model, am_nnet, "nnet3-am-copy: the new network");
    WriteAmModel(trans_model, am_nnet, out, binary);
    NNET3_LOG << "Copied the acoustic model " << PrintableRxfilename(in)
              << " to " << PrintableWxfilename(out);
  }
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3AmCopy);
}
