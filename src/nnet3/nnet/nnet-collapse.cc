// nnet3/nnet/nnet-collapse.cc
#include "nnet3/nnet/nnet-collapse.h"

#include <algorithm>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "nnet3/components/affine.h"
#include "nnet3/components/dropout.h"
#include "nnet3/components/normalize.h"
#include "nnet3/components/simple.h"
#include "nnet3/components/time-height-convolution.h"

namespace nnet3 {

namespace {

class ModelCollapser {
 public:
  ModelCollapser(const CollapseModelConfig &config, Nnet *nnet)
      : config_(config), nnet_(nnet) {}

  void Collapse() {
    int32 num_components_before = nnet_->NumComponents();
    bool changed = true;
    for (int32 iter = 0; changed; iter++) {
      NNET3_ASSERT(iter < 100 && "collapsing does not converge");
      changed = false;
      for (int32 n = 0; n + 1 < nnet_->NumNodes(); n++)
        if (OptimizeNode(n)) changed = true;
    }
    if (config_.collapse_batchnorm &&
        config_.collapse_batchnorm_through_appends) {
      for (int32 b = 0; b < nnet_->NumNodes(); b++) FoldBatchnormIntoAppends(b);
    }
    int32 num_added = nnet_->NumComponents() - num_components_before;
    nnet_->RemoveOrphanNodes();
    nnet_->RemoveOrphanComponents();
    NNET3_LOG << "Collapsing the model added " << num_added
              << " combined components; it now has "
              << nnet_->NumComponents() << " components";
  }

 private:
  // Node n is a component's input descriptor that is exactly another
  // component node: try to merge the two components.
  bool OptimizeNode(int32 n) {
    if (!nnet_->IsComponentInputNode(n)) return false;
    const int32 input_node = PlainInputNode(n);
    if (input_node < 0 || !nnet_->IsComponentNode(input_node)) return false;
    int32 c1 = nnet_->GetNode(input_node).component_index,
          c2 = nnet_->GetNode(n + 1).component_index;
    second_node_ = n + 1;
    int32 combined = CollapseComponents(c1, c2);
    if (combined == -1) return false;
    // Read what the first component read, through the combined component.
    nnet_->GetNode(n).descriptor = nnet_->GetNode(input_node - 1).descriptor;
    nnet_->GetNode(n + 1).component_index = combined;
    return true;
  }

  // The node that descriptor node n reads, when its descriptor is exactly
  // one node with scale 1 (no Append, Offset or Sum); else -1.
  int32 PlainInputNode(int32 n) const {
    const Descriptor &desc = nnet_->GetNode(n).descriptor;
    if (desc.NumParts() != 1) return -1;
    const SimpleSumDescriptor *sum =
        dynamic_cast<const SimpleSumDescriptor *>(&desc.Part(0));
    if (!sum) return -1;
    const SimpleForwardingDescriptor *fwd =
        dynamic_cast<const SimpleForwardingDescriptor *>(&sum->Src());
    if (!fwd || fwd->Scale() != 1.0) return -1;
    return fwd->SrcNode();
  }

  // If 'part' is node b itself or Offset(b, ...) (scale 1), the part with
  // node x in place of b; else null. *reads_other is set when the part
  // does not read b at all.
  static std::unique_ptr<SumDescriptor> PartWithNodeReplaced(
      const SumDescriptor &part, int32 b, int32 x, bool *reads_other) {
    std::vector<int32> deps;
    part.GetNodeDependencies(&deps);
    *reads_other = std::find(deps.begin(), deps.end(), b) == deps.end();
    if (*reads_other) return nullptr;
    const SimpleSumDescriptor *sum =
        dynamic_cast<const SimpleSumDescriptor *>(&part);
    if (!sum) return nullptr;
    const ForwardingDescriptor *fwd = &sum->Src();
    const OffsetForwardingDescriptor *offset =
        dynamic_cast<const OffsetForwardingDescriptor *>(fwd);
    if (offset) fwd = &offset->Src();
    const SimpleForwardingDescriptor *simple =
        dynamic_cast<const SimpleForwardingDescriptor *>(fwd);
    if (!simple || simple->SrcNode() != b || simple->Scale() != 1.0)
      return nullptr;
    std::unique_ptr<ForwardingDescriptor> replaced(
        new SimpleForwardingDescriptor(x));
    if (offset)
      replaced.reset(
          new OffsetForwardingDescriptor(std::move(replaced), offset->Offset()));
    return std::unique_ptr<SumDescriptor>(
        new SimpleSumDescriptor(std::move(replaced)));
  }

