// nnet3/nnet/nnet-svd.cc
// reduce-rank and apply-svd (see nnet-svd.h).
#include "nnet3/nnet/nnet-svd.h"

#include <cmath>
#include <memory>
#include <sstream>
#include <vector>

#include "matrix/svd.h"
#include "nnet3/components/affine.h"
#include "nnet3/nnet/nnet-edit.h"

namespace nnet3 {

namespace {

// The thin SVD W = U diag(s) Vt of an affine component's linear
// parameters W (output-dim x input-dim), in double.
struct LinearSvd {
  Vector<double> s;
  Matrix<double> U;
  Matrix<double> Vt;
  explicit LinearSvd(const AffineComponent &affine) {
    const CuMatrixBase<BaseFloat> &params = affine.LinearParams();
    Matrix<double> w(params.NumRows(), params.NumCols(), kUndefined);
    params.CopyToMat(&w);
    ThinSvd(w, &s, &U, &Vt);
  }
  // Sum of s(j)^power for j in [begin, end), added in order.
  double Sum(int32 begin, int32 end, int32 power) const {
    double ans = 0.0;
    for (int32 j = begin; j < end; j++) ans += power == 1 ? s(j) : s(j) * s(j);
    return ans;
  }
};

// The matching component as an AffineComponent, or nullptr after the
// warning for a component of another type.
AffineComponent *AsAffine(const char *directive, Nnet *nnet, int32 c) {
  Component *comp = nnet->GetComponent(c);
  AffineComponent *affine = dynamic_cast<AffineComponent *>(comp);
  if (affine == nullptr)
    NNET3_WARN << directive << ": leaving component "
               << nnet->GetComponentName(c) << " unchanged: it is a "
               << comp->Type() << ", not an AffineComponent or child type";
  return affine;
}

// Carries out apply-svd: factors the chosen components (appending the
// "_a"/"_b" components) and then rebuilds the node graph around them.
class SvdSplitter {
 public:
  SvdSplitter(const std::string &pattern, const ApplySvdOptions &opts,
              Nnet *nnet)
      : pattern_(pattern), bottleneck_dim_(opts.bottleneck_dim),
        energy_threshold_(opts.energy_threshold),
        shrinkage_threshold_(opts.shrinkage_threshold), nnet_(nnet) {}

  int32 Run() {
    FactorComponents();
    if (!splits_.empty()) RebuildGraph();
    NNET3_LOG << "apply-svd: decomposed " << splits_.size()
              << " components (bottleneck dim " << bottleneck_dim_ << ")";
    return static_cast<int32>(splits_.size());
  }

 private:
  struct Split {
    std::string name_a, name_b;  // the new components' names
  };

  void FactorComponents() {
    const int32 num_components = nnet_->NumComponents();
    split_index_.assign(num_components, -1);
    for (int32 c = 0; c < num_components; c++) {
      const std::string name = nnet_->GetComponentName(c);
      if (!NameMatchesPattern(name, pattern_)) continue;
      AffineComponent *affine = AsAffine("apply-svd", nnet_, c);
      if (affine == nullptr) continue;
      const int32 in = affine->InputDim(), out = affine->OutputDim();
      // bottleneck_dim_ may have been set by the previous component's
      // energy-threshold choice; Kaldi checks against that value too.
      if (in <= bottleneck_dim_ || out <= bottleneck_dim_) {
        NNET3_WARN << "apply-svd: leaving component " << name
                   << " unchanged: bottleneck dim " << bottleneck_dim_
                   << " is not below its dims " << in << " -> " << out;
        continue;
      }
      std::unique_ptr<Component> first, second;
      if (!Factor(name, *affine, &first, &second)) continue;
      Split split{name + "_a", name + "_b"};
      for (const std::string *n : {&split.name_a, &split.name_b})
        if (nnet_->GetComponentIndex(*n) != -1)
          NNET3_ERR << "apply-svd: cannot split component " << name
                    << ": the network already has a component named " << *n;
      nnet_->AddComponent(split.name_a, first.release());
      nnet_->AddComponent(split.name_b, second.release());
      split_index_[c] = static_cast<int32>(splits_.size());
      splits_.push_back(split);
    }
  }

