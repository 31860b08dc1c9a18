// nnet3/train/max-change.cc
#include "nnet3/train/max-change.h"

#include <cmath>
#include <sstream>
#include <utility>
#include <vector>

#include "nnet3/train/nnet-arith.h"

namespace nnet3 {

bool UpdateNnetWithMaxChange(const Nnet &delta_nnet,
                             BaseFloat max_param_change,
                             BaseFloat max_change_scale, BaseFloat scale,
                             Nnet *nnet,
                             std::vector<int32> *num_per_component_applied,
                             int32 *num_global_applied) {
  const int32 num_updatable = NumUpdatableComponents(delta_nnet);
  if (num_per_component_applied->empty())
    num_per_component_applied->resize(num_updatable, 0);
  NNET3_ASSERT(static_cast<int32>(num_per_component_applied->size()) ==
               num_updatable);
  Vector<BaseFloat> factors(num_updatable);
  // Kaldi does this arithmetic in BaseFloat; so do we, so that the factors
  // printed and applied agree to the last digit.
  BaseFloat delta_squared = 0.0, min_factor = 1.0,
            max_change_of_min = 0.0;
  int32 num_active = 0;
  std::string name_of_min;
  // The updatable components (index c) in order.
  std::vector<std::pair<int32, const UpdatableComponent *> > updatable;
  for (int32 c = 0; c < delta_nnet.NumComponents(); c++) {
    const Component *comp = delta_nnet.GetComponent(c);
    if (!(comp->Properties() & kUpdatableComponent)) continue;
    const UpdatableComponent *uc =
        dynamic_cast<const UpdatableComponent *>(comp);
    NNET3_ASSERT(uc != nullptr);
    updatable.push_back(std::make_pair(c, uc));
  }
  // Every component's squared norm first, read back together (one wait on
  // a GPU instead of one or two per component).
  Vector<BaseFloat> dots;
  {
    CuVector<BaseFloat> dots_cu(num_updatable);
    for (int32 k = 0; k < num_updatable; k++) {
      CuSubVector<BaseFloat> slot(dots_cu, k, 1);
      updatable[k].second->SquaredNorm(&slot);
    }
    dots = dots_cu.Download();
  }
  for (int32 i = 0; i < num_updatable; i++) {
    const int32 c = updatable[i].first;
    const UpdatableComponent *uc = updatable[i].second;
    BaseFloat max_change = uc->MaxChange();
    NNET3_ASSERT(max_change >= 0.0);
    BaseFloat dot = dots(i);
    BaseFloat norm = std::sqrt(dot) * std::abs(scale);
    if (max_change != 0.0 && norm > max_change * max_change_scale) {
      factors(i) = max_change * max_change_scale / norm;
      (*num_per_component_applied)[i]++;
      num_active++;
      NNET3_VLOG(2) << "Parameters in " << delta_nnet.GetComponentName(c)
                    << " change too big: " << std::sqrt(dot) << " * "
                    << scale << " > max-change * max-change-scale="
                    << max_change << " * " << max_change_scale
                    << ", scaling by " << factors(i);
    } else {
      factors(i) = 1.0;
    }
    if (i == 0 || factors(i) < min_factor) {
      min_factor = factors(i);
      name_of_min = delta_nnet.GetComponentName(c);
      max_change_of_min = max_change;
    }
    delta_squared += factors(i) * factors(i) * dot;
  }
  BaseFloat param_delta = std::sqrt(delta_squared) * std::abs(scale);
  const BaseFloat limit = max_param_change * max_change_scale;
  if (max_param_change != 0.0 && param_delta > limit) {
    if (!std::isfinite(param_delta)) {
      NNET3_WARN << "Infinite parameter change, will not apply.";
      return false;
    }
    scale *= limit / param_delta;
    (*num_global_applied)++;
  }
  // Kaldi's condition, including its quirk: with the global limit off
  // (0) but a per-component limit active, it also reports a global factor
  // of 0.
  if ((max_param_change != 0.0 && param_delta > limit) || min_factor < 1.0) {
    std::ostringstream os;
    if (min_factor < 1.0)
      os << "Per-component max-change active on " << num_active << " / "
         << num_updatable << " Updatable Components. (Smallest factor="
         << min_factor << " on " << name_of_min
         << " with max-change=" << max_change_of_min << "). ";
    if (param_delta > limit)
      os << "Global max-change factor was " << limit / param_delta
         << " with max-change=" << max_param_change << ".";
    NNET3_LOG << os.str();
  }
  factors.Scale(scale);
  AddNnetComponents(delta_nnet, factors, scale, nnet);
  return true;
}

}  // namespace nnet3
