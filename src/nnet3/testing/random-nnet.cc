// nnet3/testing/random-nnet.cc
// Random network configs and requests; see random-nnet.h for the
// guarantees. The config is built layer by layer: each layer reads the
// previous one through a random "glue" descriptor (a list of Append terms,
// each a SumDescriptor expression), applies an affine-like component and
// then up to two elementwise or dimension-reducing components.
#include "nnet3/testing/random-nnet.h"

#include <algorithm>
#include <sstream>

#include <memory>

#include "nnet3/components/component.h"
#include "nnet3/testing/naive-evaluator.h"

namespace nnet3 {

namespace {

// One term of an Append(): a SumDescriptor expression and its dimension.
struct Term {
  std::string text;
  int32 dim;
};

// A node that later descriptors may read.
struct NodeRef {
  std::string name;
  int32 dim;
};

std::string OffsetOf(const std::string &name, int32 t_offset) {
  if (t_offset == 0) return name;
  return "Offset(" + name + ", " + std::to_string(t_offset) + ")";
}

std::string AppendOf(const std::vector<Term> &terms) {
  NNET3_ASSERT(!terms.empty());
  if (terms.size() == 1) return terms[0].text;
  std::string ans = "Append(";
  for (size_t i = 0; i < terms.size(); i++)
    ans += (i > 0 ? ", " : "") + terms[i].text;
  return ans + ")";
}

int32 DimOf(const std::vector<Term> &terms) {
  int32 dim = 0;
  for (const Term &t : terms) dim += t.dim;
  return dim;
}

class ConfigBuilder {
 public:
  ConfigBuilder(RandomSource *rng, const RandomNnetOptions &opts)
      : rng_(rng), opts_(opts) {
    NNET3_ASSERT(opts.min_dim >= 1 && opts.max_dim >= opts.min_dim);
  }

  std::string Build(std::string *description);

 private:
  enum Kind { kFeedForward, kTdnn, kRecurrent };

  int32 RandDim() { return rng_->Int(opts_.min_dim, opts_.max_dim); }
  bool Prob(double p) { return rng_->WithProb(p); }
  std::string NewName(const std::string &prefix) {
    return prefix + std::to_string(counter_++);
  }
  void Feature(const std::string &f) {
    if (std::find(features_.begin(), features_.end(), f) == features_.end())
      features_.push_back(f);
  }
  // A random element of v.
  template <class T>
  const T &Pick(const std::vector<T> &v) {
    NNET3_ASSERT(!v.empty());
    return v[rng_->Int(0, static_cast<int32>(v.size()) - 1)];
  }

  // Writes the component line and the component-node line; the node (and
  // component) is called "name", or a new name from "prefix" if it is empty.
  NodeRef AddComponentNode(const std::string &prefix, const std::string &type,
                           const std::string &options, const std::string &input,
                           int32 output_dim, const std::string &name = "");
  // An affine-like component (Affine, NaturalGradientAffine, Linear).
  NodeRef AddAffine(const std::string &input, int32 input_dim,
                    int32 output_dim);
  // A random component after x; dimension-preserving if dim_preserving.
  // The node is called "name" if that is given, and reads the descriptor
  // "input" (of x's dimension) instead of x if that is given.
  NodeRef AddElementwise(const NodeRef &x, bool dim_preserving,
                         const std::string &name = "",
                         const std::string &input = "");
  // Up to two random components after x.
  NodeRef AddNonlinearities(const NodeRef &x);

  // Append terms reading x, with random decorations.
  std::vector<Term> RandomGlue(const NodeRef &x);
  std::vector<Term> OneDecoration(const NodeRef &x);
  std::vector<Term> Splice(const NodeRef &x);

  // A hidden layer reading x (plus the ivector if with_ivector).
  NodeRef AddLayer(const NodeRef &x, Kind kind, bool with_ivector);
  NodeRef AddRecurrentLayer(const NodeRef &x, bool with_ivector);
  // A layer of general (non-simple or structured) components reading x
  // (see RandomNnetOptions::allow_general_components).
  NodeRef AddGeneralLayer(const NodeRef &x);
  // (input-dim, output-dim) of a component made from a config line.
  static std::pair<int32, int32> Dims(const std::string &type,
                                      const std::string &options);
  static bool Registered(const std::string &type);
  // "dim-range-node name=... input-node=... dim-offset=... dim=...".
  NodeRef AddDimRange(const std::string &name, const std::string &input,
                      int32 offset, int32 dim, bool readable);
  void AddOutput(const std::string &name, const NodeRef &x, bool main);

