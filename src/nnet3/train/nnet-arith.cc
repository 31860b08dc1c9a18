// nnet3/train/nnet-arith.cc
#include "nnet3/train/nnet-arith.h"

#include <sstream>

#include "nnet3/components/normalize.h"

namespace nnet3 {

namespace {
const UpdatableComponent *AsUpdatable(const Component *c) {
  if (!(c->Properties() & kUpdatableComponent)) return nullptr;
  const UpdatableComponent *uc = dynamic_cast<const UpdatableComponent *>(c);
  NNET3_ASSERT(uc != nullptr);
  return uc;
}
UpdatableComponent *AsUpdatable(Component *c) {
  if (!(c->Properties() & kUpdatableComponent)) return nullptr;
  UpdatableComponent *uc = dynamic_cast<UpdatableComponent *>(c);
  NNET3_ASSERT(uc != nullptr);
  return uc;
}
}  // namespace

void CheckSameStructure(const Nnet &a, const Nnet &b,
                        const std::string &what) {
  if (a.NumComponents() != b.NumComponents())
    NNET3_ERR << what << ": the networks have different numbers of "
              << "components (" << a.NumComponents() << " vs. "
              << b.NumComponents() << ")";
  for (int32 c = 0; c < a.NumComponents(); c++) {
    if (a.GetComponentName(c) != b.GetComponentName(c) ||
        a.GetComponent(c)->Type() != b.GetComponent(c)->Type())
      NNET3_ERR << what << ": component " << c << " differs ("
                << a.GetComponentName(c) << " of type "
                << a.GetComponent(c)->Type() << " vs. "
                << b.GetComponentName(c) << " of type "
                << b.GetComponent(c)->Type() << ")";
    const UpdatableComponent *ua = AsUpdatable(a.GetComponent(c)),
                             *ub = AsUpdatable(b.GetComponent(c));
    if (ua != nullptr && ua->NumParameters() != ub->NumParameters())
      NNET3_ERR << what << ": component " << a.GetComponentName(c)
                << " has " << ua->NumParameters() << " vs. "
                << ub->NumParameters() << " parameters";
  }
}

int32 NumUpdatableComponents(const Nnet &nnet) {
  int32 n = 0;
  for (int32 c = 0; c < nnet.NumComponents(); c++)
    if (AsUpdatable(nnet.GetComponent(c)) != nullptr) n++;
  return n;
}

void AddNnet(const Nnet &src, BaseFloat alpha, Nnet *dest) {
  CheckSameStructure(src, *dest, "Adding networks");
  for (int32 c = 0; c < src.NumComponents(); c++)
    dest->GetComponent(c)->Add(alpha, *src.GetComponent(c));
}

void AddNnetComponents(const Nnet &src, const VectorBase<BaseFloat> &alphas,
                       BaseFloat scale, Nnet *dest) {
  CheckSameStructure(src, *dest, "Adding networks");
  int32 i = 0;
  for (int32 c = 0; c < src.NumComponents(); c++) {
    const Component *s = src.GetComponent(c);
    Component *d = dest->GetComponent(c);
    if (AsUpdatable(s) != nullptr) {
      NNET3_ASSERT(i < alphas.Dim());
      d->Add(alphas(i), *s);
      i++;
    } else {
      d->Add(scale, *s);
    }
  }
  NNET3_ASSERT(i == alphas.Dim());
}

BaseFloat DotProduct(const Nnet &nnet1, const Nnet &nnet2) {
  CheckSameStructure(nnet1, nnet2, "Dot product of networks");
  double ans = 0.0;
  for (int32 c = 0; c < nnet1.NumComponents(); c++) {
    const UpdatableComponent *u1 = AsUpdatable(nnet1.GetComponent(c)),
                             *u2 = AsUpdatable(nnet2.GetComponent(c));
    if (u1 != nullptr) ans += u1->DotProduct(*u2);
  }
  return static_cast<BaseFloat>(ans);
}

void ComponentDotProducts(const Nnet &nnet1, const Nnet &nnet2,
                          Vector<BaseFloat> *dots) {
  CheckSameStructure(nnet1, nnet2, "Dot product of networks");
  dots->Resize(NumUpdatableComponents(nnet1));
  int32 i = 0;
  for (int32 c = 0; c < nnet1.NumComponents(); c++) {
    const UpdatableComponent *u1 = AsUpdatable(nnet1.GetComponent(c)),
                             *u2 = AsUpdatable(nnet2.GetComponent(c));
    if (u1 != nullptr) (*dots)(i++) = u1->DotProduct(*u2);
  }
}

std::string PrintVectorPerUpdatableComponent(
    const Nnet &nnet, const VectorBase<BaseFloat> &vec) {
  std::ostringstream os;
  os << "[ ";
  int32 i = 0;
  for (int32 c = 0; c < nnet.NumComponents(); c++) {
    if (AsUpdatable(nnet.GetComponent(c)) == nullptr) continue;
    NNET3_ASSERT(i < vec.Dim());
    os << nnet.GetComponentName(c) << ':' << vec(i++) << ' ';
  }
  os << ']';
  return os.str();
}

void ZeroComponentStats(Nnet *nnet) {
  for (int32 c = 0; c < nnet->NumComponents(); c++)
    nnet->GetComponent(c)->ZeroStats();
}

void ScaleBatchnormStats(BaseFloat scale, Nnet *nnet) {
  NNET3_ASSERT(scale >= 0.0 && scale <= 1.0);
  if (scale == 1.0) return;
  for (int32 c = 0; c < nnet->NumComponents(); c++) {
    BatchNormComponent *bn =
        dynamic_cast<BatchNormComponent *>(nnet->GetComponent(c));
    if (bn != nullptr) bn->Scale(scale);
  }
}

void ApplyL2Regularization(const Nnet &nnet, BaseFloat l2_scale,
                           Nnet *delta_nnet) {
  if (l2_scale == 0.0) return;
  for (int32 c = 0; c < nnet.NumComponents(); c++) {
    const UpdatableComponent *src = AsUpdatable(nnet.GetComponent(c));
    if (src == nullptr) continue;
    UpdatableComponent *dest = AsUpdatable(delta_nnet->GetComponent(c));
    NNET3_ASSERT(dest != nullptr);
    BaseFloat lrate = dest->LearningRate(), l2 = dest->L2Regularization();
    BaseFloat scale = -2.0 * l2_scale * lrate * l2;
    if (scale != 0.0) dest->Add(scale, *src);
  }
}

void SetNnetAsGradient(Nnet *nnet) {
  for (int32 c = 0; c < nnet->NumComponents(); c++) {
    UpdatableComponent *uc = AsUpdatable(nnet->GetComponent(c));
    if (uc != nullptr) uc->SetAsGradient();
  }
}

void ResetGenerators(uint64 seed, Nnet *nnet) {
  for (int32 c = 0; c < nnet->NumComponents(); c++) {
    RandomComponent *rc = dynamic_cast<RandomComponent *>(nnet->GetComponent(c));
    if (rc != nullptr) rc->ResetGenerator(seed + static_cast<uint64>(c));
  }
}

void FreezeNaturalGradient(bool freeze, Nnet *nnet) {
  for (int32 c = 0; c < nnet->NumComponents(); c++) {
    UpdatableComponent *uc =
        dynamic_cast<UpdatableComponent *>(nnet->GetComponent(c));
    if (uc != nullptr) uc->FreezeNaturalGradient(freeze);
  }
}

bool HasBatchnorm(const Nnet &nnet) {
  for (int32 c = 0; c < nnet.NumComponents(); c++)
    if (dynamic_cast<const BatchNormComponent *>(nnet.GetComponent(c)))
      return true;
  return false;
}

}  // namespace nnet3
