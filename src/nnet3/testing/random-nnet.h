// nnet3/testing/random-nnet.h
// Random networks and requests for testing the compiler against the naive
// evaluator (naive-evaluator.h).
//
// GenerateRandomNnetConfig() writes a Kaldi-syntax nnet3 config of one of
// three kinds (feed-forward stack, TDNN with spliced inputs, or recurrent),
// optionally with an "ivector" input read as ReplaceIndex(ivector, t, 0)
// and extra outputs "output2", "output3", decorated at random with the
// descriptor expressions Sum, Scale, Const, Failover, IfDefined, Offset,
// Round, Switch and dim-range nodes, and with small (2..8 by default)
// dimensions.
// Invariants of a generated config: it parses and passes Nnet::Check();
// there is an input "input" (and maybe "ivector") and outputs named
// "output", "output2", ...; every node is used by some output; every
// component is deterministic (no batch-norm or dropout) and, unless
// allow_general_components, simple; a
// recurrence reads a component node's own output at an earlier time
// (t - k, k >= 1) only inside IfDefined(), so outputs on any contiguous
// range of t are computable from inputs on a wide enough contiguous range;
// within one Append term a node appears with one scale only.
//
// GenerateRandomRequest() asks for outputs on t in [0, T) for every
// sequence n, with inputs on the smallest contiguous t ranges that make
// every output computable (found with the naive evaluator, so recurrent
// networks get their non-recurrent context), widened by 0..2 frames on
// each side ("ivector" only gets t = 0).
#ifndef NNET3_NNET3_TESTING_RANDOM_NNET_H_
#define NNET3_NNET3_TESTING_RANDOM_NNET_H_

#include <string>
#include <vector>

#include "base/random.h"
#include "nnet3/compile/request.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {

struct RandomNnetOptions {
  bool allow_recurrence = true;        // the recurrent kind
  bool allow_ivector = true;           // an "ivector" input
  bool allow_multiple_outputs = true;  // "output2", "output3"
  bool allow_dim_range = true;         // dim-range-node
  bool allow_failover = true;          // Failover(Offset(x, a), Offset(x, b))
  bool allow_round = true;             // Round(x, 2)
  bool allow_switch = true;            // Switch(Offset(x, -1), x)
  bool allow_const = true;             // Sum(x, Const(c, dim))
  bool allow_if_defined = true;        // Sum(x, IfDefined(Offset(x, k)))
  // Components with kinks (RectifiedLinear, Pnorm); without them every
  // generated network is smooth at almost every point.
  bool allow_nonsmooth = true;
  // Layers built from the component types with their own index mapping or
  // structure (each only if its types are registered): TDNN-F with bypass
  // (TdnnComponent), LSTM with IfDefined recurrence and backprop truncation
  // (with allow_recurrence), time-height convolution, statistics extraction
  // and pooling read through Round(), restricted attention, distribute read
  // through ReplaceIndex(x), composite, block and repeated affine.
  bool allow_general_components = false;
  int32 min_dim = 2;
  int32 max_dim = 8;
};

// Returns the config text; sets *description (if non-null) to a one-line
// summary of the kind and the features used.
// A network read from config text (errors as Nnet::ReadConfig's).
Nnet NnetFromConfigString(const std::string &config);

// The network's config lines without dims (as Nnet::GetConfigLines).
std::vector<std::string> NnetConfigLines(const Nnet &nnet);

// A rows x cols matrix of standard Gaussian values.
Matrix<BaseFloat> RandomGaussMatrix(int32 rows, int32 cols, RandomSource *rng);

std::string GenerateRandomNnetConfig(RandomSource *rng,
                                     const RandomNnetOptions &opts,
                                     std::string *description);

// A random request for nnet (see the header comment) and Gaussian input
// values, one matrix per request input. has_deriv on the inputs and outputs
// and need_model_derivative are random, but input derivatives and the model
// derivative are only asked for when some output has has_deriv. Throws if
// the outputs are not computable from any input window of +-40 frames.
void GenerateRandomRequest(const Nnet &nnet, RandomSource *rng,
                           ComputationRequest *request,
                           std::vector<Matrix<BaseFloat>> *inputs);

// A random network and backward request for the differential tests:
// every output has a derivative, the inputs have one iff input_derivs, and
// need_model_derivative is model_derivative. 'trace' describes the case
// (network description, config and request) for SCOPED_TRACE.
struct RandomBackwardCase {
  Nnet nnet;
  ComputationRequest request;
  std::vector<Matrix<BaseFloat>> inputs;
  std::string trace;
};
void GenerateRandomBackwardCase(RandomSource *rng, bool input_derivs,
                                bool model_derivative,
                                RandomBackwardCase *c);

}  // namespace nnet3

#endif  // NNET3_NNET3_TESTING_RANDOM_NNET_H_
