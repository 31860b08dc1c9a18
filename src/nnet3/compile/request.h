// nnet3/compile/request.h
// What a computation is asked to do: for each named input and output node,
// the Indexes (rows) it holds, and whether derivatives flow there; plus
// whether the model derivative is wanted and whether components should
// store statistics. Requests are compared and hashed so compiled
// computations can be cached per request.
// Invariant: a request is well-formed when each name appears at most once
// among inputs and at most once among outputs.
// On disk (Kaldi's nnet-computation.cc, byte for byte):
//   <IoSpecification> name <NumIndexes> N <Indexes> <I1V>... <HasDeriv> T|F
//   </IoSpecification>
//   <ComputationRequest> <NumInputs> I <Inputs> I x <IoSpecification>
//   <NumOutputs> O <Outputs> O x <IoSpecification>
//   <NeedModelDerivative> T|F <StoreComponentStats> T|F </ComputationRequest>
// with the counts written as size_t; MiscComputationInfo writes nothing.
#ifndef NNET3_NNET3_COMPILE_REQUEST_H_
#define NNET3_NNET3_COMPILE_REQUEST_H_

#include <istream>
#include <ostream>
#include <string>
#include <vector>

#include "nnet3/core/index.h"

namespace nnet3 {

struct IoSpecification {
  std::string name;
  std::vector<Index> indexes;
  bool has_deriv = false;

  IoSpecification() {}
  IoSpecification(const std::string &name_in,
                  const std::vector<Index> &indexes_in,
                  bool has_deriv_in = false)
      : name(name_in), indexes(indexes_in), has_deriv(has_deriv_in) {}
  // Indexes (n=0, t, x=0) for t in [t_start, t_end).
  IoSpecification(const std::string &name_in, int32 t_start, int32 t_end);
  // "name=input, has-deriv=false, indexes=[ (0, 0:9) ]"
  void Print(std::ostream &os) const;
  // Kaldi's format (see above). Read() errors (UserError) on malformed
  // input, including a <NumIndexes> that disagrees with the Index vector.
  void Read(std::istream &is, bool binary);
  void Write(std::ostream &os, bool binary) const;
  bool operator==(const IoSpecification &other) const {
    return name == other.name && indexes == other.indexes &&
           has_deriv == other.has_deriv;
  }
};

struct ComputationRequest {
  std::vector<IoSpecification> inputs;
  std::vector<IoSpecification> outputs;
  bool need_model_derivative = false;
  bool store_component_stats = false;
  MiscComputationInfo misc_info;

  // True if any input or output has has_deriv set.
  bool NeedDerivatives() const;
  // Position of the input/output with this name, or -1.
  int32 IndexForInput(const std::string &node_name) const;
  int32 IndexForOutput(const std::string &node_name) const;
  // Checks that no name repeats among the inputs or the outputs.
  void Check() const;
  // A readable listing, one line per input and output.
  void Print(std::ostream &os) const;
  // Kaldi's format (see above). Read() replaces *this only when the whole
  // request was read.
  void Read(std::istream &is, bool binary);
  void Write(std::ostream &os, bool binary) const;
  bool operator==(const ComputationRequest &other) const;
};

struct ComputationRequestHasher {
  size_t operator()(const ComputationRequest &request) const noexcept;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPILE_REQUEST_H_
