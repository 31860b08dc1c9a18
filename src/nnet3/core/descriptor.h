// nnet3/core/descriptor.h
// Descriptors: the "glue" expressions that say, for each Index requested at
// a node's input, which Cindexes of other nodes feed it (splicing,
// recurrence, sums, constants). Three levels, as in Kaldi:
//   Descriptor           = Append of one or more SumDescriptors (dims add up);
//   SumDescriptor        = Sum / Failover (binary), IfDefined, Const, or a
//                          plain ForwardingDescriptor;
//   ForwardingDescriptor = node (with a scale), Offset, Switch, Round,
//                          ReplaceIndex: maps one Index to exactly one Cindex.
// Invariants: every object owns its children (deep Copy); a parsed
// Descriptor is always in this normal form, so WriteConfig prints exactly
// what Kaldi prints for the same input and re-parsing the printed form
// gives the same Descriptor. Node dimensions are supplied by the caller
// (NodeDimFunction), so this file does not depend on the Nnet.
//
// Config-file grammar accepted by ParseDescriptor (the simplified, over-
// generating form; whitespace is free between tokens; a token is "(", ")",
// ",", a name [A-Za-z_][A-Za-z0-9_.-]* or a number):
//   <desc> ::= <node-name>
//            | Append(<desc> [, <desc> ...])
//            | Sum(<desc> [, <desc> ...])
//            | Failover(<desc>, <desc>)          first if computable, else second
//            | IfDefined(<desc>)                 the argument if computable, else 0
//            | Offset(<desc>, <t-offset> [, <x-offset>])      integers
//            | Switch(<desc> [, <desc> ...])     argument number (t mod count)
//            | Round(<desc>, <t-modulus>)        t rounded down to a multiple
//            | ReplaceIndex(<desc>, t|x, <value>)
//            | Scale(<real>, <desc>)
//            | Const(<real>, <dim>)              dim > 0
// Normalisation (Kaldi's, step for step) brings this into the internal
// grammar:
//   <descriptor>     ::= Append(<sum-desc> [, <sum-desc> ...]) | <sum-desc>
//   <sum-desc>       ::= Sum(<sum-desc>, <sum-desc>) | Failover(<sum-desc>, <sum-desc>)
//                      | IfDefined(<sum-desc>) | Const(<real>, <dim>) | <fwd-desc>
//   <fwd-desc>       ::= Offset(<fwd-desc>, <t> [, <x>]) | Switch(<fwd-desc>, ...)
//                      | Round(<fwd-desc>, <t-modulus>)
//                      | ReplaceIndex(<fwd-desc>, t|x, <value>)
//                      | Scale(<real>, <node-name>) | <node-name>
// by these rewrites: Append is lifted to the top (each argument of any other
// expression must then have the same number of Append terms, and the
// expression is applied term by term); Offset(Offset(d, a, b), c, e) ->
// Offset(d, a+c, b+e); Offset(d, 0[, 0]) -> d; an Offset/Round/ReplaceIndex
// (or one-argument Switch) around Sum/Failover/IfDefined moves inside it;
// Sum(d) -> d; Sum(a, b, c, ...) -> Sum(a, Sum(b, c, ...)); Scale moves
// inside Offset/Round/ReplaceIndex and distributes over Sum; Scale(a,
// Scale(b, d)) -> Scale(a*b, d). What cannot be normalised (Scale around
// Failover/IfDefined/Switch/Const, Sum/Failover/IfDefined inside Switch,
// Const inside a forwarding expression) is an error.
#ifndef NNET3_NNET3_CORE_DESCRIPTOR_H_
#define NNET3_NNET3_CORE_DESCRIPTOR_H_

#include <functional>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "base/common.h"
#include "nnet3/core/index.h"

