// nnet3/nnet/nnet.cc
// Construction from config lines, validation and naming of the Nnet.
// (Reading and writing model files is in nnet-io.cc.)
#include "nnet3/nnet/nnet.h"

#include <algorithm>
#include <numeric>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "nnet3/nnet/nnet-utils.h"

namespace nnet3 {

Nnet::Nnet(const Nnet &other)
    : component_names_(other.component_names_),
      node_names_(other.node_names_),
      nodes_(other.nodes_) {
  for (const auto &c : other.components_)
    components_.emplace_back(c->Copy());
}

Nnet &Nnet::operator=(const Nnet &other) {
  if (this != &other) {
    Nnet tmp(other);
    Swap(&tmp);
  }
  return *this;
}

void Nnet::Swap(Nnet *other) {
  component_names_.swap(other->component_names_);
  components_.swap(other->components_);
  node_names_.swap(other->node_names_);
  nodes_.swap(other->nodes_);
}

void Nnet::Destroy() {
  components_.clear();
  component_names_.clear();
  nodes_.clear();
  node_names_.clear();
}

void Nnet::SetComponent(int32 c, Component *component) {
  NNET3_ASSERT(c >= 0 && c < NumComponents() && component != nullptr);
  components_[c].reset(component);
}

Component *Nnet::ExchangeComponent(int32 c, Component *component) {
  NNET3_ASSERT(c >= 0 && c < NumComponents() && component != nullptr);
  Component *old = components_[c].release();
  components_[c].reset(component);
  return old;
}

int32 Nnet::AddComponent(const std::string &name, Component *component) {
  NNET3_ASSERT(GetComponentIndex(name) == -1 && component != nullptr);
  component_names_.push_back(name);
  components_.emplace_back(component);
  return NumComponents() - 1;
}

void Nnet::SetNodeName(int32 node, const std::string &name) {
  if (!IsValidName(name)) NNET3_ERR << "Invalid node name '" << name << "'";
  if (GetNodeIndex(name) != -1 && GetNodeIndex(name) != node)
    NNET3_ERR << "Cannot rename node " << node_names_[node] << " to " << name
              << ": a node of that name exists";
  node_names_[node] = name;
  if (IsComponentNode(node)) node_names_[node - 1] = name + "_input";
}

int32 Nnet::GetNodeIndex(const std::string &name) const {
  for (size_t i = 0; i < node_names_.size(); i++)
    if (node_names_[i] == name) return static_cast<int32>(i);
  return -1;
}

int32 Nnet::GetComponentIndex(const std::string &name) const {
  for (size_t i = 0; i < component_names_.size(); i++)
    if (component_names_[i] == name) return static_cast<int32>(i);
  return -1;
}

bool Nnet::IsOutputNode(int32 node) const {
  return nodes_[node].node_type == kDescriptor &&
         (node + 1 == NumNodes() || nodes_[node + 1].node_type != kComponent);
}

bool Nnet::IsComponentInputNode(int32 node) const {
  return nodes_[node].node_type == kDescriptor && node + 1 < NumNodes() &&
         nodes_[node + 1].node_type == kComponent;
}

int32 Nnet::DescriptorDim(const Descriptor &d) const {
  return d.Dim([this](int32 node) { return NodeDim(node); });
}

int32 Nnet::NodeDim(int32 node) const {
  const NetworkNode &n = nodes_[node];
  switch (n.node_type) {
    case kInput:
    case kDimRange:
      return n.dim;
    case kDescriptor:
      return DescriptorDim(n.descriptor);
    case kComponent:
      NNET3_ASSERT(n.component_index >= 0);
      return components_[n.component_index]->OutputDim();
    case kNone:
      break;
  }
  NNET3_ASSERT(false && "node of type kNone");
  return -1;
}

int32 Nnet::Modulus() const {
  int32 ans = 1;
  for (const NetworkNode &n : nodes_) {
    if (n.node_type != kDescriptor) continue;
    int32 m = n.descriptor.Modulus();
    ans = std::lcm(ans, m);
  }
  return ans;
}

int32 Nnet::InputDim(const std::string &input_name) const {
  int32 n = GetNodeIndex(input_name);
  return (n != -1 && IsInputNode(n)) ? nodes_[n].dim : -1;
}

int32 Nnet::OutputDim(const std::string &output_name) const {
  int32 n = GetNodeIndex(output_name);
  return (n != -1 && IsOutputNode(n)) ? NodeDim(n) : -1;
}

std::string Nnet::GetAsConfigLine(int32 node, bool include_dim) const {
  std::ostringstream os;
  const NetworkNode &n = nodes_[node];
  const std::string &name = node_names_[node];
  switch (n.node_type) {
    case kInput:
      os << "input-node name=" << name << " dim=" << n.dim;
      break;
    case kDescriptor:
      NNET3_ASSERT(IsOutputNode(node));
      os << "output-node name=" << name << " input=";
      n.descriptor.WriteConfig(os, node_names_);
      if (include_dim) os << " dim=" << NodeDim(node);
      os << " objective="
         << (n.objective_type == kLinear ? "linear" : "quadratic");
      break;
    case kComponent:
      os << "component-node name=" << name
         << " component=" << component_names_[n.component_index]
         << " input=";
      nodes_[node - 1].descriptor.WriteConfig(os, node_names_);
      if (include_dim)
        os << " input-dim=" << NodeDim(node - 1)
           << " output-dim=" << NodeDim(node);
      break;
    case kDimRange:
      os << "dim-range-node name=" << name
         << " input-node=" << node_names_[n.node_index]
         << " dim-offset=" << n.dim_offset << " dim=" << n.dim;
      break;
    case kNone:
      NNET3_ASSERT(false && "node of type kNone");
  }
  return os.str();
}

void Nnet::GetConfigLines(bool include_dim,
                          std::vector<std::string> *lines) const {
  lines->clear();
  for (int32 n = 0; n < NumNodes(); n++)
    if (!IsComponentInputNode(n)) lines->push_back(GetAsConfigLine(n, include_dim));
}

// ---- Reading config files ----------------------------------------------------

namespace {

struct NumberedLine {
  int32 line_number;   // 0 for lines regenerated from an existing network
  std::string source;  // config name, for messages
  ConfigLine config;
};

[[noreturn]] void ConfigError(const NumberedLine &l, const std::string &what) {
  if (l.line_number > 0)
    NNET3_ERR << l.source << ":" << l.line_number << ": " << what
              << " (line: " << l.config.WholeLine() << ")";
  NNET3_ERR << what << " (in the existing network's line: "
            << l.config.WholeLine() << ")";
  throw std::logic_error("unreachable");  // NNET3_ERR always throws
}

}  // namespace

void Nnet::ReadConfig(std::istream &config_is, const std::string &config_name) {
  std::vector<std::pair<int32, std::string> > raw;
  ReadConfigLines(config_is, &raw);
  // The existing network's nodes become config lines placed before the new
  // ones, so new definitions can refer to and replace them.
  std::vector<std::string> old_lines;
  GetConfigLines(false, &old_lines);
  std::vector<NumberedLine> lines(old_lines.size());
  for (size_t i = 0; i < old_lines.size(); i++) {
    lines[i].line_number = 0;
    lines[i].source = config_name;
    if (!lines[i].config.ParseLine(old_lines[i]))
      NNET3_ASSERT(false && "cannot re-parse a generated config line");
  }
  size_t num_old = lines.size();
  for (const auto &r : raw) {
    NumberedLine l{r.first, config_name, {}};
    std::string error;
    if (!l.config.ParseLine(r.second, &error))
      NNET3_ERR << config_name << ":" << r.first << ": cannot parse config "
                << "line (" << error << "): " << r.second;
    lines.push_back(std::move(l));
  }
  // Node names may be redefined by the new lines (the last definition wins)
  // but not twice within the new lines; component names may not repeat
  // within the new lines.
  std::unordered_map<std::string, size_t> node_line;
  std::unordered_set<std::string> new_component_names;
  std::vector<bool> drop(lines.size(), false);
  for (size_t i = 0; i < lines.size(); i++) {
    NumberedLine &l = lines[i];
    const std::string &first = l.config.FirstToken();
    if (first != "component" && first != "component-node" &&
        first != "input-node" && first != "output-node" &&
        first != "dim-range-node")
      ConfigError(l, "unknown config line type '" + first +
                         "' (expected component, component-node, "
                         "input-node, output-node or dim-range-node)");
    std::string name;
    if (!l.config.GetValue("name", &name))
      ConfigError(l, "no name=... field");
    if (!IsValidName(name)) ConfigError(l, "invalid name '" + name + "'");
    if (first == "component") {
      if (!new_component_names.insert(name).second)
        ConfigError(l, "component " + name + " is defined twice");
      continue;
    }
    auto it = node_line.find(name);
    if (it != node_line.end()) {
      if (it->second >= num_old)
        ConfigError(l, "node " + name + " is defined twice");
      drop[it->second] = true;
    }
    node_line[name] = i;
  }
  std::vector<NumberedLine> kept;
  for (size_t i = 0; i < lines.size(); i++)
    if (!drop[i]) kept.push_back(std::move(lines[i]));

  // Nodes are rebuilt from the lines; components are kept and replaced.
  nodes_.clear();
  node_names_.clear();
  int32 initial_num_components = NumComponents();
  for (int32 pass = 0; pass < 2; pass++) {
    for (NumberedLine &l : kept) {
      const std::string &first = l.config.FirstToken();
      try {
        if (first == "component") {
          if (pass == 0) ProcessComponentConfigLine(initial_num_components, &l.config);
        } else if (first == "component-node") {
          ProcessComponentNodeConfigLine(pass, &l.config);
        } else if (first == "input-node") {
          if (pass == 0) ProcessInputNodeConfigLine(&l.config);
        } else if (first == "output-node") {
          ProcessOutputNodeConfigLine(pass, &l.config);
        } else {
          ProcessDimRangeNodeConfigLine(pass, &l.config);
        }
      } catch (const UserError &e) {
        ConfigError(l, e.message());
      }
    }
  }
  Check();
}

void Nnet::ProcessComponentConfigLine(int32 initial_num_components,
                                      ConfigLine *config) {
  std::string name, type;
  config->GetValue("name", &name);
  if (!config->GetValue("type", &type))
    NNET3_ERR << "no type=... field in component line";
  std::unique_ptr<Component> c(Component::NewComponentOfType(type));
  if (!c) {
    std::string known;
    for (const std::string &t : ComponentRegistry::Get().Types())
      known += (known.empty() ? "" : " ") + t;
    NNET3_ERR << "unknown component type " << type << " (known types: "
              << known << ")";
  }
  c->InitFromConfig(config);
  if (config->HasUnusedValues())
    NNET3_ERR << "unused values '" << config->UnusedValues()
              << "' for component " << name << " of type " << type;
  int32 index = GetComponentIndex(name);
  if (index != -1) {
    NNET3_ASSERT(index < initial_num_components);
    components_[index] = std::move(c);
  } else {
    component_names_.push_back(name);
    components_.push_back(std::move(c));
  }
}

void Nnet::ParseDescriptorInto(int32 node, ConfigLine *config,
                               const std::string &key) {
  std::string text, error;
  if (!config->GetValue(key, &text))
    NNET3_ERR << "no " << key << "=... field";
  Descriptor d;
  if (!ParseDescriptor(text, node_names_, &d, &error))
    NNET3_ERR << "bad descriptor '" << text << "': " << error;
  nodes_[node].descriptor = d;
}

void Nnet::ProcessComponentNodeConfigLine(int32 pass, ConfigLine *config) {
  std::string name;
  config->GetValue("name", &name);
  std::string input_name = name + "_input";
  if (pass == 0) {
    if (GetNodeIndex(name) != -1 || GetNodeIndex(input_name) != -1)
      NNET3_ERR << "node name " << name << " (or " << input_name
                << ") is already used";
    nodes_.push_back(NetworkNode(kDescriptor));
    nodes_.push_back(NetworkNode(kComponent));
    node_names_.push_back(input_name);
    node_names_.push_back(name);
    return;
  }
  int32 node = GetNodeIndex(name);
  NNET3_ASSERT(node > 0 && node_names_[node - 1] == input_name);
  std::string component_name;
  if (!config->GetValue("component", &component_name))
    NNET3_ERR << "no component=... field in component-node line";
  int32 c = GetComponentIndex(component_name);
  if (c == -1) NNET3_ERR << "no component named " << component_name;
  nodes_[node].component_index = c;
  ParseDescriptorInto(node - 1, config, "input");
  if (config->HasUnusedValues())
    NNET3_ERR << "unused values '" << config->UnusedValues() << "'";
}

void Nnet::ProcessInputNodeConfigLine(ConfigLine *config) {
  std::string name;
  config->GetValue("name", &name);
  int32 dim;
  if (!config->GetValue("dim", &dim)) NNET3_ERR << "no dim=... field";
  if (dim <= 0) NNET3_ERR << "invalid dim=" << dim;
  if (config->HasUnusedValues())
    NNET3_ERR << "unused values '" << config->UnusedValues() << "'";
  if (GetNodeIndex(name) != -1) NNET3_ERR << "node " << name << " exists";
  NetworkNode node(kInput);
  node.dim = dim;
  nodes_.push_back(node);
  node_names_.push_back(name);
}

void Nnet::ProcessOutputNodeConfigLine(int32 pass, ConfigLine *config) {
  std::string name;
  config->GetValue("name", &name);
  if (pass == 0) {
    if (GetNodeIndex(name) != -1) NNET3_ERR << "node " << name << " exists";
    nodes_.push_back(NetworkNode(kDescriptor));
    node_names_.push_back(name);
    return;
  }
  int32 node = GetNodeIndex(name);
  NNET3_ASSERT(node != -1);
  ParseDescriptorInto(node, config, "input");
  std::string objective = "linear";
  config->GetValue("objective", &objective);
  if (objective == "linear") nodes_[node].objective_type = kLinear;
  else if (objective == "quadratic") nodes_[node].objective_type = kQuadratic;
  else NNET3_ERR << "invalid objective=" << objective
                 << " (expected linear or quadratic)";
  // "dim" is allowed (nnet3-info prints it) if it agrees.
  int32 dim;
  if (config->GetValue("dim", &dim) && dim != NodeDim(node))
    NNET3_ERR << "dim=" << dim << " does not match the input's dim "
              << NodeDim(node);
  if (config->HasUnusedValues())
    NNET3_ERR << "unused values '" << config->UnusedValues() << "'";
}

void Nnet::ProcessDimRangeNodeConfigLine(int32 pass, ConfigLine *config) {
  std::string name;
  config->GetValue("name", &name);
  if (pass == 0) {
    if (GetNodeIndex(name) != -1) NNET3_ERR << "node " << name << " exists";
    nodes_.push_back(NetworkNode(kDimRange));
    node_names_.push_back(name);
    return;
  }
  int32 node = GetNodeIndex(name);
  std::string input_name;
  if (!config->GetValue("input-node", &input_name))
    NNET3_ERR << "no input-node=... field";
  int32 input = GetNodeIndex(input_name);
  if (input == -1) NNET3_ERR << "no node named " << input_name;
  NetworkNode &n = nodes_[node];
  n.node_index = input;
  if (!config->GetValue("dim-offset", &n.dim_offset))
    NNET3_ERR << "no dim-offset=... field";
  if (!config->GetValue("dim", &n.dim)) NNET3_ERR << "no dim=... field";
  if (config->HasUnusedValues())
    NNET3_ERR << "unused values '" << config->UnusedValues() << "'";
}

// ---- Validation ----------------------------------------------------------------

void Nnet::Check(bool warn_for_orphans) const {
  std::unordered_set<std::string> seen;
  for (const std::string &name : node_names_) {
    if (!IsValidName(name)) NNET3_ERR << "Invalid node name '" << name << "'";
    if (!seen.insert(name).second)
      NNET3_ERR << "Node name " << name << " is used twice";
  }
  seen.clear();
  for (const std::string &name : component_names_) {
    if (!IsValidName(name))
      NNET3_ERR << "Invalid component name '" << name << "'";
    if (!seen.insert(name).second)
      NNET3_ERR << "Component name " << name << " is used twice";
  }
  bool has_output = false;
  for (int32 n = 0; n < NumNodes(); n++) {
    const NetworkNode &node = nodes_[n];
    switch (node.node_type) {
      case kInput:
        if (node.dim <= 0)
          NNET3_ERR << "Input node " << node_names_[n] << " has dim "
                    << node.dim;
        break;
      case kDescriptor: {
        std::vector<int32> deps;
        node.descriptor.GetNodeDependencies(&deps);
        for (int32 d : deps) {
          if (d < 0 || d >= NumNodes() || nodes_[d].node_type == kNone)
            NNET3_ERR << "Node " << node_names_[n]
                      << " refers to a node that does not exist";
          // Descriptors read inputs, components and dim-ranges; never
          // other descriptors (component inputs or outputs).
          if (nodes_[d].node_type == kDescriptor)
            NNET3_ERR << "Node " << node_names_[n] << " refers to node "
                      << node_names_[d] << ", which is "
                      << (IsOutputNode(d) ? "an output node"
                                          : "the input of a component node")
                      << "; descriptors may only refer to input, component "
                         "and dim-range nodes";
        }
        if (IsOutputNode(n)) has_output = true;
        DescriptorDim(node.descriptor);  // throws if the parts disagree
        break;
      }
      case kComponent: {
        if (n == 0 || nodes_[n - 1].node_type != kDescriptor ||
            node_names_[n - 1] != node_names_[n] + "_input")
          NNET3_ERR << "Component node " << node_names_[n]
                    << " is not preceded by its input descriptor node";
        if (node.component_index < 0 || node.component_index >= NumComponents())
          NNET3_ERR << "Component node " << node_names_[n]
                    << " has no valid component";
        int32 in_dim = NodeDim(n - 1),
              c_dim = components_[node.component_index]->InputDim();
        if (in_dim != c_dim)
          NNET3_ERR << "Dimension mismatch for component node "
                    << node_names_[n] << ": its input has dim " << in_dim
                    << " but component "
                    << component_names_[node.component_index]
                    << " expects input-dim " << c_dim;
        break;
      }
      case kDimRange: {
        if (node.node_index < 0 || node.node_index >= NumNodes())
          NNET3_ERR << "Dim-range node " << node_names_[n]
                    << " has no valid input node";
        int32 src_dim = NodeDim(node.node_index);
        if (node.dim_offset < 0 || node.dim <= 0 ||
            node.dim_offset + node.dim > src_dim)
          NNET3_ERR << "Dim-range node " << node_names_[n] << " (dim-offset="
                    << node.dim_offset << ", dim=" << node.dim
                    << ") does not fit in node "
                    << node_names_[node.node_index] << " of dim " << src_dim;
        break;
      }
      case kNone:
        NNET3_ERR << "Node " << node_names_[n] << " was never defined";
    }
  }
  if (!has_output && NumNodes() > 0) NNET3_ERR << "Network has no output node";
  if (warn_for_orphans) {
    std::vector<int32> orphan_nodes, orphan_components;
    FindOrphanNodes(*this, &orphan_nodes);
    for (int32 n : orphan_nodes)
      NNET3_WARN << "Node " << node_names_[n]
                 << " is never used to compute any output.";
    FindOrphanComponents(*this, &orphan_components);
    for (int32 c : orphan_components)
      NNET3_WARN << "Component " << component_names_[c]
                 << " is never used by any node.";
  }
}

// ---- Pruning -------------------------------------------------------------------

void Nnet::RemoveSomeNodes(const std::vector<int32> &nodes_to_remove) {
  std::vector<bool> remove(NumNodes(), false);
  for (int32 n : nodes_to_remove) remove[n] = true;
  std::vector<int32> new_index(NumNodes(), -1);
  int32 next = 0;
  for (int32 n = 0; n < NumNodes(); n++)
    if (!remove[n]) new_index[n] = next++;
  std::vector<NetworkNode> nodes;
  std::vector<std::string> names;
  for (int32 n = 0; n < NumNodes(); n++)
    if (!remove[n]) names.push_back(node_names_[n]);
  for (int32 n = 0; n < NumNodes(); n++) {
    if (remove[n]) continue;
    NetworkNode node = nodes_[n];
    if (node.node_type == kDescriptor) {
      std::vector<int32> deps;
      node.descriptor.GetNodeDependencies(&deps);
      for (int32 d : deps)
        if (remove[d])
          NNET3_ERR << "Cannot remove node " << node_names_[d]
                    << ": node " << node_names_[n] << " uses it";
      // Renumber by printing with the old names and parsing with the new.
      std::ostringstream text;
      node.descriptor.WriteConfig(text, node_names_);
      std::string error;
      if (!ParseDescriptor(text.str(), names, &node.descriptor, &error))
        NNET3_ASSERT(false && "cannot re-parse a printed descriptor");
    } else if (node.node_type == kDimRange) {
      if (remove[node.node_index])
        NNET3_ERR << "Cannot remove node " << node_names_[node.node_index]
                  << ": dim-range node " << node_names_[n] << " uses it";
      node.node_index = new_index[node.node_index];
    }
    nodes.push_back(std::move(node));
  }
  nodes_.swap(nodes);
  node_names_.swap(names);
  Check(false);
}

void Nnet::RemoveOrphanNodes(bool remove_orphan_inputs) {
  std::vector<int32> orphans;
  FindOrphanNodes(*this, &orphans);
  std::vector<int32> to_remove;
  for (int32 n : orphans) {
    if (IsInputNode(n) && !remove_orphan_inputs) continue;
    to_remove.push_back(n);
    // A component node goes with its input descriptor node.
    if (IsComponentNode(n)) to_remove.push_back(n - 1);
  }
  std::sort(to_remove.begin(), to_remove.end());
  to_remove.erase(std::unique(to_remove.begin(), to_remove.end()),
                  to_remove.end());
  RemoveSomeNodes(to_remove);
  NNET3_LOG << "Removed " << to_remove.size() << " orphan nodes.";
}

void Nnet::RemoveOrphanComponents() {
  std::vector<int32> orphans;
  FindOrphanComponents(*this, &orphans);
  std::vector<bool> remove(NumComponents(), false);
  for (int32 c : orphans) remove[c] = true;
  std::vector<int32> new_index(NumComponents(), -1);
  std::vector<std::string> names;
  std::vector<std::unique_ptr<Component> > comps;
  for (int32 c = 0; c < NumComponents(); c++) {
    if (remove[c]) continue;
    new_index[c] = static_cast<int32>(comps.size());
    names.push_back(component_names_[c]);
    comps.push_back(std::move(components_[c]));
  }
  for (NetworkNode &n : nodes_)
    if (n.node_type == kComponent) n.component_index = new_index[n.component_index];
  component_names_.swap(names);
  components_.swap(comps);
  NNET3_LOG << "Removed " << orphans.size() << " orphan components.";
}

}  // namespace nnet3
