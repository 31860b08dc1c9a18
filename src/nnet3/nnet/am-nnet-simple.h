// nnet3/nnet/am-nnet-simple.h
// Reading the network and the priors of a Kaldi .mdl file (transition
// model, network, then AmNnetSimple's <LeftContext>, <RightContext> and
// <Priors>), for the inference tools' --use-priors. The transition model
// is skipped (Nnet::Read does that) and the stored contexts are read but
// not used: the context is always recomputed from the network.
#ifndef NNET3_NNET3_NNET_AM_NNET_SIMPLE_H_
#define NNET3_NNET3_NNET_AM_NNET_SIMPLE_H_

#include <string>

#include "matrix/vector.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// Reads 'rxfilename' as a .mdl; a file without the AmNnetSimple fields
// after the network (a raw network) is a UserError naming the file.
void ReadAmNnetSimple(const std::string &rxfilename, Nnet *nnet,
                      Vector<BaseFloat> *priors);

}  // namespace nnet3

#endif  // NNET3_NNET3_NNET_AM_NNET_SIMPLE_H_
