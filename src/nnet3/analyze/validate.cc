// nnet3/analyze/validate.cc
// The validation pass for computations read from outside (see validate.h).
// Every table access below is preceded by the range check that makes it
// safe; submatrix arguments are checked before their sizes are used.
#include "nnet3/analyze/validate.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "base/log.h"
#include "nnet3/analyze/analyze.h"
#include "nnet3/analyze/checker.h"

namespace nnet3 {

namespace {

// Matrices hold fewer elements than this (the matrix library indexes
// elements with 32-bit integers).
const int64 kMaxMatrixElements = (int64(1) << 31) - 1;
// The analysis splits matrices into variables at every submatrix boundary;
// more than this many would only come from a damaged computation.
const int64 kMaxVariables = int64(1) << 26;

class StructureValidator {
 public:
  StructureValidator(const Nnet &nnet, const ComputationRequest *request,
                     const NnetComputation &computation)
      : nnet_(nnet), request_(request), c_(computation),
        num_matrices_(static_cast<int64>(computation.matrices.size())),
        num_subs_(static_cast<int64>(computation.submatrices.size())) {}

  void Run() {
    CheckTables();
    CheckNumVariables();
    for (size_t i = 0; i < c_.commands.size(); i++)
      CheckCommand(static_cast<int64>(i));
    if (request_ != nullptr) CheckRequestCoverage();
  }

 private:
  typedef NnetComputation::SubMatrixInfo SubInfo;

  void CheckTables() const {
    if (num_matrices_ == 0)
      NNET3_ERR << "the computation has no matrices (matrix 0 must be the "
                   "empty matrix)";
    if (c_.matrices[0].num_rows != 0 || c_.matrices[0].num_cols != 0)
      NNET3_ERR << "matrix 0 is " << c_.matrices[0].num_rows << " x "
                << c_.matrices[0].num_cols << ", expected the empty matrix";
    for (int64 m = 1; m < num_matrices_; m++) {
      const NnetComputation::MatrixInfo &info = c_.matrices[m];
      if (info.num_rows < 1 || info.num_cols < 1 ||
          int64(info.num_rows) * info.num_cols > kMaxMatrixElements)
        NNET3_ERR << "matrix m" << m << " has invalid dimensions "
                  << info.num_rows << " x " << info.num_cols;
      if (info.stride_type != kDefaultStride &&
          info.stride_type != kStrideEqualNumCols)
        NNET3_ERR << "matrix m" << m << " has an invalid stride type";
    }
    if (!c_.matrix_debug_info.empty()) {
      if (static_cast<int64>(c_.matrix_debug_info.size()) != num_matrices_)
        NNET3_ERR << "the computation has " << c_.matrix_debug_info.size()
                  << " matrix debug-info entries for " << num_matrices_
                  << " matrices";
      for (int64 m = 1; m < num_matrices_; m++)
        if (static_cast<int64>(c_.matrix_debug_info[m].cindexes.size()) !=
            c_.matrices[m].num_rows)
          NNET3_ERR << "debug info of matrix m" << m << " has "
                    << c_.matrix_debug_info[m].cindexes.size()
                    << " cindexes for " << c_.matrices[m].num_rows << " rows";
    }
    if (num_subs_ == 0)
      NNET3_ERR << "the computation has no submatrices (submatrix 0 must be "
                   "the empty submatrix)";
    if (!(c_.submatrices[0] == SubInfo()))
      NNET3_ERR << "submatrix 0 is not the empty submatrix";
    for (int64 s = 1; s < num_subs_; s++) {
      const SubInfo &i = c_.submatrices[s];
      if (i.matrix_index < 1 || i.matrix_index >= num_matrices_)
        NNET3_ERR << "submatrix " << s << " names matrix " << i.matrix_index
                  << ", out of range (the computation has " << num_matrices_
                  << " matrices)";
      const NnetComputation::MatrixInfo &m = c_.matrices[i.matrix_index];
      if (i.row_offset < 0 || i.num_rows < 1 || i.col_offset < 0 ||
          i.num_cols < 1 || int64(i.row_offset) + i.num_rows > m.num_rows ||
          int64(i.col_offset) + i.num_cols > m.num_cols)
        NNET3_ERR << "submatrix " << s << " (rows " << i.row_offset << "+"
                  << i.num_rows << ", cols " << i.col_offset << "+"
                  << i.num_cols << ") does not lie inside matrix m"
                  << i.matrix_index << " (" << m.num_rows << " x "
                  << m.num_cols << ")";
    }
    const std::vector<NnetComputation::PrecomputedIndexesInfo> &p =
        c_.component_precomputed_indexes;
    if (!p.empty() && p[0].data != nullptr)
      NNET3_ERR << "precomputed-indexes entry 0 must be empty";
    for (size_t i = 1; i < p.size(); i++)
      if (p[i].data == nullptr)
        NNET3_ERR << "precomputed-indexes entry " << i << " is empty";
  }

