// nnet3/nnet/nnet-edit.cc
#include "nnet3/nnet/nnet-edit.h"

#include <sstream>

#include "nnet3/nnet/nnet-svd.h"
#include "nnet3/nnet/nnet-utils.h"

namespace nnet3 {

bool NameMatchesPattern(const std::string &name, const std::string &pattern) {
  // Iterative glob matching with backtracking to the last '*'.
  size_t n = 0, p = 0, star = std::string::npos, mark = 0;
  while (n < name.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == name[n])) {
      n++;
      p++;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = n;
    } else if (star != std::string::npos) {
      p = star + 1;
      n = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') p++;
  return p == pattern.size();
}

void SetLearningRate(BaseFloat learning_rate, Nnet *nnet) {
  for (int32 c = 0; c < nnet->NumComponents(); c++) {
    UpdatableComponent *u =
        dynamic_cast<UpdatableComponent *>(nnet->GetComponent(c));
    if (u) u->SetUnderlyingLearningRate(learning_rate);
  }
}

void ScaleNnet(BaseFloat scale, Nnet *nnet) {
  if (scale == 1.0) return;
  for (int32 c = 0; c < nnet->NumComponents(); c++)
    nnet->GetComponent(c)->Scale(scale);
}

namespace {

// Applies one edit line; errors are UserErrors without the line (added by
// the caller).
void ApplyEdit(ConfigLine *config, Nnet *nnet) {
  const std::string &directive = config->FirstToken();
  if (directive == "set-learning-rate" ||
      directive == "set-learning-rate-factor") {
    std::string pattern = "*";
    config->GetValue("name", &pattern);
    bool is_factor = directive == "set-learning-rate-factor";
    BaseFloat value;
    if (!config->GetValue(is_factor ? "learning-rate-factor" : "learning-rate",
                          &value))
      NNET3_ERR << "missing " << (is_factor ? "learning-rate-factor" : "learning-rate")
                << "=...";
    int32 num_set = 0;
    for (int32 c = 0; c < nnet->NumComponents(); c++) {
      if (!NameMatchesPattern(nnet->GetComponentName(c), pattern)) continue;
      UpdatableComponent *u =
          dynamic_cast<UpdatableComponent *>(nnet->GetComponent(c));
      if (!u) continue;
      if (is_factor) u->SetLearningRateFactor(value);
      else u->SetUnderlyingLearningRate(value);
      num_set++;
    }
    NNET3_LOG << directive << ": changed " << num_set << " components";
  } else if (directive == "rename-node") {
    std::string old_name, new_name;
    if (!config->GetValue("old-name", &old_name) ||
        !config->GetValue("new-name", &new_name))
      NNET3_ERR << "rename-node needs old-name=... and new-name=...";
    int32 node = nnet->GetNodeIndex(old_name);
    if (node == -1) NNET3_ERR << "no node named " << old_name;
    nnet->SetNodeName(node, new_name);
  } else if (directive == "remove-output-nodes") {
    std::string pattern;
    if (!config->GetValue("name", &pattern))
      NNET3_ERR << "remove-output-nodes needs name=...";
    std::vector<int32> to_remove;
    for (int32 n = 0; n < nnet->NumNodes(); n++)
      if (nnet->IsOutputNode(n) &&
          NameMatchesPattern(nnet->GetNodeName(n), pattern))
        to_remove.push_back(n);
    if (to_remove.empty())
      NNET3_WARN << "remove-output-nodes: no output node matches " << pattern;
    nnet->RemoveSomeNodes(to_remove);
  } else if (directive == "remove-orphans" ||
             directive == "remove-orphan-nodes") {
    bool remove_inputs = false;
    config->GetValue("remove-orphan-inputs", &remove_inputs);
    nnet->RemoveOrphanNodes(remove_inputs);
    if (directive == "remove-orphans") nnet->RemoveOrphanComponents();
  } else if (directive == "remove-orphan-components") {
    nnet->RemoveOrphanComponents();
  } else if (directive == "set-dropout-proportion") {
    std::string pattern = "*";
    config->GetValue("name", &pattern);
    BaseFloat proportion;
    if (!config->GetValue("proportion", &proportion))
      NNET3_ERR << "set-dropout-proportion needs proportion=...";
    if (proportion < 0.0 || proportion > 1.0)
      NNET3_ERR << "proportion=" << proportion << " is not in [0, 1]";
    int32 num_set = SetDropoutProportion(pattern, proportion, nnet);
    NNET3_LOG << "set-dropout-proportion: changed " << num_set
              << " components";
  } else if (directive == "reduce-rank") {
    std::string pattern;
    int32 rank = -1;
    if (!config->GetValue("name", &pattern))
      NNET3_ERR << "reduce-rank needs name=<pattern>";
    if (!config->GetValue("rank", &rank))
      NNET3_ERR << "reduce-rank needs rank=<r>";
    if (rank <= 0) NNET3_ERR << "reduce-rank: rank=" << rank << " is not positive";
    if (config->HasUnusedValues())
      NNET3_ERR << "unused values '" << config->UnusedValues() << "'";
    ReduceRankOfComponents(pattern, rank, nnet);
  } else if (directive == "apply-svd") {
    std::string pattern;
    ApplySvdOptions opts;
    config->GetValue("bottleneck-dim", &opts.bottleneck_dim);
    config->GetValue("energy-threshold", &opts.energy_threshold);
    config->GetValue("shrinkage-threshold", &opts.shrinkage_threshold);
    if (!config->GetValue("name", &pattern))
      NNET3_ERR << "apply-svd needs name=<pattern>";
    if (config->HasUnusedValues())
      NNET3_ERR << "unused values '" << config->UnusedValues() << "'";
    ApplySvdToComponents(pattern, opts, nnet);
  } else {
    NNET3_ERR << "unknown edit directive '" << directive
              << "' (known: set-learning-rate, set-learning-rate-factor, "
                 "rename-node, remove-output-nodes, remove-orphans, "
                 "remove-orphan-nodes, remove-orphan-components, "
                 "set-dropout-proportion, reduce-rank, apply-svd)";
  }
  if (config->HasUnusedValues())
    NNET3_ERR << "unused values '" << config->UnusedValues() << "'";
}

}  // namespace

void ReadEditConfig(std::istream &edit_config, Nnet *nnet) {
  std::vector<std::pair<int32, std::string> > lines;
  ReadConfigLines(edit_config, &lines);
  for (const auto &l : lines) {
    ConfigLine config;
    std::string error;
    if (!config.ParseLine(l.second, &error))
      NNET3_ERR << "edit line " << l.first << ": cannot parse (" << error
                << "): " << l.second;
    try {
      ApplyEdit(&config, nnet);
    } catch (const UserError &e) {
      NNET3_ERR << "edit line " << l.first << " (" << l.second
                << "): " << e.message();
    }
  }
  nnet->Check();
}

}  // namespace nnet3
