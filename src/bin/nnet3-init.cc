// bin/nnet3-init.cc
// Creates a raw nnet3 network from a config file, or adds to / replaces
// parts of an existing one.
#include "bin/cli.h"
#include "nnet3/nnet/nnet.h"
#include "util/stream.h"

namespace nnet3 {

int Nnet3Init(int argc, char *argv[]) {
  const char *usage =
      "Creates a raw nnet3 network from a config file; with an existing\n"
      "network as first argument, the config adds components and nodes to\n"
      "it or replaces those of the same names.\n"
      "Usage:  nnet3-init [options] [<existing-model-in>] <config-in> <raw-nnet-out>\n"
      "e.g.: nnet3-init nnet.config 0.raw\n"
      "      nnet3-init 1.raw extra.config 2.raw\n";
  ParseOptions po(usage);
  bool binary = true;
  int32 srand_seed = 0;
  po.Register("binary", &binary, "Write the output in binary");
  po.Register("srand", &srand_seed,
              "Seed for the random numbers that initialize parameters");
  po.Read(argc, argv);
  if (po.NumArgs() != 2 && po.NumArgs() != 3) return UsageError(po);
  Srand(static_cast<uint64>(static_cast<uint32>(srand_seed)));
  Nnet nnet;
  int32 arg = 1;
  if (po.NumArgs() == 3) {
    ReadKaldiObject(po.GetArg(arg++), &nnet);
    NNET3_LOG << "Read existing network from "
              << PrintableRxfilename(po.GetArg(1));
  }
  std::string config_rxfilename = po.GetArg(arg++),
              out_wxfilename = po.GetArg(arg);
  {
    Input ki;
    ki.OpenTextMode(config_rxfilename);
    nnet.ReadConfig(ki.Stream(), PrintableRxfilename(config_rxfilename));
  }
  WriteKaldiObject(nnet, out_wxfilename, binary);
  NNET3_LOG << "Initialized raw neural net and wrote it to "
            << PrintableWxfilename(out_wxfilename);
  return 0;
}

}  // namespace nnet3

int main(int argc, char *argv[]) {
  return nnet3::RunTool(argc, argv, nnet3::Nnet3Init);
}
