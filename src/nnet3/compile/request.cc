// nnet3/compile/request.cc
#include "nnet3/compile/request.h"

#include <functional>
#include <set>
#include <utility>

#include "base/io.h"

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

void IoSpecification::Read(std::istream &is, bool binary) {
  ExpectToken(is, binary, "<IoSpecification>");
  std::string name_in;
  ReadToken(is, binary, &name_in);
  ExpectToken(is, binary, "<NumIndexes>");
  size_t num_indexes;
  ReadBasicType(is, binary, &num_indexes);
  ExpectToken(is, binary, "<Indexes>");
  long long pos = StreamPosition(is);
  std::vector<Index> indexes_in;
  ReadIndexVector(is, binary, &indexes_in);
  if (indexes_in.size() != num_indexes)
    NNET3_ERR << "IoSpecification for '" << PrintableString(name_in)
              << "' says <NumIndexes> " << num_indexes << " but holds "
              << indexes_in.size() << " Indexes (at file position " << pos
              << ")";
  bool has_deriv_in;
  ExpectToken(is, binary, "<HasDeriv>");
  ReadBasicType(is, binary, &has_deriv_in);
  ExpectToken(is, binary, "</IoSpecification>");
  name.swap(name_in);
  indexes.swap(indexes_in);
  has_deriv = has_deriv_in;
}

void IoSpecification::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<IoSpecification>");
  if (!binary) os << '\n';
  WriteToken(os, binary, name);
  WriteToken(os, binary, "<NumIndexes>");
  WriteBasicType(os, binary, indexes.size());
  WriteToken(os, binary, "<Indexes>");
  WriteIndexVector(os, binary, indexes);
  WriteToken(os, binary, "<HasDeriv>");
  WriteBasicType(os, binary, has_deriv);
  if (!binary) os << '\n';
  WriteToken(os, binary, "</IoSpecification>");
  if (!binary) os << '\n';
}

namespace {
// Reads "<NumX> n <X>" and then n IoSpecifications, one at a time (so a
// corrupt count runs into a read error rather than a huge allocation).
void ReadIoSpecifications(std::istream &is, bool binary,
                          const char *count_token, const char *list_token,
                          std::vector<IoSpecification> *specs) {
  ExpectToken(is, binary, count_token);
  size_t n;
  ReadBasicType(is, binary, &n);
  ExpectToken(is, binary, list_token);
  specs->clear();
  for (size_t i = 0; i < n; i++) {
    specs->emplace_back();
    specs->back().Read(is, binary);
  }
}

void WriteIoSpecifications(std::ostream &os, bool binary,
                           const char *count_token, const char *list_token,
                           const std::vector<IoSpecification> &specs) {
  WriteToken(os, binary, count_token);
  WriteBasicType(os, binary, specs.size());
  if (!binary) os << '\n';
  WriteToken(os, binary, list_token);
  for (const IoSpecification &spec : specs) spec.Write(os, binary);
  if (!binary) os << '\n';
}
}  // namespace

void ComputationRequest::Read(std::istream &is, bool binary) {
  ComputationRequest in;
  ExpectToken(is, binary, "<ComputationRequest>");
  ReadIoSpecifications(is, binary, "<NumInputs>", "<Inputs>", &in.inputs);
  ReadIoSpecifications(is, binary, "<NumOutputs>", "<Outputs>", &in.outputs);
  ExpectToken(is, binary, "<NeedModelDerivative>");
  ReadBasicType(is, binary, &in.need_model_derivative);
  ExpectToken(is, binary, "<StoreComponentStats>");
  ReadBasicType(is, binary, &in.store_component_stats);
  ExpectToken(is, binary, "</ComputationRequest>");
  *this = std::move(in);
}

void ComputationRequest::Write(std::ostream &os, bool binary) const {
  WriteToken(os, binary, "<ComputationRequest>");
  if (!binary) os << '\n';
  WriteIoSpecifications(os, binary, "<NumInputs>", "<Inputs>", inputs);
  WriteIoSpecifications(os, binary, "<NumOutputs>", "<Outputs>", outputs);
  WriteToken(os, binary, "<NeedModelDerivative>");
  WriteBasicType(os, binary, need_model_derivative);
  WriteToken(os, binary, "<StoreComponentStats>");
  WriteBasicType(os, binary, store_component_stats);
  WriteToken(os, binary, "</ComputationRequest>");
  if (!binary) os << '\n';
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