  // Chooses the bottleneck dim and builds the two factors, or returns
  // false when the shrinkage ratio is above the threshold.
  bool Factor(const std::string &name, const AffineComponent &affine,
              std::unique_ptr<Component> *first,
              std::unique_ptr<Component> *second) {
    const int32 in = affine.InputDim(), out = affine.OutputDim();
    LinearSvd svd(affine);
    const int32 k = svd.s.Dim();
    const double total_energy = svd.Sum(0, k, 2);
    if (energy_threshold_ > 0.0) {
      // Fewest leading singular values whose squares reach the target.
      const double target = energy_threshold_ * total_energy;
      double energy = 0.0;
      int32 d = 0;
      while (d < k) {
        energy += svd.s(d) * svd.s(d);
        d++;
        if (energy >= target) break;
      }
      bottleneck_dim_ = d;
    }
    const int32 d = bottleneck_dim_;
    NNET3_ASSERT(d >= 1 && d <= k);
    const BaseFloat ratio = static_cast<BaseFloat>(d * (in + out)) /
                            static_cast<BaseFloat>(in * out);
    if (ratio > shrinkage_threshold_) {
      NNET3_LOG << "apply-svd: not decomposing component " << name
                << ": shrinkage ratio " << ratio << " (bottleneck dim " << d
                << ") is above shrinkage-threshold=" << shrinkage_threshold_;
      return false;
    }
    NNET3_LOG << "apply-svd: component " << name << " (" << in << " -> "
              << out << ") becomes " << in << " -> " << d << " -> " << out
              << "; sum of squared singular values " << total_energy
              << " -> " << svd.Sum(0, d, 2) << ", shrinkage ratio " << ratio;
    // The square roots of the kept singular values go half to each side.
    Matrix<BaseFloat> a(d, in), b(out, d);
    for (int32 j = 0; j < d; j++) {
      const double root = std::sqrt(svd.s(j));
      for (int32 col = 0; col < in; col++) a(j, col) = root * svd.Vt(j, col);
      for (int32 row = 0; row < out; row++) b(row, j) = svd.U(row, j) * root;
    }
    LinearComponent *linear = new LinearComponent(CuMatrix<BaseFloat>(a));
    first->reset(linear);
    linear->SetUpdatableConfigs(affine);
    NaturalGradientAffineComponent *ng =
        new NaturalGradientAffineComponent(CuMatrix<BaseFloat>(b),
                                           affine.BiasParams());
    second->reset(ng);
    ng->SetUpdatableConfigs(affine);
    return true;
  }

  // Every component node using a split component becomes "<node>_a" and
  // "<node>_b"; all other nodes are rewritten with references to a split
  // node pointing at its "_b" half. The lines are read on top of the
  // existing network, the way Kaldi does it, which leaves the input nodes
  // first, then the old split nodes (orphans, removed below), then the
  // rewritten nodes in their original order.
  void RebuildGraph() {
    const int32 num_nodes = nnet_->NumNodes();
    std::vector<std::string> renamed = nnet_->GetNodeNames();
    std::vector<int32> node_split(num_nodes, -1);
    for (int32 n = 0; n < num_nodes; n++) {
      if (!nnet_->IsComponentNode(n)) continue;
      int32 split = split_index_[nnet_->GetNode(n).component_index];
      if (split < 0) continue;
      node_split[n] = split;
      const std::string &name = nnet_->GetNodeName(n);
      for (const char *suffix : {"_a", "_b"})
        if (nnet_->GetNodeIndex(name + suffix) != -1)
          NNET3_ERR << "apply-svd: cannot split node " << name
                    << ": the network already has a node named " << name
                    << suffix;
      renamed[n] = name + "_b";
    }
    std::ostringstream config;
    for (int32 n = 0; n < num_nodes; n++) {
      if (nnet_->IsInputNode(n) || nnet_->IsComponentInputNode(n)) continue;
      const NetworkNode &node = nnet_->GetNode(n);
      const std::string &name = nnet_->GetNodeName(n);
      if (node_split[n] >= 0) {
        const Split &split = splits_[node_split[n]];
        config << "component-node name=" << name << "_a component="
               << split.name_a << " input=";
        nnet_->GetNode(n - 1).descriptor.WriteConfig(config, renamed);
        config << "\ncomponent-node name=" << name << "_b component="
               << split.name_b << " input=" << name << "_a\n";
        continue;
      }
      switch (node.node_type) {
        case kDescriptor:
          config << "output-node name=" << name << " input=";
          node.descriptor.WriteConfig(config, renamed);
          config << " objective="
                 << (node.objective_type == kLinear ? "linear" : "quadratic");
          break;
        case kComponent:
          config << "component-node name=" << name << " component="
                 << nnet_->GetComponentName(node.component_index)
                 << " input=";
          nnet_->GetNode(n - 1).descriptor.WriteConfig(config, renamed);
          break;
        case kDimRange:
          config << "dim-range-node name=" << name
                 << " input-node=" << renamed[node.node_index]
                 << " dim-offset=" << node.dim_offset << " dim=" << node.dim;
          break;
        default:
          NNET3_ASSERT(false && "unexpected node type");
      }
      config << "\n";
    }
    std::istringstream config_is(config.str());
    nnet_->ReadConfig(config_is, "apply-svd");
    nnet_->RemoveOrphanNodes();
    nnet_->RemoveOrphanComponents();
  }

