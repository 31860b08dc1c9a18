// nnet3/nnet/nnet.h
// The neural network: named components plus a graph of named nodes.
//
// Node types (Kaldi's): kInput (an input-node, with a dim), kDescriptor (a
// Descriptor: either the input of the component node that follows it,
// named "<name>_input", or an output node), kComponent (applies a component
// to the preceding descriptor node), kDimRange (a column range of another
// node). A component-node line of a config file therefore creates two
// nodes. Node order is the order of definition; output nodes are the
// descriptor nodes not followed by a component node.
//
// Files: Kaldi's raw nnet3 format, "<Nnet3>", the node section as config
// lines (plain text even in binary files), a blank line, "<NumComponents>",
// each "<ComponentName> name <Type> ...", and "</Nnet3>". Read() also
// accepts a Kaldi .mdl (a transition model followed by the nnet) and skips
// the transition model.
//
// Invariants after Check(): every name is valid and unique per namespace,
// every descriptor refers to existing nodes, dimensions agree (component
// input dim = its descriptor's dim, dim-range inside its source), and each
// component node is preceded by its "_input" descriptor node.
#ifndef NNET3_NNET3_NNET_NNET_H_
#define NNET3_NNET3_NNET_NNET_H_

#include <istream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "nnet3/components/component.h"
#include "nnet3/core/descriptor.h"

namespace nnet3 {

enum NodeType { kInput, kDescriptor, kComponent, kDimRange, kNone };
enum ObjectiveType { kLinear, kQuadratic };

struct NetworkNode {
  NodeType node_type = kNone;
  Descriptor descriptor;           // kDescriptor
  int32 component_index = -1;      // kComponent
  int32 node_index = -1;           // kDimRange: the source node
  ObjectiveType objective_type = kLinear;  // output nodes
  int32 dim = -1;                  // kInput, kDimRange
  int32 dim_offset = -1;           // kDimRange
  explicit NetworkNode(NodeType t = kNone) : node_type(t) {}
};

class Nnet {
 public:
  Nnet() {}
  Nnet(const Nnet &other);
  Nnet &operator=(const Nnet &other);
  ~Nnet() { Destroy(); }

  // Reads a config file (or more config on top of an existing network:
  // components and nodes with existing names are replaced). Errors name
  // the line.
  void ReadConfig(std::istream &config_is,
                  const std::string &config_name = "config");

  int32 NumComponents() const { return static_cast<int32>(components_.size()); }
  int32 NumNodes() const { return static_cast<int32>(nodes_.size()); }
  Component *GetComponent(int32 c) { return components_[c].get(); }
  const Component *GetComponent(int32 c) const { return components_[c].get(); }
  // Takes ownership.
  void SetComponent(int32 c, Component *component);
  // Puts 'component' (owned from now on) in slot c and hands the one that
  // was there to the caller, who owns it.
  Component *ExchangeComponent(int32 c, Component *component);
  // Adds a component; returns its index. Takes ownership.
  int32 AddComponent(const std::string &name, Component *component);
  const NetworkNode &GetNode(int32 node) const { return nodes_[node]; }
  NetworkNode &GetNode(int32 node) { return nodes_[node]; }
  const std::string &GetNodeName(int32 node) const { return node_names_[node]; }
  const std::string &GetComponentName(int32 c) const {
    return component_names_[c];
  }
  const std::vector<std::string> &GetNodeNames() const { return node_names_; }
  const std::vector<std::string> &GetComponentNames() const {
    return component_names_;
  }
  void SetNodeName(int32 node, const std::string &name);
  // -1 if absent.
  int32 GetNodeIndex(const std::string &name) const;
  int32 GetComponentIndex(const std::string &name) const;

  bool IsInputNode(int32 node) const { return nodes_[node].node_type == kInput; }
  bool IsOutputNode(int32 node) const;
  bool IsComponentNode(int32 node) const {
    return nodes_[node].node_type == kComponent;
  }
  bool IsDimRangeNode(int32 node) const {
    return nodes_[node].node_type == kDimRange;
  }
  bool IsComponentInputNode(int32 node) const;
  // Output dimension of a node.
  int32 NodeDim(int32 node) const;
  // Lcm of the moduli of all descriptors.
  int32 Modulus() const;
  int32 InputDim(const std::string &input_name) const;   // -1 if absent
  int32 OutputDim(const std::string &output_name) const; // -1 if absent

  // One config line per node (component nodes include their descriptor),
  // with dims added if include_dim (as nnet3-info prints them).
  void GetConfigLines(bool include_dim, std::vector<std::string> *lines) const;
  std::string GetAsConfigLine(int32 node, bool include_dim) const;

  // Validates (see the header comment); warns about nodes and components
  // that no output uses if warn_for_orphans.
  void Check(bool warn_for_orphans = true) const;

  void Read(std::istream &is, bool binary);
  void Write(std::ostream &os, bool binary) const;

  // nnet3-info's text: contexts (for simple networks), num-parameters,
  // modulus, node lines with dims, one line per component.
  std::string Info() const;

  // Removes nodes that no output depends on, and then unused components.
  void RemoveOrphanNodes(bool remove_orphan_inputs = false);
  void RemoveOrphanComponents();
  // Removes the given output nodes (by index).
  void RemoveSomeNodes(const std::vector<int32> &nodes_to_remove);

  void Swap(Nnet *other);

 private:
  void Destroy();
  void ProcessComponentConfigLine(int32 initial_num_components,
                                  ConfigLine *config);
  void ProcessComponentNodeConfigLine(int32 pass, ConfigLine *config);
  void ProcessInputNodeConfigLine(ConfigLine *config);
  void ProcessOutputNodeConfigLine(int32 pass, ConfigLine *config);
  void ProcessDimRangeNodeConfigLine(int32 pass, ConfigLine *config);
  void ParseDescriptorInto(int32 node, ConfigLine *config,
                           const std::string &key);
  int32 DescriptorDim(const Descriptor &d) const;

  std::vector<std::string> component_names_;
  std::vector<std::unique_ptr<Component> > components_;
  std::vector<std::string> node_names_;
  std::vector<NetworkNode> nodes_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_NNET_NNET_H_