  // Component node b holds a test-mode batch-norm that reads one node x
  // directly. If every reader of b is the input of an Affine or
  // NaturalGradientAffine component and reads b only as whole Append
  // parts "b" or "Offset(b, ...)", each such component absorbs the
  // batch-norm on the columns of those parts (as PreModifiedComponent does
  // for all columns) and reads x there instead; b is then unused and goes
  // with the orphans. x(t) exists exactly when b(t) does, so what is
  // computable does not change. Parts inside IfDefined, Failover, Sum,
  // Switch or Round are not plain and leave b as it is: a missing b(t)
  // there reads as zero, which the folded offset would not reproduce.
  void FoldBatchnormIntoAppends(int32 b) {
    if (!nnet_->IsComponentNode(b)) return;
    const BatchNormComponent *bn = dynamic_cast<const BatchNormComponent *>(
        nnet_->GetComponent(nnet_->GetNode(b).component_index));
    if (!bn || !bn->TestMode()) return;
    const int32 x = PlainInputNode(b - 1);
    if (x < 0) return;
    std::vector<int32> readers;
    for (int32 n = 0; n < nnet_->NumNodes(); n++) {
      const NetworkNode &node = nnet_->GetNode(n);
      if (node.node_type == kDimRange) {
        if (node.node_index == b) return;
        continue;
      }
      if (node.node_type != kDescriptor) continue;
      std::vector<int32> deps;
      node.descriptor.GetNodeDependencies(&deps);
      if (std::find(deps.begin(), deps.end(), b) == deps.end()) continue;
      if (!nnet_->IsComponentInputNode(n) ||
          !dynamic_cast<const AffineComponent *>(
              nnet_->GetComponent(nnet_->GetNode(n + 1).component_index)))
        return;
      const Descriptor &desc = node.descriptor;
      for (int32 p = 0; p < desc.NumParts(); p++) {
        bool reads_other;
        if (!PartWithNodeReplaced(desc.Part(p), b, x, &reads_other) &&
            !reads_other)
          return;
      }
      readers.push_back(n);
    }
    if (readers.empty()) return;
    const int32 dim = bn->OutputDim(), block = bn->TestModeScale().Dim();
    if (block <= 0 || dim % block != 0) return;
    for (int32 n : readers) {
      const Descriptor &desc = nnet_->GetNode(n).descriptor;
      const int32 c = nnet_->GetNode(n + 1).component_index;
      const int32 input_dim = nnet_->GetComponent(c)->InputDim();
      // The transform per input column: identity outside b's parts.
      CuVector<BaseFloat> scale(input_dim), offset(input_dim);
      scale.Set(1.0);
      std::vector<std::unique_ptr<SumDescriptor> > parts;
      int32 col = 0;
      for (int32 p = 0; p < desc.NumParts(); p++) {
        const SumDescriptor &part = desc.Part(p);
        const int32 part_dim =
            part.Dim([this](int32 m) { return nnet_->NodeDim(m); });
        bool reads_other;
        std::unique_ptr<SumDescriptor> replaced =
            PartWithNodeReplaced(part, b, x, &reads_other);
        if (replaced) {
          NNET3_ASSERT(part_dim == dim);
          for (int32 d = 0; d < dim; d += block) {
            scale.Range(col + d, block).CopyFromVec(bn->TestModeScale());
            offset.Range(col + d, block).CopyFromVec(bn->TestModeOffset());
          }
          parts.push_back(std::move(replaced));
        } else {
          parts.push_back(part.Copy());
        }
        col += part_dim;
      }
      NNET3_ASSERT(col == input_dim);
      second_node_ = n + 1;
      // A new name every time: two readers sharing c may place b's parts
      // differently, so a combined component is never reused.
      const std::string base =
          nnet_->GetComponentName(nnet_->GetNode(b).component_index) + "." +
          nnet_->GetComponentName(c);
      std::string name = base;
      for (int32 k = 2; nnet_->GetComponentIndex(name) != -1; k++)
        name = base + "." + std::to_string(k);
      AffineComponent *ac = dynamic_cast<AffineComponent *>(TakeOrCopy(c));
      PreModifyAffine(offset, scale, ac);
      const int32 combined = nnet_->AddComponent(name, ac);
      nnet_->GetNode(n).descriptor = Descriptor(std::move(parts));
      nnet_->GetNode(n + 1).component_index = combined;
    }
  }

