// nnet3/nnet/nnet-utils.h
// Questions asked of a whole network: which nodes and components no output
// uses, how many parameters it has, whether it is "simple" (one input named
// "input", optionally "ivector", and an output named "output"), and its
// left/right context. The context is found as Kaldi finds it: give the
// network inputs on a window of frames (at every shift modulo the
// network's modulus) and see which output frames are computable; the
// computability of each (node, Index) is evaluated here directly from the
// descriptors and components, memoized.
#ifndef NNET3_NNET3_NNET_NNET_UTILS_H_
#define NNET3_NNET3_NNET_NNET_UTILS_H_

#include <string>
#include <vector>

#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// Nodes from which no output node can be reached (input nodes included).
void FindOrphanNodes(const Nnet &nnet, std::vector<int32> *nodes);
// Components no component node uses.
void FindOrphanComponents(const Nnet &nnet, std::vector<int32> *components);

int32 NumParameters(const Nnet &nnet);
int32 NumInputNodes(const Nnet &nnet);
int32 NumOutputNodes(const Nnet &nnet);
bool IsSimpleNnet(const Nnet &nnet);

// For each output Index requested of output node "output" (and with the
// inputs named in "inputs" available at the given Indexes), whether it is
// computable.
struct InputAvailability {
  std::string name;
  std::vector<Index> indexes;
};
void EvaluateComputability(const Nnet &nnet,
                           const std::vector<InputAvailability> &inputs,
                           const std::string &output_name,
                           const std::vector<Index> &output_indexes,
                           std::vector<bool> *computable);

// Left and right context of a simple network (errors if it cannot be
// worked out, e.g. for networks that are not simple).
void ComputeSimpleNnetContext(const Nnet &nnet, int32 *left_context,
                              int32 *right_context);

// True if every output frame depends only on input frames within the
// network's context, however the input is cut into chunks: no recurrence
// (the node graph has no cycle), no IfDefined() or Failover() (whose choice
// depends on what the chunk provides), and only simple components or
// TdnnComponents (fixed time offsets). For such networks chunked inference
// gives the same outputs for any chunk size.
bool NnetIsChunkingInvariant(const Nnet &nnet);

// Sets test mode on all BatchNorm / all random (dropout) components.
void SetBatchnormTestMode(bool test_mode, Nnet *nnet);
void SetDropoutTestMode(bool test_mode, Nnet *nnet);
// Sets the dropout proportion of the DropoutComponent, DropoutMaskComponent
// and GeneralDropoutComponent components whose names match the pattern;
// returns how many were changed.
int32 SetDropoutProportion(const std::string &pattern, BaseFloat proportion,
                           Nnet *nnet);

}  // namespace nnet3

#endif  // NNET3_NNET3_NNET_NNET_UTILS_H_
