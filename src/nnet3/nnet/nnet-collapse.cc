// nnet3/nnet/nnet-collapse.cc
#include "nnet3/nnet/nnet-collapse.h"

#include <iomanip>
#include <sstream>

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
    const Descriptor &desc = nnet_->GetNode(n).descriptor;
    if (desc.NumParts() != 1) return false;
    const SimpleSumDescriptor *sum =
        dynamic_cast<const SimpleSumDescriptor *>(&desc.Part(0));
    if (!sum) return false;
    const SimpleForwardingDescriptor *fwd =
        dynamic_cast<const SimpleForwardingDescriptor *>(&sum->Src());
    if (!fwd || fwd->Scale() != 1.0) return false;
    int32 input_node = fwd->SrcNode();
    if (!nnet_->IsComponentNode(input_node)) return false;
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
      // W (s .* x + o) + b = (W diag(s)) x + (W o + b)
      ac->BiasParams().AddMatVec(1.0, ac->LinearParams(), kNoTrans,
                                 full_offset, 1.0);
      ac->LinearParams().MulColsVec(full_scale);
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
