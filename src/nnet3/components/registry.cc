// nnet3/components/registry.cc
// The one place that knows every component family. Each family's .cc file
// defines its Register*Components() function, adding its types under
// Kaldi's type strings.
#include "nnet3/components/component.h"

namespace nnet3 {

void RegisterNonlinearComponents(ComponentRegistry *registry);
void RegisterSimpleComponents(ComponentRegistry *registry);
void RegisterAffineComponents(ComponentRegistry *registry);
void RegisterPerElementComponents(ComponentRegistry *registry);
void RegisterNormalizeComponents(ComponentRegistry *registry);
void RegisterConvolutionComponents(ComponentRegistry *registry);
void RegisterStatisticsComponents(ComponentRegistry *registry);
void RegisterAttentionComponents(ComponentRegistry *registry);
void RegisterTdnnComponents(ComponentRegistry *registry);
void RegisterRepeatedAffineComponents(ComponentRegistry *registry);
void RegisterStructuralComponents(ComponentRegistry *registry);
void RegisterConvolution3dComponents(ComponentRegistry *registry);
void RegisterLstmComponents(ComponentRegistry *registry);
void RegisterGruComponents(ComponentRegistry *registry);
void RegisterBackpropTruncationComponents(ComponentRegistry *registry);
void RegisterDropoutComponents(ComponentRegistry *registry);

ComponentRegistry::ComponentRegistry() {
  RegisterNonlinearComponents(this);
  RegisterSimpleComponents(this);
  RegisterAffineComponents(this);
  RegisterPerElementComponents(this);
  RegisterNormalizeComponents(this);
  RegisterConvolutionComponents(this);
  RegisterStatisticsComponents(this);
  RegisterAttentionComponents(this);
  RegisterTdnnComponents(this);
  RegisterRepeatedAffineComponents(this);
  RegisterStructuralComponents(this);
  RegisterConvolution3dComponents(this);
  RegisterLstmComponents(this);
  RegisterGruComponents(this);
  RegisterBackpropTruncationComponents(this);
  RegisterDropoutComponents(this);
}

ComponentRegistry &ComponentRegistry::Get() {
  static ComponentRegistry registry;
  return registry;
}

void ComponentRegistry::Add(const std::string &type,
                            ComponentFactory factory) {
  NNET3_ASSERT(!type.empty() && factories_.count(type) == 0);
  factories_[type] = std::move(factory);
}

Component *ComponentRegistry::New(const std::string &type) const {
  auto it = factories_.find(type);
  return it == factories_.end() ? nullptr : it->second();
}

void ComponentRegistry::AddPrecomputedIndexes(
    const std::string &type, PrecomputedIndexesFactory factory) {
  NNET3_ASSERT(!type.empty() && indexes_factories_.count(type) == 0);
  indexes_factories_[type] = std::move(factory);
}

ComponentPrecomputedIndexes *ComponentRegistry::NewPrecomputedIndexes(
    const std::string &type) const {
  auto it = indexes_factories_.find(type);
  return it == indexes_factories_.end() ? nullptr : it->second();
}

std::vector<std::string> ComponentRegistry::Types() const {
  std::vector<std::string> types;
  for (const auto &kv : factories_) types.push_back(kv.first);
  return types;
}

}  // namespace nnet3
