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

int32 ComputeSplicedAffinesAsTdnn(int32 min_part_dim, Nnet *nnet) {
  std::vector<int32> uses(nnet->NumComponents(), 0);
  for (int32 n = 0; n < nnet->NumNodes(); n++)
    if (nnet->IsComponentNode(n)) uses[nnet->GetNode(n).component_index]++;
  int32 rewritten = 0;
  for (int32 n = 0; n + 1 < nnet->NumNodes(); n++) {
    if (!nnet->IsComponentInputNode(n)) continue;
    const int32 c = nnet->GetNode(n + 1).component_index;
    AffineComponent *affine =
        dynamic_cast<AffineComponent *>(nnet->GetComponent(c));
    if (affine == nullptr || uses[c] != 1) continue;
    const std::string type = affine->Type();
    if (type != "AffineComponent" && type != "NaturalGradientAffineComponent")
      continue;
    int32 src_node;
    std::vector<int32> offsets;
    if (!GetSplicedOffsets(nnet->GetNode(n).descriptor, &src_node, &offsets))
      continue;
    const int32 part_dim = nnet->NodeDim(src_node);
    if (part_dim < min_part_dim) continue;
    NNET3_ASSERT(part_dim * static_cast<int32>(offsets.size()) ==
                 affine->InputDim());
    std::unique_ptr<TdnnComponent> tdnn(new TdnnComponent());
    tdnn->InitFromSplicedAffine(offsets, *affine,
                                type == "NaturalGradientAffineComponent",
                                &affine->LinearParams(), &affine->BiasParams());
    nnet->SetComponent(c, tdnn.release());
    std::vector<std::unique_ptr<SumDescriptor> > parts;
    parts.emplace_back(new SimpleSumDescriptor(
        std::unique_ptr<ForwardingDescriptor>(
            new SimpleForwardingDescriptor(src_node))));
    nnet->GetNode(n).descriptor = Descriptor(std::move(parts));
    rewritten++;
  }
  return rewritten;
}

}  // namespace nnet3
