// nnet3/nnet/nnet-splice-tdnn.cc
#include "nnet3/nnet/nnet-splice-tdnn.h"

#include <memory>
#include <utility>
#include <vector>

#include "nnet3/components/affine.h"
#include "nnet3/components/tdnn.h"

namespace nnet3 {

namespace {

// If 'desc' is Append(...) of at least two parts that are each X or
// Offset(X, t) (time offset only, scale 1) of one node X, with strictly
// increasing t: X and the offsets. Else false.
bool GetSplicedOffsets(const Descriptor &desc, int32 *src_node,
                       std::vector<int32> *offsets) {
  if (desc.NumParts() < 2) return false;
  offsets->clear();
  *src_node = -1;
  for (int32 p = 0; p < desc.NumParts(); p++) {
    const SimpleSumDescriptor *sum =
        dynamic_cast<const SimpleSumDescriptor *>(&desc.Part(p));
    if (sum == nullptr) return false;
    const ForwardingDescriptor *fwd = &sum->Src();
    int32 t = 0;
    if (const OffsetForwardingDescriptor *offset =
            dynamic_cast<const OffsetForwardingDescriptor *>(fwd)) {
      if (offset->Offset().n != 0 || offset->Offset().x != 0) return false;
      t = offset->Offset().t;
      fwd = &offset->Src();
    }
    const SimpleForwardingDescriptor *simple =
        dynamic_cast<const SimpleForwardingDescriptor *>(fwd);
    if (simple == nullptr || simple->Scale() != 1.0) return false;
    if (p == 0)
      *src_node = simple->SrcNode();
    else if (simple->SrcNode() != *src_node || t <= offsets->back())
      return false;
    offsets->push_back(t);
  }
  return true;
}

}  // namespace

struct SplicedAffinesAsTdnn::Site {
  int32 input_node;  // the component-input node whose descriptor changes
  int32 component;
  int32 spliced_dim, output_dim;  // the affine's dimensions
  // What is not in the network now: before Apply() the TdnnComponent (with
  // no parameters) and the descriptor reading X; after it, the affine and
  // the Append.
  std::unique_ptr<Component> held;
  Descriptor descriptor;
};

SplicedAffinesAsTdnn::SplicedAffinesAsTdnn(int32 min_part_dim,
                                           const Nnet &nnet) {
  std::vector<int32> uses(nnet.NumComponents(), 0);
  for (int32 n = 0; n < nnet.NumNodes(); n++)
    if (nnet.IsComponentNode(n)) uses[nnet.GetNode(n).component_index]++;
  for (int32 n = 0; n + 1 < nnet.NumNodes(); n++) {
    if (!nnet.IsComponentInputNode(n)) continue;
    const int32 c = nnet.GetNode(n + 1).component_index;
    const AffineComponent *affine =
        dynamic_cast<const AffineComponent *>(nnet.GetComponent(c));
    if (affine == nullptr || uses[c] != 1) continue;
    const std::string type = affine->Type();
    if (type != "AffineComponent" && type != "NaturalGradientAffineComponent")
      continue;
    int32 src_node;
    std::vector<int32> offsets;
    if (!GetSplicedOffsets(nnet.GetNode(n).descriptor, &src_node, &offsets))
      continue;
    const int32 part_dim = nnet.NodeDim(src_node);
    if (part_dim < min_part_dim) continue;
    NNET3_ASSERT(part_dim * static_cast<int32>(offsets.size()) ==
                 affine->InputDim());
    // The TdnnComponent holds no parameters until Apply() (no copy: a
    // tool that computes must not need a second copy of a layer's weights,
    // even for a moment).
    CuMatrix<BaseFloat> no_linear;
    CuVector<BaseFloat> no_bias;
    std::unique_ptr<TdnnComponent> tdnn(new TdnnComponent());
    tdnn->InitFromSplicedAffine(offsets, *affine,
                                type == "NaturalGradientAffineComponent",
                                &no_linear, &no_bias);
    std::vector<std::unique_ptr<SumDescriptor> > parts;
    parts.emplace_back(new SimpleSumDescriptor(
        std::unique_ptr<ForwardingDescriptor>(
            new SimpleForwardingDescriptor(src_node))));
    sites_.push_back(Site{n, c, affine->InputDim(), affine->OutputDim(),
                          std::move(tdnn), Descriptor(std::move(parts))});
  }
}

SplicedAffinesAsTdnn::~SplicedAffinesAsTdnn() {}

int32 SplicedAffinesAsTdnn::NumRewritten() const {
  return static_cast<int32>(sites_.size());
}

void SplicedAffinesAsTdnn::Apply(Nnet *nnet) {
  NNET3_ASSERT(!applied_);
  for (Site &site : sites_) {
    AffineComponent *affine =
        dynamic_cast<AffineComponent *>(nnet->GetComponent(site.component));
    TdnnComponent *tdnn = dynamic_cast<TdnnComponent *>(site.held.get());
    NNET3_ASSERT(affine != nullptr && tdnn != nullptr &&
                 affine->InputDim() == site.spliced_dim &&
                 affine->OutputDim() == site.output_dim);
    tdnn->SetUpdatableConfigs(*affine);
    tdnn->SetOrthonormalConstraint(affine->OrthonormalConstraint());
    if (const NaturalGradientAffineComponent *ng =
            dynamic_cast<const NaturalGradientAffineComponent *>(affine))
      tdnn->SetPreconditioners(ng->PreconditionerIn(),
                               ng->PreconditionerOut());
    tdnn->LinearParams().Swap(&affine->LinearParams());
    tdnn->BiasParams().Swap(&affine->BiasParams());
    site.held.reset(nnet->ExchangeComponent(site.component,
                                            site.held.release()));
    std::swap(nnet->GetNode(site.input_node).descriptor, site.descriptor);
  }
  applied_ = true;
}

void SplicedAffinesAsTdnn::Undo(Nnet *nnet) {
  NNET3_ASSERT(applied_);
  for (Site &site : sites_) {
    TdnnComponent *tdnn =
        dynamic_cast<TdnnComponent *>(nnet->GetComponent(site.component));
    AffineComponent *affine = dynamic_cast<AffineComponent *>(site.held.get());
    NNET3_ASSERT(affine != nullptr && tdnn != nullptr);
    affine->SetUpdatableConfigs(*tdnn);
    affine->LinearParams().Swap(&tdnn->LinearParams());
    affine->BiasParams().Swap(&tdnn->BiasParams());
    if (NaturalGradientAffineComponent *ng =
            dynamic_cast<NaturalGradientAffineComponent *>(affine))
      ng->SetPreconditioners(tdnn->PreconditionerIn(),
                             tdnn->PreconditionerOut());
    site.held.reset(nnet->ExchangeComponent(site.component,
                                            site.held.release()));
    std::swap(nnet->GetNode(site.input_node).descriptor, site.descriptor);
  }
  applied_ = false;
}

int32 ComputeSplicedAffinesAsTdnn(int32 min_part_dim, Nnet *nnet) {
  SplicedAffinesAsTdnn rewrite(min_part_dim, *nnet);
  rewrite.Apply(nnet);  // for good: the affines go with 'rewrite'
  return rewrite.NumRewritten();
}

}  // namespace nnet3