  // The number of variables ComputationVariables would create.
  void CheckNumVariables() const {
    std::vector<std::vector<int32> > rows(num_matrices_), cols(num_matrices_);
    for (int64 s = 1; s < num_subs_; s++) {
      const SubInfo &i = c_.submatrices[s];
      rows[i.matrix_index].push_back(i.row_offset);
      rows[i.matrix_index].push_back(i.row_offset + i.num_rows);
      cols[i.matrix_index].push_back(i.col_offset);
      cols[i.matrix_index].push_back(i.col_offset + i.num_cols);
    }
    int64 total = 0;
    for (int64 m = 1; m < num_matrices_; m++) {
      rows[m].push_back(0);
      rows[m].push_back(c_.matrices[m].num_rows);
      cols[m].push_back(0);
      cols[m].push_back(c_.matrices[m].num_cols);
      for (std::vector<int32> *v : {&rows[m], &cols[m]}) {
        std::sort(v->begin(), v->end());
        v->erase(std::unique(v->begin(), v->end()), v->end());
      }
      total += int64(rows[m].size() - 1) * int64(cols[m].size() - 1);
      if (total > kMaxVariables)
        NNET3_ERR << "the submatrices split the matrices into more than "
                  << kMaxVariables << " pieces";
    }
  }

  std::string Where() const {
    return "command " + DescribeCommand(c_, static_cast<int32>(ci_)) + ": ";
  }

  // A submatrix argument; 0 ("none") only where 'optional'.
  const SubInfo &Sub(int32 s, const char *role, bool optional) const {
    if (s < 0 || s >= num_subs_)
      NNET3_ERR << Where() << role << " submatrix index " << s
                << " is out of range (the computation has " << num_subs_
                << " submatrices)";
    if (s == 0 && !optional)
      NNET3_ERR << Where() << role << " submatrix index is 0 (none), but "
                << "this command needs one";
    return c_.submatrices[s];
  }

  const SubInfo &Whole(int32 s, const char *role) const {
    const SubInfo &i = Sub(s, role, false);
    const NnetComputation::MatrixInfo &m = c_.matrices[i.matrix_index];
    if (i.row_offset != 0 || i.col_offset != 0 || i.num_rows != m.num_rows ||
        i.num_cols != m.num_cols)
      NNET3_ERR << Where() << role << " submatrix " << s
                << " is not a whole matrix";
    return i;
  }

  const Component *ComponentArg(int32 index) const {
    if (index < 0 || index >= nnet_.NumComponents())
      NNET3_ERR << Where() << "component index " << index
                << " is out of range (the network has "
                << nnet_.NumComponents() << " components)";
    return nnet_.GetComponent(index);
  }

