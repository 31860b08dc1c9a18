// nnet3/nnet/nnet-edit.h
// Edits applied to a network by nnet3-copy (--edits, --edits-config), one
// directive per line, key=value options as in config files; names may be
// glob patterns with '*' and '?':
//   set-learning-rate [name=<pattern>] learning-rate=<r>
//   set-learning-rate-factor [name=<pattern>] learning-rate-factor=<f>
//   rename-node old-name=<name> new-name=<name>
//   remove-output-nodes name=<pattern>
//   remove-orphans [remove-orphan-inputs=false]
//   remove-orphan-nodes [remove-orphan-inputs=false]
//   remove-orphan-components
//   set-dropout-proportion [name=<pattern>] proportion=<p>
//   reduce-rank name=<pattern> rank=<r>
//   apply-svd name=<pattern> [bottleneck-dim=<d>] [energy-threshold=<e>]
//             [shrinkage-threshold=<t>]   (bottleneck-dim or energy-threshold
//             is required; see nnet-svd.h for both)
// Unknown directives and unused options are errors naming the line.
// Also the whole-network operations behind nnet3-copy's other options.
#ifndef NNET3_NNET3_NNET_NNET_EDIT_H_
#define NNET3_NNET3_NNET_NNET_EDIT_H_

#include <istream>
#include <string>

#include "nnet3/nnet/nnet.h"

namespace nnet3 {

// Shell-style match of a name against a pattern with '*' and '?'.
bool NameMatchesPattern(const std::string &name, const std::string &pattern);

void ReadEditConfig(std::istream &edit_config, Nnet *nnet);

// Sets the underlying learning rate of every updatable component (the
// actual rate is this times its learning-rate-factor).
void SetLearningRate(BaseFloat learning_rate, Nnet *nnet);
// Scales every component's parameters (and statistics).
void ScaleNnet(BaseFloat scale, Nnet *nnet);

}  // namespace nnet3

#endif  // NNET3_NNET3_NNET_NNET_EDIT_H_