namespace nnet3 {

// Returns the output dimension of a node, given its index.
typedef std::function<int32(int32 node_index)> NodeDimFunction;

// A set of Cindexes ("those known to be computable"), as asked by
// IsComputable(). The computation graph provides the real one.
class CindexSet {
 public:
  virtual bool operator()(const Cindex &cindex) const = 0;
  virtual ~CindexSet() {}
};

// ---------------------------------------------------------------------------
// ForwardingDescriptor: maps an output Index to exactly one input Cindex.
class ForwardingDescriptor {
 public:
  virtual Cindex MapToInput(const Index &index) const = 0;
  virtual int32 Dim(const NodeDimFunction &node_dim) const = 0;
  virtual std::unique_ptr<ForwardingDescriptor> Copy() const = 0;
  // Smallest t-shift n such that shifting all t by multiples of n leaves the
  // mapping unchanged (up to the shift); 1 for most descriptors.
  virtual int32 Modulus() const { return 1; }
  virtual void WriteConfig(std::ostream &os,
                           const std::vector<std::string> &node_names) const = 0;
  // Appends the nodes this descriptor may read from.
  virtual void GetNodeDependencies(std::vector<int32> *node_indexes) const = 0;
  // The scale on node_index, or +infinity if the node does not appear.
  // Throws if it appears with two different scales.
  virtual BaseFloat GetScaleForNode(int32 node_index) const = 0;