  void Cols(int32 s, int32 dim, const char *role) const {
    if (s != 0 && c_.submatrices[s].num_cols != dim)
      NNET3_ERR << Where() << role << " submatrix " << s << " has "
                << c_.submatrices[s].num_cols << " columns, but the "
                << "component's dimension is " << dim;
  }

  void Flag(int32 value, const char *what) const {
    if (value != 0 && value != 1)
      NNET3_ERR << Where() << what << " is " << value << ", expected 0 or 1";
  }

  // The precomputed-indexes argument: in range, present for non-simple
  // components, with one input Index per row of 'in_sub' (if not 0) and
  // one output Index per row of 'out_sub' (if not 0).
  void Precomputed(int32 p, const Component &comp, int32 in_sub,
                   int32 out_sub) const {
    int64 n = static_cast<int64>(c_.component_precomputed_indexes.size());
    if (p < 0 || (p > 0 && p >= n))
      NNET3_ERR << Where() << "precomputed-indexes index " << p
                << " is out of range (the computation has "
                << std::max<int64>(n - 1, 0) << " entries)";
    if (p == 0) {
      if (!(comp.Properties() & kSimpleComponent))
        NNET3_ERR << Where() << "component type " << comp.Type()
                  << " needs precomputed indexes, but none are given";
      return;
    }
    const NnetComputation::PrecomputedIndexesInfo &info =
        c_.component_precomputed_indexes[p];
    if (in_sub != 0 && info.input_indexes.size() !=
                           static_cast<size_t>(c_.submatrices[in_sub].num_rows))
      NNET3_ERR << Where() << "precomputed-indexes entry " << p << " has "
                << info.input_indexes.size() << " input Indexes but submatrix "
                << in_sub << " has " << c_.submatrices[in_sub].num_rows
                << " rows";
    if (out_sub != 0 &&
        info.output_indexes.size() !=
            static_cast<size_t>(c_.submatrices[out_sub].num_rows))
      NNET3_ERR << Where() << "precomputed-indexes entry " << p << " has "
                << info.output_indexes.size()
                << " output Indexes but submatrix " << out_sub << " has "
                << c_.submatrices[out_sub].num_rows << " rows";
  }

  void SameDims(const SubInfo &a, const SubInfo &b, int32 sa,
                int32 sb) const {
    if (a.num_rows != b.num_rows || a.num_cols != b.num_cols)
      NNET3_ERR << Where() << "submatrix " << sa << " is " << a.num_rows
                << " x " << a.num_cols << " but submatrix " << sb << " is "
                << b.num_rows << " x " << b.num_cols;
  }

