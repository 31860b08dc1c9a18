// bin/nnet3-am-init.cc
// Makes an nnet3 acoustic model (.mdl) from a raw network and a transition
// model, given directly or built from a tree and a topology.
#include "bin/am-tool.h"
#include "bin/cli.h"
#include "tree/context-dep.h"
#include "util/stream.h"

namespace nnet3 {

int Nnet3AmInit(int argc, char *argv[]) {
  const char *usage =
      "Makes an nnet3 acoustic model: a transition model (read from a model\n"
      "file, or built from a decision tree and a topology) followed by the\n"
      "raw network and an empty priors vector. Priors can be set later with\n"
      "nnet3-am-adjust-priors or nnet3-am-train-transitions.\n"
      "Usage:  nnet3-am-init [options] <tree-in> <topology-in> <input-raw-nnet> <output-am-nnet>\n"
      "  or:   nnet3-am-init [options] <trans-model-in> <input-raw-nnet> <output-am-nnet>\n"
      "e.g.: nnet3-am-init tree topo 0.raw 0.mdl\n"
      "      nnet3-am-init exp/tri3_ali/final.mdl 0.raw 0.mdl\n";
  ParseOptions po(usage);
  bool binary = true;
  po.Register("binary", &binary, "Write the output in binary");
  po.Read(argc, argv);
  if (po.NumArgs() != 3 && po.NumArgs() != 4) return UsageError(po);
  TransitionModel trans_model;
  std::string nnet_in, model_out;
  if (po.NumArgs() == 4) {
    ContextDependency ctx_dep;
    ReadKaldiObject(po.GetArg(1), &ctx_dep);
    HmmTopology topo;
    ReadKaldiObject(po.GetArg(2), &topo);
    trans_model = TransitionModel(ctx_dep, topo);
    nnet_in = po.GetArg(3);
    model_out = po.GetArg(4);
  } else {
    ReadKaldiObject(po.GetArg(1), &trans_model);
    nnet_in = po.GetArg(2);
    model_out = po.GetArg(3);
  }
  Nnet nnet;
  ReadKaldiObject(nnet_in, &nnet);
  AmNnetSimple am_nnet(nnet);
  CheckPdfCounts(trans_model, am_nnet,
                 "nnet3-am-init " + PrintableRxfilename(nnet_in));
  WriteAmModel(trans_model, am_nnet, model_out, binary);
  NNET3_LOG << "Wrote the acoustic model " << PrintableWxfilename(model_out);
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3AmInit);
}