  ForwardingDescriptor() {}
  ForwardingDescriptor(const ForwardingDescriptor &) = delete;
  ForwardingDescriptor &operator=(const ForwardingDescriptor &) = delete;
  virtual ~ForwardingDescriptor() {}
};

// A node, with a scale (printed "node" or "Scale(0.5, node)").
class SimpleForwardingDescriptor : public ForwardingDescriptor {
 public:
  explicit SimpleForwardingDescriptor(int32 src_node, BaseFloat scale = 1.0);
  Cindex MapToInput(const Index &index) const override;
  int32 Dim(const NodeDimFunction &node_dim) const override;
  std::unique_ptr<ForwardingDescriptor> Copy() const override;
  void WriteConfig(std::ostream &os,
                   const std::vector<std::string> &node_names) const override;
  void GetNodeDependencies(std::vector<int32> *node_indexes) const override;
  BaseFloat GetScaleForNode(int32 node_index) const override;
  int32 SrcNode() const { return src_node_; }
  BaseFloat Scale() const { return scale_; }
 private:
  int32 src_node_;
  BaseFloat scale_;
};

// Offset(src, t[, x]): adds the offset (n is always 0) to the Index.
class OffsetForwardingDescriptor : public ForwardingDescriptor {
 public:
  OffsetForwardingDescriptor(std::unique_ptr<ForwardingDescriptor> src,
                             const Index &offset);
  Cindex MapToInput(const Index &index) const override;
  int32 Dim(const NodeDimFunction &node_dim) const override;
  std::unique_ptr<ForwardingDescriptor> Copy() const override;
  int32 Modulus() const override { return src_->Modulus(); }
  void WriteConfig(std::ostream &os,
                   const std::vector<std::string> &node_names) const override;
  void GetNodeDependencies(std::vector<int32> *node_indexes) const override;
  BaseFloat GetScaleForNode(int32 node_index) const override;
  const ForwardingDescriptor &Src() const { return *src_; }
  const Index &Offset() const { return offset_; }
 private:
  std::unique_ptr<ForwardingDescriptor> src_;
  Index offset_;
};

// Switch(s0, s1, ...): uses s[t mod count] (mathematical modulus).
class SwitchingForwardingDescriptor : public ForwardingDescriptor {
 public:
  explicit SwitchingForwardingDescriptor(
      std::vector<std::unique_ptr<ForwardingDescriptor>> src);
  Cindex MapToInput(const Index &index) const override;
  // Throws if the alternatives differ in dimension.
  int32 Dim(const NodeDimFunction &node_dim) const override;
  std::unique_ptr<ForwardingDescriptor> Copy() const override;
  // lcm(count, Modulus() of every alternative).
  int32 Modulus() const override;
  void WriteConfig(std::ostream &os,
                   const std::vector<std::string> &node_names) const override;
  void GetNodeDependencies(std::vector<int32> *node_indexes) const override;
  BaseFloat GetScaleForNode(int32 node_index) const override;
  int32 NumSrc() const { return static_cast<int32>(src_.size()); }
  const ForwardingDescriptor &Src(int32 i) const { return *src_[i]; }
 private:
  std::vector<std::unique_ptr<ForwardingDescriptor>> src_;
};

// Round(src, t_modulus): t rounded down to a multiple of t_modulus (>= 1).
class RoundingForwardingDescriptor : public ForwardingDescriptor {
 public:
  RoundingForwardingDescriptor(std::unique_ptr<ForwardingDescriptor> src,
                               int32 t_modulus);
  Cindex MapToInput(const Index &index) const override;
  int32 Dim(const NodeDimFunction &node_dim) const override;
  std::unique_ptr<ForwardingDescriptor> Copy() const override;
  int32 Modulus() const override { return t_modulus_; }
  void WriteConfig(std::ostream &os,
                   const std::vector<std::string> &node_names) const override;
  void GetNodeDependencies(std::vector<int32> *node_indexes) const override;
  BaseFloat GetScaleForNode(int32 node_index) const override;
  const ForwardingDescriptor &Src() const { return *src_; }
  int32 TModulus() const { return t_modulus_; }
 private:
  std::unique_ptr<ForwardingDescriptor> src_;
  int32 t_modulus_;
};

// ReplaceIndex(src, t|x, value): sets t or x of the Index to a constant.
class ReplaceIndexForwardingDescriptor : public ForwardingDescriptor {
 public:
  enum VariableName { kN = 0, kT = 1, kX = 2 };
  ReplaceIndexForwardingDescriptor(std::unique_ptr<ForwardingDescriptor> src,
                                   VariableName variable_name, int32 value);
  Cindex MapToInput(const Index &index) const override;
  int32 Dim(const NodeDimFunction &node_dim) const override;
  std::unique_ptr<ForwardingDescriptor> Copy() const override;
  void WriteConfig(std::ostream &os,
                   const std::vector<std::string> &node_names) const override;
  void GetNodeDependencies(std::vector<int32> *node_indexes) const override;
  BaseFloat GetScaleForNode(int32 node_index) const override;
  const ForwardingDescriptor &Src() const { return *src_; }
  VariableName Variable() const { return variable_name_; }
  int32 Value() const { return value_; }
 private:
  std::unique_ptr<ForwardingDescriptor> src_;
  VariableName variable_name_;
  int32 value_;
};

// ---------------------------------------------------------------------------
// SumDescriptor: a sum of terms, some optional, possibly with a constant.
class SumDescriptor {
 public:
  // Appends every Cindex the output at "index" may depend on (unsorted,
  // possibly repeated).
  virtual void GetDependencies(const Index &index,
                               std::vector<Cindex> *dependencies) const = 0;
  // True if the output at "index" can be computed when the inputs in
  // cindex_set are available; if so and used_inputs is non-null, appends
  // the inputs that take part in the sum (else leaves it unchanged).
  virtual bool IsComputable(const Index &index, const CindexSet &cindex_set,
                            std::vector<Cindex> *used_inputs) const = 0;
  virtual int32 Dim(const NodeDimFunction &node_dim) const = 0;
  virtual std::unique_ptr<SumDescriptor> Copy() const = 0;
  virtual void GetNodeDependencies(std::vector<int32> *node_indexes) const = 0;
  // For node_index >= 0: the scale on that node, +infinity if absent. For
  // node_index < 0: the constant term (0.0 if there is no Const()).
  virtual BaseFloat GetScaleForNode(int32 node_index) const = 0;
  virtual int32 Modulus() const = 0;
  virtual void WriteConfig(std::ostream &os,
                           const std::vector<std::string> &node_names) const = 0;