  void CheckCommand(int64 ci) {
    ci_ = ci;
    const NnetComputation::Command &c = c_.commands[ci];
    if (!std::isfinite(c.alpha))
      NNET3_ERR << Where() << "alpha is not finite (" << c.alpha << ")";
    switch (c.command_type) {
      case kAllocMatrix:
      case kDeallocMatrix:
      case kDecompressMatrix:
        Whole(c.arg1, "matrix");
        break;
      case kSwapMatrix:
        SameDims(Whole(c.arg1, "first"), Whole(c.arg2, "second"), c.arg1,
                 c.arg2);
        break;
      case kSetConst:
        Sub(c.arg1, "destination", false);
        break;
      case kPropagate: {
        const Component *comp = ComponentArg(c.arg1);
        const int32 props = comp->Properties();
        const SubInfo &in =
            Sub(c.arg3, "input", (props & kSimpleComponent) == 0);
        const SubInfo &out = Sub(c.arg4, "output", false);
        Cols(c.arg3, comp->InputDim(), "input");
        Cols(c.arg4, comp->OutputDim(), "output");
        if ((props & kSimpleComponent) && in.num_rows != out.num_rows)
          NNET3_ERR << Where() << "input submatrix " << c.arg3 << " has "
                    << in.num_rows << " rows but output submatrix " << c.arg4
                    << " has " << out.num_rows << " (simple component)";
        Precomputed(c.arg2, *comp, c.arg3, c.arg4);
        if (c.arg5 < 0)
          NNET3_ERR << Where() << "memo index " << c.arg5 << " is negative";
        Flag(c.arg6, "the store-stats flag");
        break;
      }
      case kBackprop:
      case kBackpropNoModelUpdate: {
        const Component *comp = ComponentArg(c.arg1);
        const int32 props = comp->Properties();
        const SubInfo &in_value = Sub(c.arg3, "input-value", true);
        const SubInfo &out_value = Sub(c.arg4, "output-value", true);
        const SubInfo &out_deriv = Sub(c.arg5, "output-deriv", false);
        const SubInfo &in_deriv = Sub(c.arg6, "input-deriv", true);
        Cols(c.arg3, comp->InputDim(), "input-value");
        Cols(c.arg4, comp->OutputDim(), "output-value");
        Cols(c.arg5, comp->OutputDim(), "output-deriv");
        Cols(c.arg6, comp->InputDim(), "input-deriv");
        if ((props & kBackpropNeedsInput) && c.arg3 == 0)
          NNET3_ERR << Where() << "component type " << comp->Type()
                    << " needs the input value, but none is given";
        if ((props & kBackpropNeedsOutput) && c.arg4 == 0)
          NNET3_ERR << Where() << "component type " << comp->Type()
                    << " needs the output value, but none is given";
        if (c.arg3 != 0 && c.arg6 != 0 &&
            in_value.num_rows != in_deriv.num_rows)
          NNET3_ERR << Where() << "input-value rows " << in_value.num_rows
                    << " != input-deriv rows " << in_deriv.num_rows;
        if (c.arg4 != 0 && out_value.num_rows != out_deriv.num_rows)
          NNET3_ERR << Where() << "output-value rows " << out_value.num_rows
                    << " != output-deriv rows " << out_deriv.num_rows;
        if (props & kSimpleComponent) {
          int32 in_sub = c.arg6 != 0 ? c.arg6 : c.arg3;
          if (in_sub != 0 &&
              c_.submatrices[in_sub].num_rows != out_deriv.num_rows)
            NNET3_ERR << Where() << "submatrix " << in_sub << " has "
                      << c_.submatrices[in_sub].num_rows
                      << " rows but output-deriv submatrix " << c.arg5
                      << " has " << out_deriv.num_rows
                      << " (simple component)";
        }
        Precomputed(c.arg2, *comp, c.arg6 != 0 ? c.arg6 : c.arg3, c.arg5);
        if (c.arg7 < 0)
          NNET3_ERR << Where() << "memo index " << c.arg7 << " is negative";
        break;
      }
      case kMatrixCopy:
      case kMatrixAdd:
        SameDims(Sub(c.arg1, "destination", false),
                 Sub(c.arg2, "source", false), c.arg1, c.arg2);
        break;
      case kCopyRows:
      case kAddRows:
        CheckRows(c);
        break;
      case kCopyRowsMulti:
      case kCopyToRowsMulti:
      case kAddRowsMulti:
      case kAddToRowsMulti:
        CheckRowsMulti(c);
        break;
      case kAddRowRanges:
        CheckRowRanges(c);
        break;
      case kCompressMatrix:
        Whole(c.arg1, "matrix");
        if (c.arg2 < 1 || c.arg2 > 4)
          NNET3_ERR << Where() << "compression type " << c.arg2
                    << " is invalid (expected 1 to 4)";
        Flag(c.arg3, "the truncate flag");
        if (c.alpha < 0.0 || c.alpha > 1000.0)
          NNET3_ERR << Where() << "compression range (alpha) " << c.alpha
                    << " is invalid";
        break;
      case kAcceptInput:
      case kProvideOutput:
        CheckInputOutput(c);
        break;
      case kNoOperation:
      case kNoOperationPermanent:
      case kNoOperationMarker:
      case kNoOperationLabel:
        break;
      case kGotoLabel:
        if (c.arg1 < 0 || c.arg1 >= ci ||
            c_.commands[c.arg1].command_type != kNoOperationLabel)
          NNET3_ERR << Where() << "destination " << c.arg1
                    << " is not an earlier kNoOperationLabel";
        if (ci + 1 != static_cast<int64>(c_.commands.size()))
          NNET3_ERR << Where() << "kGotoLabel is not the last command";
        break;
    }
  }

