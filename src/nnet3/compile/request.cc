// nnet3/compile/request.cc
#include "nnet3/compile/request.h"

#include <functional>
#include <set>

namespace nnet3 {

IoSpecification::IoSpecification(const std::string &name_in, int32 t_start,
                                 int32 t_end)
    : name(name_in) {
  NNET3_ASSERT(t_end >= t_start);
  for (int32 t = t_start; t < t_end; t++) indexes.push_back(Index(0, t, 0));
}

void IoSpecification::Print(std::ostream &os) const {
  os << "name=" << name << ", has-deriv=" << (has_deriv ? "true" : "false")
     << ", indexes=";
  PrintIndexes(os, indexes);
  os << "\n";
}

bool ComputationRequest::NeedDerivatives() const {
  for (const IoSpecification &s : inputs)
    if (s.has_deriv) return true;
  for (const IoSpecification &s : outputs)
    if (s.has_deriv) return true;
  return false;
}

int32 ComputationRequest::IndexForInput(const std::string &node_name) const {
  for (size_t i = 0; i < inputs.size(); i++)
    if (inputs[i].name == node_name) return static_cast<int32>(i);
  return -1;
}

int32 ComputationRequest::IndexForOutput(const std::string &node_name) const {
  for (size_t i = 0; i < outputs.size(); i++)
    if (outputs[i].name == node_name) return static_cast<int32>(i);
  return -1;
}

void ComputationRequest::Check() const {
  std::set<std::string> names;
  for (const IoSpecification &s : inputs)
    if (!names.insert(s.name).second)
      NNET3_ERR << "Computation request names input " << s.name << " twice";
  names.clear();
  for (const IoSpecification &s : outputs)
    if (!names.insert(s.name).second)
      NNET3_ERR << "Computation request names output " << s.name << " twice";
}

void ComputationRequest::Print(std::ostream &os) const {
  os << " # Computation request:\n";
  for (size_t i = 0; i < inputs.size(); i++) {
    os << "input-" << i << ": ";
    inputs[i].Print(os);
  }
  for (size_t i = 0; i < outputs.size(); i++) {
    os << "output-" << i << ": ";
    outputs[i].Print(os);
  }
  os << "need-model-derivative: "
     << (need_model_derivative ? "true\n" : "false\n");
  os << "store-component-stats: "
     << (store_component_stats ? "true\n" : "false\n");
}

bool ComputationRequest::operator==(const ComputationRequest &other) const {
  return inputs == other.inputs && outputs == other.outputs &&
         need_model_derivative == other.need_model_derivative &&
         store_component_stats == other.store_component_stats;
}

size_t ComputationRequestHasher::operator()(
    const ComputationRequest &request) const noexcept {
  size_t h = std::hash<bool>()(request.need_model_derivative) * 3 +
             std::hash<bool>()(request.store_component_stats);
  auto mix = [&h](size_t v) { h = h * 1000003u + v; };
  for (const auto *list : {&request.inputs, &request.outputs}) {
    mix(list->size());
    for (const IoSpecification &s : *list) {
      mix(std::hash<std::string>()(s.name));
      mix(s.has_deriv);
      mix(s.indexes.size());
      // Every Index counts (cheap next to compiling).
      for (const Index &index : s.indexes) mix(IndexHasher()(index));
    }
  }
  return h;
}

}  // namespace nnet3