  SumDescriptor() {}
  SumDescriptor(const SumDescriptor &) = delete;
  SumDescriptor &operator=(const SumDescriptor &) = delete;
  virtual ~SumDescriptor() {}
};

// IfDefined(src): always computable; uses src's inputs when they are.
class OptionalSumDescriptor : public SumDescriptor {
 public:
  explicit OptionalSumDescriptor(std::unique_ptr<SumDescriptor> src);
  void GetDependencies(const Index &index,
                       std::vector<Cindex> *dependencies) const override;
  bool IsComputable(const Index &index, const CindexSet &cindex_set,
                    std::vector<Cindex> *used_inputs) const override;
  int32 Dim(const NodeDimFunction &node_dim) const override;
  std::unique_ptr<SumDescriptor> Copy() const override;
  void GetNodeDependencies(std::vector<int32> *node_indexes) const override;
  // Throws if a Const() appears inside (not supported).
  BaseFloat GetScaleForNode(int32 node_index) const override;
  int32 Modulus() const override { return src_->Modulus(); }
  void WriteConfig(std::ostream &os,
                   const std::vector<std::string> &node_names) const override;
  const SumDescriptor &Src() const { return *src_; }
 private:
  std::unique_ptr<SumDescriptor> src_;
};

// A single ForwardingDescriptor, computable iff its one input is present.
class SimpleSumDescriptor : public SumDescriptor {
 public:
  explicit SimpleSumDescriptor(std::unique_ptr<ForwardingDescriptor> src);
  void GetDependencies(const Index &index,
                       std::vector<Cindex> *dependencies) const override;
  bool IsComputable(const Index &index, const CindexSet &cindex_set,
                    std::vector<Cindex> *used_inputs) const override;
  int32 Dim(const NodeDimFunction &node_dim) const override;
  std::unique_ptr<SumDescriptor> Copy() const override;
  void GetNodeDependencies(std::vector<int32> *node_indexes) const override;
  BaseFloat GetScaleForNode(int32 node_index) const override;
  int32 Modulus() const override { return src_->Modulus(); }
  void WriteConfig(std::ostream &os,
                   const std::vector<std::string> &node_names) const override;
  const ForwardingDescriptor &Src() const { return *src_; }
 private:
  std::unique_ptr<ForwardingDescriptor> src_;
};

// Const(value, dim): no inputs, always computable.
class ConstantSumDescriptor : public SumDescriptor {
 public:
  // value must be finite, dim > 0.
  ConstantSumDescriptor(BaseFloat value, int32 dim);
  void GetDependencies(const Index &, std::vector<Cindex> *) const override {}
  bool IsComputable(const Index &, const CindexSet &,
                    std::vector<Cindex> *) const override { return true; }
  int32 Dim(const NodeDimFunction &) const override { return dim_; }
  std::unique_ptr<SumDescriptor> Copy() const override;
  void GetNodeDependencies(std::vector<int32> *) const override {}
  BaseFloat GetScaleForNode(int32 node_index) const override;
  int32 Modulus() const override { return 1; }
  void WriteConfig(std::ostream &os,
                   const std::vector<std::string> &node_names) const override;
  BaseFloat Value() const { return value_; }
 private:
  BaseFloat value_;
  int32 dim_;
};

// Sum(src1, src2) (both needed) or Failover(src1, src2) (src1 if
// computable, else src2).
class BinarySumDescriptor : public SumDescriptor {
 public:
  enum Operation { kSumOperation, kFailoverOperation };
  BinarySumDescriptor(Operation op, std::unique_ptr<SumDescriptor> src1,
                      std::unique_ptr<SumDescriptor> src2);
  void GetDependencies(const Index &index,
                       std::vector<Cindex> *dependencies) const override;
  bool IsComputable(const Index &index, const CindexSet &cindex_set,
                    std::vector<Cindex> *used_inputs) const override;
  // Throws if the two sides differ in dimension.
  int32 Dim(const NodeDimFunction &node_dim) const override;
  std::unique_ptr<SumDescriptor> Copy() const override;
  void GetNodeDependencies(std::vector<int32> *node_indexes) const override;
  BaseFloat GetScaleForNode(int32 node_index) const override;
  int32 Modulus() const override;
  void WriteConfig(std::ostream &os,
                   const std::vector<std::string> &node_names) const override;
  Operation Op() const { return op_; }
  const SumDescriptor &Src1() const { return *src1_; }
  const SumDescriptor &Src2() const { return *src2_; }
 private:
  Operation op_;
  std::unique_ptr<SumDescriptor> src1_, src2_;
};

// ---------------------------------------------------------------------------
// Descriptor: the Append of its parts (usually just one).
class Descriptor {
 public:
  Descriptor() {}
  explicit Descriptor(std::vector<std::unique_ptr<SumDescriptor>> parts);
  Descriptor(const Descriptor &other);
  Descriptor &operator=(const Descriptor &other);
  Descriptor(Descriptor &&other) = default;
  Descriptor &operator=(Descriptor &&other) = default;