  void CheckRows(const NnetComputation::Command &c) const {
    const SubInfo &dest = Sub(c.arg1, "destination", false);
    const SubInfo &src = Sub(c.arg2, "source", false);
    if (dest.num_cols != src.num_cols)
      NNET3_ERR << Where() << "destination submatrix " << c.arg1 << " has "
                << dest.num_cols << " columns but source submatrix " << c.arg2
                << " has " << src.num_cols;
    if (c.arg3 < 0 || static_cast<size_t>(c.arg3) >= c_.indexes.size())
      NNET3_ERR << Where() << "indexes index " << c.arg3
                << " is out of range (the computation has "
                << c_.indexes.size() << " index vectors)";
    const std::vector<int32> &v = c_.indexes[c.arg3];
    if (v.size() != static_cast<size_t>(dest.num_rows))
      NNET3_ERR << Where() << "indexes[" << c.arg3 << "] has " << v.size()
                << " entries but destination submatrix " << c.arg1 << " has "
                << dest.num_rows << " rows";
    for (size_t r = 0; r < v.size(); r++)
      if (v[r] < -1 || v[r] >= src.num_rows)
        NNET3_ERR << Where() << "entry " << r << " of indexes[" << c.arg3
                  << "] is " << v[r] << ", out of range for source submatrix "
                  << c.arg2 << " with " << src.num_rows << " rows";
  }

  void CheckRowsMulti(const NnetComputation::Command &c) const {
    const SubInfo &sub = Sub(c.arg1, "the", false);
    if (c.arg2 < 0 || static_cast<size_t>(c.arg2) >= c_.indexes_multi.size())
      NNET3_ERR << Where() << "indexes_multi index " << c.arg2
                << " is out of range (the computation has "
                << c_.indexes_multi.size() << " pair vectors)";
    const std::vector<std::pair<int32, int32> > &v = c_.indexes_multi[c.arg2];
    if (v.size() != static_cast<size_t>(sub.num_rows))
      NNET3_ERR << Where() << "indexes_multi[" << c.arg2 << "] has "
                << v.size() << " entries but submatrix " << c.arg1 << " has "
                << sub.num_rows << " rows";
    for (size_t r = 0; r < v.size(); r++) {
      int32 s = v[r].first, row = v[r].second;
      if (s == -1 && row == -1) continue;
      if (s < 1 || s >= num_subs_)
        NNET3_ERR << Where() << "entry " << r << " of indexes_multi["
                  << c.arg2 << "] names submatrix " << s
                  << ", out of range (the computation has " << num_subs_
                  << " submatrices)";
      const SubInfo &other = c_.submatrices[s];
      if (row < 0 || row >= other.num_rows)
        NNET3_ERR << Where() << "entry " << r << " of indexes_multi["
                  << c.arg2 << "] names row " << row << " of submatrix " << s
                  << ", which has " << other.num_rows << " rows";
      if (other.num_cols != sub.num_cols)
        NNET3_ERR << Where() << "entry " << r << " of indexes_multi["
                  << c.arg2 << "] names submatrix " << s << " with "
                  << other.num_cols << " columns, expected " << sub.num_cols;
    }
  }