  std::string pattern_;
  int32 bottleneck_dim_;
  BaseFloat energy_threshold_;
  BaseFloat shrinkage_threshold_;
  Nnet *nnet_;
  // For each component present on entry: index into splits_, or -1.
  std::vector<int32> split_index_;
  std::vector<Split> splits_;
};

}  // namespace

int32 ReduceRankOfComponents(const std::string &name_pattern, int32 rank,
                             Nnet *nnet) {
  NNET3_ASSERT(rank > 0);
  int32 num_changed = 0;
  for (int32 c = 0; c < nnet->NumComponents(); c++) {
    const std::string &name = nnet->GetComponentName(c);
    if (!NameMatchesPattern(name, name_pattern)) continue;
    AffineComponent *affine = AsAffine("reduce-rank", nnet, c);
    if (affine == nullptr) continue;
    const int32 in = affine->InputDim(), out = affine->OutputDim();
    if (in <= rank || out <= rank) {
      NNET3_WARN << "reduce-rank: leaving component " << name
                 << " unchanged: rank " << rank << " is not below its dims "
                 << in << " -> " << out;
      continue;
    }
    LinearSvd svd(*affine);
    // W_r = U_r diag(s_r) Vt_r.
    SubMatrix<double> u_kept(svd.U, 0, out, 0, rank);
    u_kept.MulColsVec(svd.s.Range(0, rank));
    Matrix<double> reduced(out, in);
    reduced.AddMatMat(1.0, u_kept, kNoTrans, svd.Vt.RowRange(0, rank),
                      kNoTrans, 0.0);
    NNET3_LOG << "reduce-rank: component " << name
              << ": sum of singular values " << svd.Sum(0, svd.s.Dim(), 1)
              << " -> " << svd.Sum(0, rank, 1);
    CuVector<BaseFloat> bias(affine->BiasParams());
    affine->SetParams(bias, CuMatrix<BaseFloat>(reduced));
    num_changed++;
  }
  NNET3_LOG << "reduce-rank: changed the rank of " << num_changed
            << " components";
  return num_changed;
}

int32 ApplySvdToComponents(const std::string &name_pattern,
                           const ApplySvdOptions &opts, Nnet *nnet) {
  if (opts.bottleneck_dim <= 0 && opts.energy_threshold <= 0.0)
    NNET3_ERR << "apply-svd needs bottleneck-dim=<d> with d > 0 or "
                 "energy-threshold=<e> with e in (0, 1]";
  if (opts.energy_threshold > 1.0)
    NNET3_ERR << "apply-svd: energy-threshold=" << opts.energy_threshold
              << " is above 1";
  if (opts.shrinkage_threshold > 1.0)
    NNET3_ERR << "apply-svd: shrinkage-threshold="
              << opts.shrinkage_threshold << " is above 1";
  SvdSplitter splitter(name_pattern, opts, nnet);
  return splitter.Run();
}

}  // namespace nnet3