  RandomSource *rng_;
  const RandomNnetOptions &opts_;
  std::ostringstream os_;
  std::vector<std::string> features_;
  std::vector<NodeRef> nodes_;  // readable nodes, in order of creation
  NodeRef ivector_{"", 0};
  int32 counter_ = 0;
};

NodeRef ConfigBuilder::AddComponentNode(const std::string &prefix,
                                        const std::string &type,
                                        const std::string &options,
                                        const std::string &input,
                                        int32 output_dim,
                                        const std::string &name_in) {
  std::string name = name_in.empty() ? NewName(prefix) : name_in;
  os_ << "component name=" << name << " type=" << type << " " << options
      << "\n";
  os_ << "component-node name=" << name << " component=" << name
      << " input=" << input << "\n";
  Feature(type);
  NodeRef node{name, output_dim};
  nodes_.push_back(node);
  return node;
}

NodeRef ConfigBuilder::AddAffine(const std::string &input, int32 input_dim,
                                 int32 output_dim) {
  std::ostringstream opts;
  opts << "input-dim=" << input_dim << " output-dim=" << output_dim;
  switch (rng_->Int(0, 3)) {
    case 0:
    case 1:
      if (Prob(0.3)) opts << " bias-stddev=0.5";
      return AddComponentNode("affine", "AffineComponent", opts.str(), input,
                              output_dim);
    case 2:
      return AddComponentNode("ngaffine", "NaturalGradientAffineComponent",
                              opts.str(), input, output_dim);
    default:
      return AddComponentNode("linear", "LinearComponent", opts.str(), input,
                              output_dim);
  }
}

NodeRef ConfigBuilder::AddElementwise(const NodeRef &x, bool dim_preserving,
                                      const std::string &name,
                                      const std::string &input) {
  const int32 d = x.dim;
  const std::string in = input.empty() ? x.name : input;
  // All the components below read "in" and are named "name" (if given).
  auto add = [&](const std::string &prefix, const std::string &type,
                 const std::string &options, int32 output_dim) {
    return AddComponentNode(prefix, type, options, in, output_dim, name);
  };
  // Divisors g > 1 of d (for block dims d / g), and those leaving at least
  // two dimensions (for the dimension-reducing components: a one-dimensional
  // bottleneck would hide too much from the tests).
  std::vector<int32> divisors, reducers;
  for (int32 g = 2; g <= d; g++) {
    if (d % g != 0) continue;
    divisors.push_back(g);
    if (d / g >= 2) reducers.push_back(g);
  }
  std::vector<int32> choices = {0, 1, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13};
  if (opts_.allow_nonsmooth) choices.push_back(2);
  // Normalizing blocks of one element would be a sign function: blocks of
  // at least two.
  if (d >= 2) choices.push_back(5);
  if (!dim_preserving) {
    if (d >= 2) choices.push_back(18);
    if (!reducers.empty()) {
      choices.insert(choices.end(), {15, 16, 17});
      if (opts_.allow_nonsmooth) choices.push_back(14);
    }
  }
  const std::string dim = "dim=" + std::to_string(d);
  // A random block-dim (a divisor of d, often d itself).
  auto block_dim = [&]() -> std::string {
    if (divisors.empty() || Prob(0.6)) return "";
    int32 g = Pick(divisors);
    return " block-dim=" + std::to_string(d / g);
  };
  switch (Pick(choices)) {
    case 0:
      return add("tanh", "TanhComponent", dim, d);
    case 1:
      return add("sigmoid", "SigmoidComponent", dim, d);
    case 2:
      return add("relu", "RectifiedLinearComponent", dim, d);
    case 3:
      return add("softmax", "SoftmaxComponent", dim, d);
    case 4:
      return add("logsoftmax", "LogSoftmaxComponent", dim, d);
    case 5: {
      std::string o = dim;
      std::vector<int32> blocks;  // block dims >= 2 dividing d, below d
      for (int32 g : divisors)
        if (d / g >= 2) blocks.push_back(d / g);
      if (!blocks.empty() && Prob(0.4))
        o += " block-dim=" + std::to_string(Pick(blocks));
      if (Prob(0.5)) o += " target-rms=0.5";
      return add("normalize", "NormalizeComponent", o, d);
    }
    case 6:
      return add("scale", "PerElementScaleComponent", dim + " param-stddev=0.5",
                 d);
    case 7:
      return add("ngscale", "NaturalGradientPerElementScaleComponent",
                 dim + " param-stddev=0.5", d);
    case 8:
      return add("offset", "PerElementOffsetComponent",
                 dim + " param-stddev=0.5" + block_dim(), d);
    case 9:
      return add("scaleoffset", "ScaleAndOffsetComponent", dim + block_dim(),
                 d);
    case 10:
      return add("noop", "NoOpComponent", dim, d);
    case 11:
      // A threshold no derivative reaches: the identity, but the compiler
      // still has to schedule its backprop.
      return add("clip", "ClipGradientComponent",
                 dim + " clipping-threshold=1000 self-repair-scale=0" +
                     (Prob(0.5) ? " norm-based-clipping=true" : ""),
                 d);
    case 12:
      return add("fixedscale", "FixedScaleComponent", dim + " scale=0.7", d);
    case 13: {
      std::vector<int32> perm(d);
      for (int32 i = 0; i < d; i++) perm[i] = i;
      std::shuffle(perm.begin(), perm.end(), rng_->engine());
      std::string map = "column-map=";
      for (int32 i = 0; i < d; i++)
        map += (i > 0 ? "," : "") + std::to_string(perm[i]);
      return add("permute", "PermuteComponent", map, d);
    }
    case 14: {
      int32 e = d / Pick(reducers);
      return add(
          "pnorm", "PnormComponent",
          "input-dim=" + std::to_string(d) + " output-dim=" + std::to_string(e),
          e);
    }
    case 15: {
      int32 e = d / Pick(reducers);
      return add(
          "sumgroup", "SumGroupComponent",
          "input-dim=" + std::to_string(d) + " output-dim=" + std::to_string(e),
          e);
    }
    case 16: {
      int32 e = d / Pick(reducers);
      return add(
          "product", "ElementwiseProductComponent",
          "input-dim=" + std::to_string(d) + " output-dim=" + std::to_string(e),
          e);
    }
    case 17: {
      int32 e = d / Pick(reducers);
      return add("sumblock", "SumBlockComponent",
                 "input-dim=" + std::to_string(d) +
                     " output-dim=" + std::to_string(e) + " scale=0.5",
                 e);
    }
    default:  // 18
      return add("normalize", "NormalizeComponent",
                 dim + " add-log-stddev=true", d + 1);
  }
}

NodeRef ConfigBuilder::AddNonlinearities(const NodeRef &x) {
  NodeRef y = x;
  int32 n = rng_->Int(0, 2);
  for (int32 i = 0; i < n; i++) y = AddElementwise(y, false);
  return y;
}

std::vector<Term> ConfigBuilder::Splice(const NodeRef &x) {
  std::vector<int32> offsets = {-2, -1, 0, 1, 2};
  std::shuffle(offsets.begin(), offsets.end(), rng_->engine());
  offsets.resize(rng_->Int(2, 3));
  std::sort(offsets.begin(), offsets.end());
  std::vector<Term> terms;
  for (int32 o : offsets) terms.push_back(Term{OffsetOf(x.name, o), x.dim});
  Feature("splice");
  return terms;
}

std::vector<Term> ConfigBuilder::OneDecoration(const NodeRef &x) {
  const std::string &n = x.name;
  const int32 d = x.dim;
  const std::vector<int32> nonzero = {-2, -1, 1, 2};
  std::vector<int32> choices = {0, 1, 2, 3, 4};
  if (opts_.allow_const) choices.push_back(5);
  if (opts_.allow_failover) choices.push_back(6);
  if (opts_.allow_if_defined) choices.push_back(7);
  if (opts_.allow_round) choices.push_back(8);
  if (opts_.allow_switch) choices.push_back(9);
  if (opts_.allow_dim_range && d >= 2) choices.push_back(10);
  // An earlier node other than x, for skip connections.
  std::vector<NodeRef> others;
  for (const NodeRef &y : nodes_)
    if (y.name != n) others.push_back(y);
  if (!others.empty()) choices.push_back(11);
  switch (Pick(choices)) {
    case 0:
      return {Term{n, d}};
    case 1:
      return Splice(x);
    case 2:
      Feature("Sum");
      return {Term{"Sum(" + n + ", " + OffsetOf(n, Pick(nonzero)) + ")", d}};
    case 3: {
      Feature("Scale");
      const std::vector<std::string> alphas = {"0.5", "-1.5", "2"};
      std::string a = Pick(alphas);
      if (Prob(0.5)) return {Term{"Scale(" + a + ", " + n + ")", d}};
      // The same node with the same scale on both sides of a Sum.
      Feature("Sum");
      return {Term{"Sum(Scale(" + a + ", " + OffsetOf(n, -1) + "), Scale(" + a +
                       ", " + n + "))",
                   d}};
    }
    case 4: {
      Feature("Offset");
      return {Term{OffsetOf(n, Pick(nonzero)), d}};
    }
    case 5: {
      Feature("Const");
      const std::vector<std::string> values = {"0.5", "-1", "2.5"};
      return {Term{"Sum(" + n + ", Const(" + Pick(values) + ", " +
                       std::to_string(d) + "))",
                   d}};
    }
    case 6: {
      Feature("Failover");
      std::vector<int32> offsets = {-2, -1, 0, 1, 2};
      std::shuffle(offsets.begin(), offsets.end(), rng_->engine());
      return {Term{"Failover(" + OffsetOf(n, offsets[0]) + ", " +
                       OffsetOf(n, offsets[1]) + ")",
                   d}};
    }
    case 7: {
      Feature("IfDefined");
      int32 k = Pick(std::vector<int32>{-3, -1, 1, 3});
      return {Term{"Sum(" + n + ", IfDefined(" + OffsetOf(n, k) + "))", d}};
    }
    case 8:
      Feature("Round");
      return {Term{"Round(" + n + ", 2)", d}};
    case 9:
      Feature("Switch");
      return {Term{"Switch(" + OffsetOf(n, -1) + ", " + n + ")", d}};
    case 10: {
      Feature("dim-range");
      int32 dim = rng_->Int(1, d - 1), offset = rng_->Int(0, d - dim);
      std::string name = NewName("dimrange");
      os_ << "dim-range-node name=" << name << " input-node=" << n
          << " dim-offset=" << offset << " dim=" << dim << "\n";
      NodeRef r{name, dim};
      nodes_.push_back(r);
      if (Prob(0.5)) return {Term{name, dim}};
      return {Term{name, dim}, Term{OffsetOf(n, Pick(nonzero)), d}};
    }
    default: {
      Feature("skip");
      const NodeRef &y = Pick(others);
      if (y.dim == d) {
        Feature("Sum");
        return {Term{"Sum(" + n + ", Scale(0.5, " + OffsetOf(y.name, -1) + "))",
                     d}};
      }
      return {Term{n, d}, Term{OffsetOf(y.name, Pick(nonzero)), y.dim}};
    }
  }
}

std::vector<Term> ConfigBuilder::RandomGlue(const NodeRef &x) {
  std::vector<Term> terms = OneDecoration(x);
  if (Prob(0.3)) {
    std::vector<Term> more = OneDecoration(x);
    terms.insert(terms.end(), more.begin(), more.end());
  }
  return terms;
}

NodeRef ConfigBuilder::AddLayer(const NodeRef &x, Kind kind,
                                bool with_ivector) {
  if (opts_.allow_general_components && !with_ivector && Prob(0.6))
    return AddNonlinearities(AddGeneralLayer(x));
  std::vector<Term> terms;
  if (kind == kTdnn)
    terms = Splice(x);
  else if (Prob(0.6))
    terms = RandomGlue(x);
  else
    terms = {Term{x.name, x.dim}};
  if (with_ivector)
    terms.push_back(
        Term{"ReplaceIndex(" + ivector_.name + ", t, 0)", ivector_.dim});
  NodeRef y = AddAffine(AppendOf(terms), DimOf(terms), RandDim());
  return AddNonlinearities(y);
}

NodeRef ConfigBuilder::AddRecurrentLayer(const NodeRef &x, bool with_ivector) {
  std::vector<Term> terms;
  if (Prob(0.5))
    terms = RandomGlue(x);
  else
    terms = {Term{x.name, x.dim}};
  if (with_ivector)
    terms.push_back(
        Term{"ReplaceIndex(" + ivector_.name + ", t, 0)", ivector_.dim});
  const int32 k = rng_->Int(1, 3);
  const int32 dim = RandDim();
  Feature("recurrence");
  Feature("IfDefined");
  switch (rng_->Int(0, 2)) {
    case 0: {
      // a = Affine(Append(..., IfDefined(Offset(r, -k)))), r = f(a): the
      // recurrence goes through two components.
      std::string r_name = NewName("rec");
      terms.push_back(Term{"IfDefined(" + OffsetOf(r_name, -k) + ")", dim});
      NodeRef a = AddAffine(AppendOf(terms), DimOf(terms), dim);
      NodeRef r = AddElementwise(a, true, r_name);
      return AddNonlinearities(r);
    }
    case 1: {
      // r = f(Sum(Affine(x), IfDefined(Offset(r, -k)))), maybe scaled.
      NodeRef a = AddAffine(AppendOf(terms), DimOf(terms), dim);
      std::string r_name = NewName("rec");
      // Both delays of a node carry the same scale (one scale per node).
      const bool scaled = Prob(0.4);
      auto past = [&](int32 delay) {
        std::string p = OffsetOf(r_name, -delay);
        return "IfDefined(" + (scaled ? "Scale(0.5, " + p + ")" : p) + ")";
      };
      if (scaled) Feature("Scale");
      std::string input = "Sum(" + a.name + ", " + past(k) + ")";
      if (Prob(0.3)) {
        int32 k2 = k + rng_->Int(1, 2);
        input = "Sum(" + a.name + ", Sum(" + past(k) + ", " + past(k2) + "))";
      }
      Feature("Sum");
      // The recurrent component: any dimension-preserving one.
      NodeRef r = AddElementwise(a, true, r_name, input);
      return AddNonlinearities(r);
    }
    default: {
      // An affine layer reading its own earlier output.
      std::string r_name = NewName("rec");
      terms.push_back(Term{"IfDefined(" + OffsetOf(r_name, -k) + ")", dim});
      std::ostringstream opts;
      opts << "input-dim=" << DimOf(terms) << " output-dim=" << dim;
      NodeRef r = AddComponentNode(r_name, "AffineComponent", opts.str(),
                                   AppendOf(terms), dim, r_name);
      return AddNonlinearities(r);
    }
  }
}

bool ConfigBuilder::Registered(const std::string &type) {
  std::unique_ptr<Component> c(Component::NewComponentOfType(type));
  return c != nullptr;
}

std::pair<int32, int32> ConfigBuilder::Dims(const std::string &type,
                                            const std::string &options) {
  std::unique_ptr<Component> c(Component::NewComponentOfType(type));
  NNET3_ASSERT(c != nullptr);
  ConfigLine cfl;
  NNET3_ASSERT(cfl.ParseLine(options));
  c->InitFromConfig(&cfl);
  return std::make_pair(c->InputDim(), c->OutputDim());
}

NodeRef ConfigBuilder::AddDimRange(const std::string &name,
                                   const std::string &input, int32 offset,
                                   int32 dim, bool readable) {
  os_ << "dim-range-node name=" << name << " input-node=" << input
      << " dim-offset=" << offset << " dim=" << dim << "\n";
  Feature("dim-range-node");
  NodeRef node{name, dim};
  if (readable) nodes_.push_back(node);
  return node;
}

NodeRef ConfigBuilder::AddGeneralLayer(const NodeRef &x) {
  enum Choice {
    kTdnnf, kLstm, kConv, kStats, kAttention, kDistribute, kComposite,
    kBlockAffine
  };
  std::vector<Choice> choices;
  if (Registered("TdnnComponent")) choices.push_back(kTdnnf);
  if (opts_.allow_recurrence && opts_.allow_if_defined &&
      opts_.allow_dim_range && Registered("LstmNonlinearityComponent") &&
      Registered("BackpropTruncationComponent"))
    choices.push_back(kLstm);
  if (Registered("TimeHeightConvolutionComponent")) choices.push_back(kConv);
  if (opts_.allow_round && Registered("StatisticsExtractionComponent") &&
      Registered("StatisticsPoolingComponent"))
    choices.push_back(kStats);
  if (Registered("RestrictedAttentionComponent")) choices.push_back(kAttention);
  if (Registered("DistributeComponent")) choices.push_back(kDistribute);
  if (Registered("CompositeComponent") && Registered("BlockAffineComponent"))
    choices.push_back(kComposite);
  if (Registered("BlockAffineComponent") &&
      Registered("RepeatedAffineComponent") &&
      Registered("NaturalGradientRepeatedAffineComponent"))
    choices.push_back(kBlockAffine);
  NNET3_ASSERT(!choices.empty() && "no general component type is registered");
  auto str = [](int32 i) { return std::to_string(i); };
  switch (Pick(choices)) {
    case kTdnnf: {
      // Factorized layer: linear bottleneck, affine back to x's dimension,
      // a nonlinearity, and a scaled bypass of x.
      const int32 d = x.dim, b = RandDim();
      std::string first = Pick(std::vector<std::string>{"-1,0", "-2,0", "-1,0,1"}),
                  second = Pick(std::vector<std::string>{"0,1", "0,2", "0"});
      NodeRef lin = AddComponentNode(
          "tdnnf", "TdnnComponent",
          "input-dim=" + str(d) + " output-dim=" + str(b) +
              " use-bias=false time-offsets=" + first,
          x.name, b);
      NodeRef aff = AddComponentNode(
          "tdnnf", "TdnnComponent",
          "input-dim=" + str(b) + " output-dim=" + str(d) +
              " time-offsets=" + second,
          lin.name, d);
      NodeRef y = AddElementwise(aff, true);
      Feature("Sum");
      Feature("Scale");
      return AddComponentNode("bypass", "NoOpComponent", "dim=" + str(d),
                              "Sum(Scale(0.66, " + x.name + "), " + y.name + ")",
                              d);
    }
    case kLstm: {
      // Kaldi's fast-LSTM layer: the affine reads x and the truncated m of
      // k frames ago; the cell reads that and the truncated c.
      const int32 c = RandDim(), k = rng_->Int(1, 3);
      const std::string base = NewName("lstm");
      const std::string m_trunc = base + "_m_trunc", c_trunc = base + "_c_trunc";
      Feature("recurrence");
      Feature("IfDefined");
      NodeRef w = AddComponentNode(
          "lstmW", "NaturalGradientAffineComponent",
          "input-dim=" + str(x.dim + c) + " output-dim=" + str(4 * c),
          "Append(" + x.name + ", IfDefined(" + OffsetOf(m_trunc, -k) + "))",
          4 * c);
      NodeRef cell = AddComponentNode(
          "lstm", "LstmNonlinearityComponent", "cell-dim=" + str(c),
          "Append(" + w.name + ", IfDefined(" + OffsetOf(c_trunc, -k) + "))",
          2 * c);
      NodeRef trunc = AddComponentNode(
          "cmtrunc", "BackpropTruncationComponent",
          "dim=" + str(2 * c) + " recurrence-interval=" + str(k) +
              (Prob(0.5) ? " zeroing-threshold=15 zeroing-interval=4" : ""),
          cell.name, 2 * c);
      AddDimRange(c_trunc, trunc.name, 0, c, false);
      AddDimRange(m_trunc, trunc.name, c, c, false);
      return AddDimRange(base + "_m", cell.name, c, c, true);
    }
    case kConv: {
      const int32 h = rng_->Int(2, 4), fin = rng_->Int(1, 2),
                  fout = rng_->Int(1, 3);
      NodeRef a = AddAffine(x.name, x.dim, h * fin);
      std::string o = "num-filters-in=" + str(fin) + " num-filters-out=" +
                      str(fout) + " height-in=" + str(h) + " height-out=" +
                      str(h) + " height-offsets=-1,0,1";
      o += Prob(0.5) ? " time-offsets=-1,0,1" : " time-offsets=0,2";
      if (Prob(0.3)) o += " required-time-offsets=0";
      return AddComponentNode("conv", "TimeHeightConvolutionComponent", o,
                              a.name, h * fout);
    }
    case kStats: {
      // Statistics every p frames over a window, read back at every frame
      // through Round().
      const int32 p = rng_->Int(1, 3), d = RandDim();
      const bool var = Prob(0.5);
      NodeRef a = AddAffine(x.name, x.dim, d);
      std::string eo = "input-dim=" + str(d) + " input-period=1 output-period=" +
                       str(p) + " include-variance=" + (var ? "true" : "false");
      int32 ext_dim = Dims("StatisticsExtractionComponent", eo).second;
      NodeRef ext = AddComponentNode("statsext", "StatisticsExtractionComponent",
                                     eo, a.name, ext_dim);
      // No standard deviations: requests here give the pooling as little as
      // one block, and the stddev of a few frames is ill-conditioned (the
      // derivative of sqrt near 0 magnifies rounding). statistics-test and
      // the Kaldi vectors cover them.
      const bool stddevs = false;
      const int32 left = rng_->Int(0, 2), right = rng_->Int(1, 2);
      std::string po = "input-dim=" + str(ext_dim) + " input-period=" + str(p) +
                       " left-context=" + str(p * left) +
                       " right-context=" + str(p * right) +
                       " num-log-count-features=" + str(rng_->Int(0, 1)) +
                       " output-stddevs=" + (stddevs ? "true" : "false");
      int32 pool_dim = Dims("StatisticsPoolingComponent", po).second;
      NodeRef pool = AddComponentNode("statspool", "StatisticsPoolingComponent",
                                      po, ext.name, pool_dim);
      // Both are defined only at multiples of p: nothing else may read them.
      nodes_.resize(nodes_.size() - 2);
      Feature("Round");
      return AddComponentNode("round", "NoOpComponent", "dim=" + str(pool_dim),
                              "Round(" + pool.name + ", " + str(p) + ")",
                              pool_dim);
    }
    case kAttention: {
      std::string o = "num-heads=" + str(rng_->Int(1, 2)) +
                      " key-dim=" + str(rng_->Int(1, 3)) +
                      " value-dim=" + str(rng_->Int(1, 3)) +
                      " num-left-inputs=" + str(rng_->Int(1, 3)) +
                      " num-right-inputs=" + str(rng_->Int(0, 2)) +
                      " time-stride=" + str(rng_->Int(1, 2)) +
                      " output-context=" + (Prob(0.5) ? "true" : "false");
      std::pair<int32, int32> dims = Dims("RestrictedAttentionComponent", o);
      NodeRef a = AddAffine(x.name, x.dim, dims.first);
      return AddComponentNode("attention", "RestrictedAttentionComponent", o,
                              a.name, dims.second);
    }
    case kDistribute: {
      // Spread a vector over x = 0..k-1, then sum the pieces back.
      const int32 k = rng_->Int(2, 3), d = RandDim();
      NodeRef a = AddAffine(x.name, x.dim, d * k);
      NodeRef dist = AddComponentNode(
          "distribute", "DistributeComponent",
          "input-dim=" + str(d * k) + " output-dim=" + str(d), a.name, d);
      std::string sum = "ReplaceIndex(" + dist.name + ", x, " + str(k - 1) + ")";
      for (int32 i = k - 2; i >= 0; i--)
        sum = "Sum(ReplaceIndex(" + dist.name + ", x, " + str(i) + "), " + sum +
              ")";
      Feature("ReplaceIndex");
      Feature("Sum");
      return AddComponentNode("undistribute", "NoOpComponent", "dim=" + str(d),
                              sum, d);
    }
    case kComposite: {
      const int32 g = rng_->Int(1, 2), in = g * rng_->Int(1, 4),
                  out = g * rng_->Int(1, 4);
      NodeRef a = AddAffine(x.name, x.dim, in);
      std::string o = "num-components=2 max-rows-process=" +
                      str(rng_->Int(2, 7)) +
                      " component1='type=BlockAffineComponent input-dim=" +
                      str(in) + " output-dim=" + str(out) + " num-blocks=" +
                      str(g) + "' component2='type=" +
                      (Prob(0.5) ? "TanhComponent" : "SigmoidComponent") +
                      " dim=" + str(out) + "'";
      return AddComponentNode("composite", "CompositeComponent", o, a.name,
                              out);
    }
    case kBlockAffine: {
      const int32 g = rng_->Int(2, 3), in = RandDim(), out = RandDim();
      NodeRef a = AddAffine(x.name, x.dim, in * g);
      std::string io = "input-dim=" + str(in * g) + " output-dim=" +
                       str(out * g);
      switch (rng_->Int(0, 2)) {
        case 0:
          return AddComponentNode("blockaffine", "BlockAffineComponent",
                                  io + " num-blocks=" + str(g), a.name,
                                  out * g);
        case 1:
          return AddComponentNode("repaffine", "RepeatedAffineComponent",
                                  io + " num-repeats=" + str(g), a.name,
                                  out * g);
        default:
          return AddComponentNode(
              "ngrepaffine", "NaturalGradientRepeatedAffineComponent",
              io + " num-repeats=" + str(g), a.name, out * g);
      }
    }
  }
  NNET3_ASSERT(false);
  return x;
}

void ConfigBuilder::AddOutput(const std::string &name, const NodeRef &x,
                              bool main) {
  NodeRef y = x;
  if (main || Prob(0.7)) {
    std::vector<Term> terms =
        Prob(0.4) ? RandomGlue(x) : std::vector<Term>{Term{x.name, x.dim}};
    y = AddAffine(AppendOf(terms), DimOf(terms), RandDim());
    double r = rng_->Uniform();
    if (r < 0.25)
      y = AddComponentNode("logsoftmax", "LogSoftmaxComponent",
                           "dim=" + std::to_string(y.dim), y.name, y.dim);
    else if (r < 0.35)
      y = AddComponentNode("softmax", "SoftmaxComponent",
                           "dim=" + std::to_string(y.dim), y.name, y.dim);
  }
  std::string input = y.name;
  double r = rng_->Uniform();
  if (r < 0.1) {
    input = OffsetOf(y.name, Prob(0.5) ? 1 : -1);
    Feature("Offset");
  } else if (r < 0.2) {
    input = "Scale(2, " + y.name + ")";
    Feature("Scale");
  } else if (r < 0.3 && opts_.allow_const) {
    input = "Sum(" + y.name + ", Const(0.25, " + std::to_string(y.dim) + "))";
    Feature("Const");
  }
  os_ << "output-node name=" << name << " input=" << input
      << " objective=" << (Prob(0.5) ? "linear" : "quadratic") << "\n";
}

std::string ConfigBuilder::Build(std::string *description) {
  std::vector<Kind> kinds = {kFeedForward, kTdnn};
  if (opts_.allow_recurrence) kinds.push_back(kRecurrent);
  Kind kind = Pick(kinds);
  NodeRef input{"input", RandDim()};
  os_ << "input-node name=input dim=" << input.dim << "\n";
  nodes_.push_back(input);
  bool use_ivector = opts_.allow_ivector && Prob(0.35);
  if (use_ivector) {
    ivector_ = NodeRef{"ivector", rng_->Int(1, 4)};
    os_ << "input-node name=ivector dim=" << ivector_.dim << "\n";
    Feature("ivector");
  }
  const int32 num_layers = rng_->Int(1, 3);
  const int32 recurrent_layer =
      (kind == kRecurrent ? rng_->Int(0, num_layers - 1) : -1);
  NodeRef x = input;
  for (int32 l = 0; l < num_layers; l++) {
    bool with_ivector = use_ivector && (l == 0 || Prob(0.3));
    if (l == recurrent_layer)
      x = AddRecurrentLayer(x, with_ivector);
    else
      x = AddLayer(x, kind, with_ivector);
  }
  AddOutput("output", x, true);
  if (opts_.allow_multiple_outputs && Prob(0.35)) {
    Feature("multiple-outputs");
    int32 num_extra = rng_->Int(1, 2);
    // Read hidden nodes (the input itself only rarely).
    std::vector<NodeRef> sources(nodes_.begin() + 1, nodes_.end());
    for (int32 i = 0; i < num_extra; i++) {
      NodeRef src = (sources.empty() || Prob(0.1)) ? input : Pick(sources);
      AddOutput("output" + std::to_string(i + 2), src, false);
    }
  }
  if (description != nullptr) {
    static const char *kKindNames[] = {"feed-forward", "tdnn", "recurrent"};
    std::string d = std::string("kind=") + kKindNames[kind] + " features=";
    for (size_t i = 0; i < features_.size(); i++)
      d += (i > 0 ? "," : "") + features_[i];
    *description = d;
  }
  return os_.str();
}

}  // namespace

std::vector<std::string> NnetConfigLines(const Nnet &nnet) {
  std::vector<std::string> lines;
  nnet.GetConfigLines(false, &lines);
  return lines;
}

Nnet NnetFromConfigString(const std::string &config) {
  Nnet nnet;
  std::istringstream is(config);
  nnet.ReadConfig(is);
  return nnet;
}

Matrix<BaseFloat> RandomGaussMatrix(int32 rows, int32 cols,
                                    RandomSource *rng) {
  Matrix<BaseFloat> m(rows, cols, kUndefined);
  m.SetRandn(rng);
  return m;
}

std::string GenerateRandomNnetConfig(RandomSource *rng,
                                     const RandomNnetOptions &opts,
                                     std::string *description) {
  ConfigBuilder builder(rng, opts);
  return builder.Build(description);
}

// ---- Requests ---------------------------------------------------------------

namespace {

struct OutputSpec {
  std::string name;
  int32 num_frames;
};

// Whether every output frame t in [0, num_frames) (sequence 0) is computable
// when input i is available on t in [ranges[i].first, ranges[i].second].
bool OutputsComputable(const Nnet &nnet,
                       const std::vector<std::string> &input_names,
                       const std::vector<std::pair<int32, int32>> &ranges,
                       const std::vector<OutputSpec> &outputs) {
  ComputationRequest request;
  std::vector<Matrix<BaseFloat>> values;
  for (size_t i = 0; i < input_names.size(); i++) {
    IoSpecification io;
    io.name = input_names[i];
    for (int32 t = ranges[i].first; t <= ranges[i].second; t++)
      io.indexes.push_back(Index(0, t));
    values.emplace_back(static_cast<int32>(io.indexes.size()),
                        nnet.InputDim(io.name));
    request.inputs.push_back(io);
  }
  for (const OutputSpec &o : outputs) {
    IoSpecification io;
    io.name = o.name;
    for (int32 t = 0; t < o.num_frames; t++) io.indexes.push_back(Index(0, t));
    request.outputs.push_back(io);
  }
  NaiveEvaluator evaluator(nnet, request, values);
  for (size_t o = 0; o < outputs.size(); o++)
    for (int32 r = 0; r < outputs[o].num_frames; r++)
      if (!evaluator.OutputIsComputable(static_cast<int32>(o), r)) return false;
  return true;
}

// Indexes for t in [t_begin, t_end] and n in [0, num_n), n-major or t-major.
std::vector<Index> MakeIndexes(int32 t_begin, int32 t_end, int32 num_n,
                               bool t_major) {
  std::vector<Index> ans;
  if (t_major) {
    for (int32 t = t_begin; t <= t_end; t++)
      for (int32 n = 0; n < num_n; n++) ans.push_back(Index(n, t));
  } else {
    for (int32 n = 0; n < num_n; n++)
      for (int32 t = t_begin; t <= t_end; t++) ans.push_back(Index(n, t));
  }
  return ans;
}

}  // namespace

void GenerateRandomRequest(const Nnet &nnet, RandomSource *rng,
                           ComputationRequest *request,
                           std::vector<Matrix<BaseFloat>> *inputs) {
  const int32 kWide = 40;
  *request = ComputationRequest();
  inputs->clear();
  std::vector<std::string> input_names;
  std::vector<OutputSpec> outputs;
  int32 max_frames = 0;
  for (int32 node = 0; node < nnet.NumNodes(); node++) {
    if (nnet.IsInputNode(node)) input_names.push_back(nnet.GetNodeName(node));
    if (nnet.IsOutputNode(node)) {
      outputs.push_back(OutputSpec{nnet.GetNodeName(node), rng->Int(1, 6)});
      max_frames = std::max(max_frames, outputs.back().num_frames);
    }
  }
  if (outputs.empty()) NNET3_ERR << "GenerateRandomRequest: no output nodes";
  // Start wide, then shrink each input's window from each side as far as
  // computability allows (it is monotone in the inputs, so binary search).
  std::vector<std::pair<int32, int32>> ranges(
      input_names.size(), std::make_pair(-kWide, max_frames - 1 + kWide));
  if (!OutputsComputable(nnet, input_names, ranges, outputs))
    NNET3_ERR << "GenerateRandomRequest: the outputs are not computable from "
                 "inputs on t in ["
              << -kWide << ", " << max_frames - 1 + kWide << "]";
  for (size_t i = 0; i < input_names.size(); i++) {
    // Largest first such that [first, second] still works.
    int32 lo = ranges[i].first, hi = ranges[i].second;  // lo works
    while (lo < hi) {
      int32 mid = lo + (hi - lo + 1) / 2;
      ranges[i].first = mid;
      if (OutputsComputable(nnet, input_names, ranges, outputs))
        lo = mid;
      else
        hi = mid - 1;
    }
    ranges[i].first = lo;
    // Smallest second such that [first, second] still works.
    lo = ranges[i].first;
    hi = ranges[i].second;  // hi works
    while (lo < hi) {
      int32 mid = lo + (hi - lo) / 2;
      ranges[i].second = mid;
      if (OutputsComputable(nnet, input_names, ranges, outputs))
        hi = mid;
      else
        lo = mid + 1;
    }
    ranges[i].second = hi;
  }
  const int32 num_n = rng->Int(1, 3);
  bool any_output_deriv = false;
  for (const OutputSpec &o : outputs) {
    IoSpecification io;
    io.name = o.name;
    io.indexes = MakeIndexes(0, o.num_frames - 1, num_n, rng->WithProb(0.5));
    io.has_deriv = rng->WithProb(0.5);
    any_output_deriv = any_output_deriv || io.has_deriv;
    request->outputs.push_back(io);
  }
  for (size_t i = 0; i < input_names.size(); i++) {
    int32 t_begin = ranges[i].first, t_end = ranges[i].second;
    if (input_names[i] != "ivector") {  // ivector: as found (t = 0)
      t_begin -= rng->Int(0, 2);
      t_end += rng->Int(0, 2);
    }
    IoSpecification io;
    io.name = input_names[i];
    io.indexes = MakeIndexes(t_begin, t_end, num_n, rng->WithProb(0.5));
    io.has_deriv = any_output_deriv && rng->WithProb(0.5);
    Matrix<BaseFloat> m(static_cast<int32>(io.indexes.size()),
                        nnet.InputDim(io.name));
    for (int32 r = 0; r < m.NumRows(); r++)
      for (int32 c = 0; c < m.NumCols(); c++)
        m(r, c) = static_cast<BaseFloat>(rng->Gauss());
    inputs->push_back(std::move(m));
    request->inputs.push_back(io);
  }
  request->need_model_derivative = any_output_deriv && rng->WithProb(0.5);
}

void GenerateRandomBackwardCase(RandomSource *rng, bool input_derivs,
                                bool model_derivative,
                                RandomBackwardCase *c) {
  std::string description;
  std::string config =
      GenerateRandomNnetConfig(rng, RandomNnetOptions(), &description);
  c->nnet = NnetFromConfigString(config);
  GenerateRandomRequest(c->nnet, rng, &c->request, &c->inputs);
  for (IoSpecification &o : c->request.outputs) o.has_deriv = true;
  for (IoSpecification &i : c->request.inputs) i.has_deriv = input_derivs;
  c->request.need_model_derivative = model_derivative;
  std::ostringstream trace;
  trace << "(" << description << ")\n" << config;
  c->request.Print(trace);
  c->trace = trace.str();
}

}  // namespace nnet3