  int32 CollapseComponents(int32 c1, int32 c2) {
    int32 ans = -1;
    if (config_.collapse_dropout && (ans = CollapseDropout(c1, c2)) != -1)
      return ans;
    if (config_.collapse_batchnorm && (ans = CollapseBatchnorm(c1, c2)) != -1)
      return ans;
    if (config_.collapse_scale && (ans = CollapseFixedScaleOrBias(c1, c2)) != -1)
      return ans;
    if (config_.collapse_scale && (ans = CollapseAffineThenScale(c1, c2)) != -1)
      return ans;
    return -1;
  }

  int32 CollapseDropout(int32 c1, int32 c2) {
    // GeneralDropoutComponent's mask has expectation one and test mode is
    // the identity, so (as in Kaldi) it is simply bypassed, whatever the
    // second component is and whatever its mode.
    if (dynamic_cast<const GeneralDropoutComponent *>(nnet_->GetComponent(c1)))
      return c2;
    const DropoutComponent *dropout =
        dynamic_cast<const DropoutComponent *>(nnet_->GetComponent(c1));
    if (!dropout) return -1;
    // In test mode dropout multiplies by (1 - p); training mode is random
    // and cannot be folded.
    if (!dropout->TestMode()) return -1;
    return ScaledComponent(c2, 1.0 - dropout->DropoutProportion());
  }

  int32 CollapseBatchnorm(int32 c1, int32 c2) {
    const BatchNormComponent *bn =
        dynamic_cast<const BatchNormComponent *>(nnet_->GetComponent(c1));
    if (!bn) return -1;
    if (!bn->TestMode())
      return -1;  // minibatch statistics: not a fixed transform
    return PreModifiedComponent(bn->TestModeOffset(), bn->TestModeScale(),
                                nnet_->GetComponentName(c1), c2);
  }

  int32 CollapseFixedScaleOrBias(int32 c1, int32 c2) {
    const Component *c = nnet_->GetComponent(c1);
    if (const FixedScaleComponent *s = dynamic_cast<const FixedScaleComponent *>(c)) {
      CuVector<BaseFloat> offset(s->Scales().Dim());
      return PreModifiedComponent(offset, s->Scales(),
                                  nnet_->GetComponentName(c1), c2);
    }
    if (const FixedBiasComponent *b = dynamic_cast<const FixedBiasComponent *>(c)) {
      CuVector<BaseFloat> scale(b->Bias().Dim());
      scale.Set(1.0);
      return PreModifiedComponent(b->Bias(), scale,
                                  nnet_->GetComponentName(c1), c2);
    }
    return -1;
  }

  // c1 affine, c2 fixed scale: y = s .* (W x + b).
  int32 CollapseAffineThenScale(int32 c1, int32 c2) {
    const AffineComponent *affine =
        dynamic_cast<const AffineComponent *>(nnet_->GetComponent(c1));
    const FixedScaleComponent *scale =
        dynamic_cast<const FixedScaleComponent *>(nnet_->GetComponent(c2));
    if (!affine || !scale || scale->Scales().Dim() != affine->OutputDim())
      return -1;
    std::string name =
        nnet_->GetComponentName(c1) + "." + nnet_->GetComponentName(c2);
    int32 existing = nnet_->GetComponentIndex(name);
    if (existing != -1) return existing;
    AffineComponent *combined = dynamic_cast<AffineComponent *>(affine->Copy());
    combined->LinearParams().MulRowsVec(scale->Scales());
    combined->BiasParams().MulElements(scale->Scales());
    return nnet_->AddComponent(name, combined);
  }