  // Parses "text" (config form), resolving names against node_names (a
  // name's index there is its node index); throws UserError naming the
  // problem and its position. *this is unchanged on error.
  void Parse(const std::string &text,
             const std::vector<std::string> &node_names);

  // Sum of the parts' dimensions; throws on inconsistent Sum/Failover/Switch.
  int32 Dim(const NodeDimFunction &node_dim) const;
  // Convenience: node dimensions from a vector indexed by node.
  int32 Dim(const std::vector<int32> &node_dims) const;
  // lcm of the parts' moduli (1 for an empty Descriptor).
  int32 Modulus() const;
  // Clears *dependencies, then lists what every part may depend on.
  void GetDependencies(const Index &index,
                       std::vector<Cindex> *dependencies) const;
  // True if every part is computable; if used_inputs is non-null it is
  // cleared and then holds the inputs used (empty when false).
  bool IsComputable(const Index &index, const CindexSet &cindex_set,
                    std::vector<Cindex> *used_inputs) const;
  // Clears *node_indexes, then lists (unsorted, maybe repeated) the nodes
  // read from.
  void GetNodeDependencies(std::vector<int32> *node_indexes) const;
  // Kaldi's printed form: the part alone, or "Append(p1, p2, ...)".
  void WriteConfig(std::ostream &os,
                   const std::vector<std::string> &node_names) const;
  std::string ToString(const std::vector<std::string> &node_names) const;

  int32 NumParts() const { return static_cast<int32>(parts_.size()); }
  const SumDescriptor &Part(int32 n) const;

 private:
  std::vector<std::unique_ptr<SumDescriptor>> parts_;
};

// The deepest nesting ParseDescriptor accepts: expressions inside
// expressions, a Sum of n terms counting as n-1 levels (it becomes nested
// two-term Sums). Deeper input (e.g. 100000 nested "IfDefined(") is a parse
// error naming this limit, not a stack overflow.
constexpr int32 kMaxDescriptorDepth = 64;

// Parses and normalises a descriptor (grammar above). On failure returns
// false, leaves *desc unchanged and sets *error (if non-null) to one line
// naming the problem, the column and the remaining text, e.g.
//   "Expected ',' while parsing Offset(), got ')' at column 13 of
//    descriptor 'Offset(input)' (remaining text: ')')".
bool ParseDescriptor(const std::string &text,
                     const std::vector<std::string> &node_names,
                     Descriptor *desc, std::string *error);

// Kaldi's tokenizer for descriptors: splits at white space and at "(", ")"
// and ",", which are tokens themselves. False if some token is neither a
// valid name nor a number.
bool DescriptorTokenize(const std::string &input,
                        std::vector<std::string> *tokens);

}  // namespace nnet3

#endif  // NNET3_NNET3_CORE_DESCRIPTOR_H_