  void CheckRowRanges(const NnetComputation::Command &c) const {
    const SubInfo &dest = Sub(c.arg1, "destination", false);
    const SubInfo &src = Sub(c.arg2, "source", false);
    if (dest.num_cols != src.num_cols)
      NNET3_ERR << Where() << "destination submatrix " << c.arg1 << " has "
                << dest.num_cols << " columns but source submatrix " << c.arg2
                << " has " << src.num_cols;
    if (c.arg3 < 0 || static_cast<size_t>(c.arg3) >= c_.indexes_ranges.size())
      NNET3_ERR << Where() << "indexes_ranges index " << c.arg3
                << " is out of range (the computation has "
                << c_.indexes_ranges.size() << " range vectors)";
    const std::vector<std::pair<int32, int32> > &v =
        c_.indexes_ranges[c.arg3];
    if (v.size() != static_cast<size_t>(dest.num_rows))
      NNET3_ERR << Where() << "indexes_ranges[" << c.arg3 << "] has "
                << v.size() << " entries but destination submatrix "
                << c.arg1 << " has " << dest.num_rows << " rows";
    for (size_t r = 0; r < v.size(); r++) {
      int32 b = v[r].first, e = v[r].second;
      if (!((b == -1 && e == -1) || (b >= 0 && e >= b && e <= src.num_rows)))
        NNET3_ERR << Where() << "entry " << r << " of indexes_ranges["
                  << c.arg3 << "] is (" << b << ", " << e
                  << "), not a row range of source submatrix " << c.arg2
                  << " with " << src.num_rows << " rows";
    }
  }

  void CheckInputOutput(const NnetComputation::Command &c) {
    const SubInfo &sub = Whole(c.arg1, "matrix");
    if (c.arg2 < 0 || c.arg2 >= nnet_.NumNodes())
      NNET3_ERR << Where() << "node index " << c.arg2
                << " is out of range (the network has " << nnet_.NumNodes()
                << " nodes)";
    const std::string &name = nnet_.GetNodeName(c.arg2);
    const bool is_input = nnet_.IsInputNode(c.arg2);
    if (!is_input && !nnet_.IsOutputNode(c.arg2))
      NNET3_ERR << Where() << "node '" << name
                << "' is neither an input nor an output node";
    const int32 dim = is_input ? nnet_.InputDim(name) : nnet_.OutputDim(name);
    if (sub.num_cols != dim)
      NNET3_ERR << Where() << "matrix m" << sub.matrix_index << " has "
                << sub.num_cols << " columns but node '" << name
                << "' has dimension " << dim;
    if (request_ == nullptr) return;
    // Accepting at an input node takes its value; at an output node, its
    // derivative. Providing is the other way round.
    const bool value = is_input == (c.command_type == kAcceptInput);
    const std::vector<IoSpecification> &specs =
        is_input ? request_->inputs : request_->outputs;
    const IoSpecification *spec = nullptr;
    for (const IoSpecification &s : specs)
      if (s.name == name) spec = &s;
    if (spec == nullptr || (!value && !spec->has_deriv))
      NNET3_ERR << Where() << "the request has no "
                << (value ? "value" : "derivative") << " for node '" << name
                << "'";
    if (spec->indexes.size() != static_cast<size_t>(sub.num_rows))
      NNET3_ERR << Where() << "matrix m" << sub.matrix_index << " has "
                << sub.num_rows << " rows but the request has "
                << spec->indexes.size() << " Indexes for node '" << name
                << "'";
    (c.command_type == kAcceptInput ? accepted_ : provided_).insert(c.arg2);
  }

