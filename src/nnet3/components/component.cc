// nnet3/components/component.cc
#include "nnet3/components/component.h"

#include <sstream>

namespace nnet3 {

void Component::GetInputIndexes(const MiscComputationInfo &misc_info,
                                const Index &output_index,
                                std::vector<Index> *desired_indexes) const {
  (void)misc_info;
  desired_indexes->assign(1, output_index);
}

bool Component::IsComputable(const MiscComputationInfo &misc_info,
                             const Index &output_index,
                             const IndexSet &input_index_set,
                             std::vector<Index> *used_inputs) const {
  (void)misc_info;
  bool ans = input_index_set(output_index);
  if (ans && used_inputs) used_inputs->assign(1, output_index);
  return ans;
}

std::string Component::Info() const {
  std::ostringstream os;
  os << Type() << ", input-dim=" << InputDim()
     << ", output-dim=" << OutputDim();
  return os.str();
}

Component *Component::NewComponentOfType(const std::string &type) {
  return ComponentRegistry::Get().New(type);
}

Component *Component::ReadNew(std::istream &is, bool binary) {
  std::string token;
  ReadToken(is, binary, &token);
  if (token.size() < 3 || token.front() != '<' || token.back() != '>')
    NNET3_ERR << "Expected a component type token like <AffineComponent>, got "
              << PrintableString(token);
  std::string type = token.substr(1, token.size() - 2);
  Component *c = NewComponentOfType(type);
  if (c == nullptr) {
    std::string known;
    for (const std::string &t : ComponentRegistry::Get().Types())
      known += (known.empty() ? "" : " ") + t;
    NNET3_ERR << "Unknown component type " << type << " (known types: "
              << known << ")";
  }
  try {
    c->Read(is, binary);
  } catch (...) {
    delete c;
    throw;
  }
  return c;
}

ComponentPrecomputedIndexes *ComponentPrecomputedIndexes::NewOfType(
    const std::string &type) {
  return ComponentRegistry::Get().NewPrecomputedIndexes(type);
}

ComponentPrecomputedIndexes *ComponentPrecomputedIndexes::ReadNew(
    std::istream &is, bool binary) {
  std::string token;
  ReadToken(is, binary, &token);
  if (token.size() < 3 || token.front() != '<' || token.back() != '>')
    NNET3_ERR << "Expected a precomputed-indexes type token like "
              << "<StatisticsPoolingComponentPrecomputedIndexes>, got "
              << PrintableString(token);
  std::string type = token.substr(1, token.size() - 2);
  ComponentPrecomputedIndexes *p = NewOfType(type);
  if (p == nullptr)
    NNET3_ERR << "Unknown component precomputed-indexes type '" << type << "'";
  try {
    p->Read(is, binary);
  } catch (...) {
    delete p;
    throw;
  }
  return p;
}

void ExpectOneOrTwoTokens(std::istream &is, bool binary,
                          const std::string &token1,
                          const std::string &token2) {
  std::string token;
  ReadToken(is, binary, &token);
  if (token == token1) ReadToken(is, binary, &token);
  if (token != token2)
    NNET3_ERR << "Expected token " << token2 << " (after optional " << token1
              << "), got " << PrintableString(token);
}

void CheckNoUnusedValues(const ConfigLine &cfl, const Component &c) {
  if (cfl.HasUnusedValues())
    NNET3_ERR << "Could not process these elements in the initializer of "
              << c.Type() << ": " << cfl.UnusedValues();
}

// ---- UpdatableComponent -----------------------------------------------------

void UpdatableComponent::SetUpdatableConfigs(const UpdatableComponent &other) {
  learning_rate_ = other.learning_rate_;
  learning_rate_factor_ = other.learning_rate_factor_;
  l2_regularize_ = other.l2_regularize_;
  is_gradient_ = other.is_gradient_;
  max_change_ = other.max_change_;
}

std::string UpdatableComponent::Info() const {
  std::ostringstream os;
  os << Component::Info() << ", learning-rate=" << learning_rate_;
  if (is_gradient_) os << ", is-gradient=true";
  if (l2_regularize_ != 0.0) os << ", l2-regularize=" << l2_regularize_;
  if (learning_rate_factor_ != 1.0)
    os << ", learning-rate-factor=" << learning_rate_factor_;
  if (max_change_ > 0.0) os << ", max-change=" << max_change_;
  return os.str();
}

void UpdatableComponent::InitLearningRatesFromConfig(ConfigLine *cfl) {
  cfl->GetValue("learning-rate", &learning_rate_);
  cfl->GetValue("learning-rate-factor", &learning_rate_factor_);
  max_change_ = 0.0;
  cfl->GetValue("max-change", &max_change_);
  l2_regularize_ = 0.0;
  cfl->GetValue("l2-regularize", &l2_regularize_);
  if (!(learning_rate_ >= 0.0) || !(learning_rate_factor_ >= 0.0) ||
      !(max_change_ >= 0.0) || !(l2_regularize_ >= 0.0))
    NNET3_ERR << "Negative learning-rate, learning-rate-factor, max-change "
                 "or l2-regularize in config line: " << cfl->WholeLine();
}

std::string UpdatableComponent::ReadUpdatableCommon(std::istream &is,
                                                    bool binary) {
  std::string token;
  ReadToken(is, binary, &token);
  if (token == OpeningTag(*this)) ReadToken(is, binary, &token);
  learning_rate_factor_ = 1.0;
  if (token == "<LearningRateFactor>") {
    ReadBasicType(is, binary, &learning_rate_factor_);
    ReadToken(is, binary, &token);
  }
  is_gradient_ = false;
  if (token == "<IsGradient>") {
    ReadBasicType(is, binary, &is_gradient_);
    ReadToken(is, binary, &token);
  }
  max_change_ = 0.0;
  if (token == "<MaxChange>") {
    ReadBasicType(is, binary, &max_change_);
    ReadToken(is, binary, &token);
  }
  l2_regularize_ = 0.0;
  if (token == "<L2Regularize>") {
    ReadBasicType(is, binary, &l2_regularize_);
    ReadToken(is, binary, &token);
  }
  if (token == "<LearningRate>") {
    ReadBasicType(is, binary, &learning_rate_);
    return std::string();
  }
  return token;
}

void UpdatableComponent::WriteUpdatableCommon(std::ostream &os,
                                              bool binary) const {
  WriteToken(os, binary, OpeningTag(*this));
  if (learning_rate_factor_ != 1.0) {
    WriteToken(os, binary, "<LearningRateFactor>");
    WriteBasicType(os, binary, learning_rate_factor_);
  }
  if (is_gradient_) {
    WriteToken(os, binary, "<IsGradient>");
    WriteBasicType(os, binary, is_gradient_);
  }
  if (max_change_ > 0.0) {
    WriteToken(os, binary, "<MaxChange>");
    WriteBasicType(os, binary, max_change_);
  }
  if (l2_regularize_ > 0.0) {
    WriteToken(os, binary, "<L2Regularize>");
    WriteBasicType(os, binary, l2_regularize_);
  }
  WriteToken(os, binary, "<LearningRate>");
  WriteBasicType(os, binary, learning_rate_);
}

}  // namespace nnet3