  // A copy of component c whose input is first multiplied by 'scale'.
  int32 ScaledComponent(int32 c, BaseFloat scale) {
    if (scale == 1.0) return c;
    std::ostringstream os;
    os << nnet_->GetComponentName(c) << ".scale" << std::setprecision(3)
       << scale;
    int32 existing = nnet_->GetComponentIndex(os.str());
    if (existing != -1) return existing;
    const Component *comp = nnet_->GetComponent(c);
    if (!dynamic_cast<const AffineComponent *>(comp) &&
        !dynamic_cast<const LinearComponent *>(comp) &&
        !dynamic_cast<const TimeHeightConvolutionComponent *>(comp))
      return -1;
    Component *copy = TakeOrCopy(c);
    if (AffineComponent *ac = dynamic_cast<AffineComponent *>(copy)) {
      ac->LinearParams().Scale(scale);
    } else if (LinearComponent *lc = dynamic_cast<LinearComponent *>(copy)) {
      lc->Params().Scale(scale);
    } else {
      // A convolution is linear in its input too: the filters take the
      // scale, the bias does not (Kaldi collapses a dropout into a
      // following convolution the same way).
      dynamic_cast<TimeHeightConvolutionComponent *>(copy)
          ->LinearParams().Scale(scale);
    }
    return nnet_->AddComponent(os.str(), copy);
  }

  // Makes 'ac' compute on x what it computed on x .* scale + offset
  // (both of its input dim): W (s .* x + o) + b = (W diag(s)) x + (W o + b).
  static void PreModifyAffine(const CuVectorBase<BaseFloat> &offset,
                              const CuVectorBase<BaseFloat> &scale,
                              AffineComponent *ac) {
    ac->BiasParams().AddMatVec(1.0, ac->LinearParams(), kNoTrans, offset, 1.0);
    ac->LinearParams().MulColsVec(scale);
  }

  // A copy of component c whose input x is first replaced by
  // x .* scale + offset (offset/scale repeated across the input dim).
  int32 PreModifiedComponent(const CuVectorBase<BaseFloat> &offset,
                             const CuVectorBase<BaseFloat> &scale,
                             const std::string &first_name, int32 c) {
    NNET3_ASSERT(offset.Dim() == scale.Dim() && offset.Dim() > 0);
    std::string name = first_name + "." + nnet_->GetComponentName(c);
    int32 existing = nnet_->GetComponentIndex(name);
    if (existing != -1) return existing;
    const Component *comp = nnet_->GetComponent(c);
    int32 input_dim = comp->InputDim(), block = offset.Dim();
    if (input_dim % block != 0) return -1;
    CuVector<BaseFloat> full_offset(input_dim), full_scale(input_dim);
    for (int32 d = 0; d < input_dim; d += block) {
      full_offset.Range(d, block).CopyFromVec(offset);
      full_scale.Range(d, block).CopyFromVec(scale);
    }
    if (dynamic_cast<const AffineComponent *>(comp)) {
      AffineComponent *ac = dynamic_cast<AffineComponent *>(TakeOrCopy(c));
      PreModifyAffine(full_offset, full_scale, ac);
      return nnet_->AddComponent(name, ac);
    }
    if (dynamic_cast<const LinearComponent *>(comp)) {
      if (!full_offset.IsZero(0.0)) return -1;  // no bias to absorb it
      LinearComponent *lc = dynamic_cast<LinearComponent *>(TakeOrCopy(c));
      lc->Params().MulColsVec(full_scale);
      return nnet_->AddComponent(name, lc);
    }
    return -1;
  }

  // Component c of node second_node_, to be changed into the combined
  // component that this node will use instead. When no other node uses c,
  // c itself is taken out of the network (its slot holds a NoOpComponent
  // until RemoveOrphanComponents drops it, as it would have dropped c), so
  // large parameters are never held twice; otherwise a copy.
  Component *TakeOrCopy(int32 c) {
    for (int32 node = 0; node < nnet_->NumNodes(); node++)
      if (node != second_node_ && nnet_->IsComponentNode(node) &&
          nnet_->GetNode(node).component_index == c)
        return nnet_->GetComponent(c)->Copy();
    NNET3_ASSERT(nnet_->GetNode(second_node_).component_index == c);
    return nnet_->ExchangeComponent(c, new NoOpComponent());
  }

  const CollapseModelConfig &config_;
  Nnet *nnet_;
  int32 second_node_ = -1;  // the component node being collapsed into
};

}  // namespace

void CollapseModel(const CollapseModelConfig &config, Nnet *nnet) {
  ModelCollapser(config, nnet).Collapse();
}

}  // namespace nnet3