  void CheckRequestCoverage() const {
    for (const IoSpecification &spec : request_->inputs) {
      int32 node = nnet_.GetNodeIndex(spec.name);
      if (node < 0 || !nnet_.IsInputNode(node))
        NNET3_ERR << "the request has input '" << PrintableString(spec.name)
                  << "', which is not an input node of the network";
      if (!accepted_.count(node))
        NNET3_ERR << "the computation never accepts the request's input '"
                  << spec.name << "'";
      if (spec.has_deriv && !provided_.count(node))
        NNET3_ERR << "the computation never provides the derivative for "
                  << "input '" << spec.name << "'";
    }
    for (const IoSpecification &spec : request_->outputs) {
      int32 node = nnet_.GetNodeIndex(spec.name);
      if (node < 0 || !nnet_.IsOutputNode(node))
        NNET3_ERR << "the request has output '" << PrintableString(spec.name)
                  << "', which is not an output node of the network";
      if (!provided_.count(node))
        NNET3_ERR << "the computation never provides the request's output '"
                  << spec.name << "'";
      if (spec.has_deriv && !accepted_.count(node))
        NNET3_ERR << "the computation never accepts the derivative for "
                  << "output '" << spec.name << "'";
    }
  }

  const Nnet &nnet_;
  const ComputationRequest *request_;
  const NnetComputation &c_;
  const int64 num_matrices_, num_subs_;
  int64 ci_ = 0;  // the command being checked
  std::set<int32> accepted_, provided_;  // nodes
};

std::string Serialized(const ComponentPrecomputedIndexes &p) {
  std::ostringstream os;
  p.Write(os, true);
  return os.str();
}

// Recomputes each precomputed-indexes entry with every component that uses
// it and requires the stored object to be the same (written the same).
void CheckPrecomputedIndexes(const Nnet &nnet,
                             const ComputationRequest &request,
                             const NnetComputation &computation) {
  std::set<std::pair<int32, int32> > uses;  // (entry, component)
  std::vector<int32> first_command(
      computation.component_precomputed_indexes.size(), -1);
  for (size_t i = 0; i < computation.commands.size(); i++) {
    const NnetComputation::Command &c = computation.commands[i];
    if ((c.command_type == kPropagate || c.command_type == kBackprop ||
         c.command_type == kBackpropNoModelUpdate) &&
        c.arg2 > 0) {
      if (uses.insert(std::make_pair(c.arg2, c.arg1)).second &&
          first_command[c.arg2] == -1)
        first_command[c.arg2] = static_cast<int32>(i);
    }
  }
  for (const std::pair<int32, int32> &use : uses) {
    const NnetComputation::PrecomputedIndexesInfo &info =
        computation.component_precomputed_indexes[use.first];
    const Component *comp = nnet.GetComponent(use.second);
    const std::string stored = Serialized(*info.data);
    bool same = false;
    std::string problem;
    for (bool need_backprop : {false, true}) {
      try {
        std::unique_ptr<ComponentPrecomputedIndexes> fresh(
            comp->PrecomputeIndexes(request.misc_info, info.input_indexes,
                                    info.output_indexes, need_backprop));
        if (fresh == nullptr) {
          problem = " (component type " + comp->Type() +
                    " has no precomputed indexes)";
          break;
        }
        if (Serialized(*fresh) == stored) same = true;
      } catch (const UserError &e) {
        problem = " (" + e.message() + ")";
      } catch (const InternalError &e) {
        problem = std::string(" (") + e.what() + ")";
      }
      if (same) break;
    }
    if (!same)
      NNET3_ERR << "command "
                << DescribeCommand(computation, first_command[use.first])
                << ": precomputed-indexes entry " << use.first
                << " is not what component '"
                << nnet.GetComponentName(use.second)
                << "' computes for its Indexes" << problem;
  }
}

}  // namespace

void ValidateComputationStructure(const Nnet &nnet,
                                  const ComputationRequest *request,
                                  const NnetComputation &computation) {
  StructureValidator validator(nnet, request, computation);
  validator.Run();
}

void ValidateComputation(const Nnet &nnet, const ComputationRequest &request,
                         const NnetComputation &computation) {
  ValidateComputationStructure(nnet, &request, computation);
  CheckPrecomputedIndexes(nnet, request, computation);
  try {
    CheckComputation(nnet, computation, false);
  } catch (const InternalError &e) {
    NNET3_ERR << "the computation fails an internal check: " << e.what();
  }
}

}  // namespace nnet3
