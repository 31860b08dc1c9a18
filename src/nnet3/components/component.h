// nnet3/components/component.h
// The Component interface of nnet3 (what a component-node computes), the
// UpdatableComponent base for components with trained parameters, the
// RandomComponent base for components that draw random numbers, and the
// registry that creates components from Kaldi's type strings.
//
// Conventions (Kaldi's): a component maps a matrix with one row per Index
// to another with the same number of rows (for "simple" components row i of
// the output depends only on row i of the input). Propagate() may return a
// "memo" that Backprop() receives and DeleteMemo() frees. Properties()
// declares what the compiler may assume (in-place operation, whether
// Backprop needs the input or output value, ...); the generic component test
// checks that the claims hold.
//
// Serialization: Write() emits "<TypeName>", the fields, and "</TypeName>"
// exactly as Kaldi does; Read() accepts the stream either before or just
// after the opening "<TypeName>" token (ReadNew() consumes it to learn the
// type).
#ifndef NNET3_NNET3_COMPONENTS_COMPONENT_H_
#define NNET3_NNET3_COMPONENTS_COMPONENT_H_

#include <functional>
#include <istream>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "cudamatrix/cu-matrix.h"
#include "nnet3/core/config-line.h"
#include "nnet3/core/index.h"

namespace nnet3 {

enum ComponentProperties {
  kSimpleComponent = 0x001,     // one output row per input row, same Index
  kUpdatableComponent = 0x002,  // is an UpdatableComponent
  kPropagateInPlace = 0x004,    // Propagate works with out == &in
  kPropagateAdds = 0x008,       // Propagate adds to out (else overwrites)
  kReordersIndexes = 0x010,     // needs ReorderIndexes()
  kBackpropAdds = 0x020,        // Backprop adds to in_deriv
  kBackpropNeedsInput = 0x040,  // Backprop reads in_value
  kBackpropNeedsOutput = 0x080, // Backprop reads out_value
  kBackpropInPlace = 0x100,     // Backprop works with in_deriv == &out_deriv
  kStoresStats = 0x200,         // StoreStats() does something
  kInputContiguous = 0x400,     // input must have stride == num-cols
  kOutputContiguous = 0x800,    // output must have stride == num-cols
  kUsesMemo = 0x1000,           // Propagate returns a memo
  kRandomComponent = 0x2000     // is a RandomComponent
};

// Component-specific data precomputed from the Indexes of a computation
// (for non-simple components such as convolution, statistics pooling and
// TDNN). Created by Component::PrecomputeIndexes() at compile time, owned by
// the NnetComputation and written inside it as
// "<" + Type() + "> ... </" + Type() + ">". Every class registers itself
// under its Type() string in the precomputed-indexes registry, so that a
// computation read from disk (--read-cache) can create it.
class ComponentPrecomputedIndexes {
 public:
  virtual ComponentPrecomputedIndexes *Copy() const = 0;
  // Writes the opening tag "<Type()>", the fields, and the closing tag.
  virtual void Write(std::ostream &os, bool binary) const = 0;
  // Reads from just after or just before the opening tag (use
  // ExpectOneOrTwoTokens), through the closing tag.
  virtual void Read(std::istream &is, bool binary) = 0;
  virtual std::string Type() const = 0;
  virtual ~ComponentPrecomputedIndexes() {}

  // Reads "<Type>" then the object; an unknown type is a UserError.
  static ComponentPrecomputedIndexes *ReadNew(std::istream &is, bool binary);
  // nullptr if the type is unknown.
  static ComponentPrecomputedIndexes *NewOfType(const std::string &type);
};

class Component {
 public:
  // out = f(in). Returns a memo (nullptr unless kUsesMemo).
  virtual void *Propagate(const ComponentPrecomputedIndexes *indexes,
                          const CuMatrixBase<BaseFloat> &in,
                          CuMatrixBase<BaseFloat> *out) const = 0;
  // Accumulates statistics (kStoresStats components).
  virtual void StoreStats(const CuMatrixBase<BaseFloat> &in_value,
                          const CuMatrixBase<BaseFloat> &out_value,
                          void *memo) {
    (void)in_value; (void)out_value; (void)memo;
  }
  virtual void ZeroStats() {}
  // Computes in_deriv (if non-null) from out_deriv, and, if to_update is
  // non-null, updates to_update's parameters (to_update may be this).
  // in_value/out_value are empty matrices unless the properties say they
  // are needed.
  virtual void Backprop(const std::string &debug_info,
                        const ComponentPrecomputedIndexes *indexes,
                        const CuMatrixBase<BaseFloat> &in_value,
                        const CuMatrixBase<BaseFloat> &out_value,
                        const CuMatrixBase<BaseFloat> &out_deriv,
                        void *memo, Component *to_update,
                        CuMatrixBase<BaseFloat> *in_deriv) const = 0;

  // Which input Indexes the output Index needs (default: the same Index).
  virtual void GetInputIndexes(const MiscComputationInfo &misc_info,
                               const Index &output_index,
                               std::vector<Index> *desired_indexes) const;
  // Whether output_index can be computed from the inputs present; if so
  // and used_inputs is non-null, which inputs it uses.
  virtual bool IsComputable(const MiscComputationInfo &misc_info,
                            const Index &output_index,
                            const IndexSet &input_index_set,
                            std::vector<Index> *used_inputs) const;

  // Non-simple components: data derived from the exact input and output
  // Indexes of one step (rows in that order), created once at compile time
  // and given back to Propagate/Backprop. need_backprop says whether
  // Backprop will be called. Default: nullptr (nothing to precompute).
  virtual ComponentPrecomputedIndexes *PrecomputeIndexes(
      const MiscComputationInfo &misc_info,
      const std::vector<Index> &input_indexes,
      const std::vector<Index> &output_indexes, bool need_backprop) const {
    (void)misc_info; (void)input_indexes; (void)output_indexes;
    (void)need_backprop;
    return nullptr;
  }
  // Components with kReordersIndexes: may reorder the input and output
  // Indexes of a step, and may insert "blank" Indexes (t == kNoTime), which
  // the compiler turns into zero rows that nothing computes. Called by the
  // step computer before PrecomputeIndexes.
  virtual void ReorderIndexes(std::vector<Index> *input_indexes,
                              std::vector<Index> *output_indexes) const {
    (void)input_indexes; (void)output_indexes;
  }

  // Kaldi's type string, e.g. "AffineComponent".
  virtual std::string Type() const = 0;
  // Initializes from a config line; unknown keys are left unused for the
  // caller to report. Errors name the key and value.
  virtual void InitFromConfig(ConfigLine *cfl) = 0;
  virtual int32 InputDim() const = 0;
  virtual int32 OutputDim() const = 0;
  virtual int32 Properties() const = 0;
  virtual Component *Copy() const = 0;
  virtual void Read(std::istream &is, bool binary) = 0;
  virtual void Write(std::ostream &os, bool binary) const = 0;
  // One line, as nnet3-info prints it after "type=":
  // "AffineComponent, input-dim=24, output-dim=32, ...".
  virtual std::string Info() const;
  // Scales / adds the parameters and statistics (no-ops for stateless
  // components).
  virtual void Scale(BaseFloat scale) { (void)scale; }
  virtual void Add(BaseFloat alpha, const Component &other) {
    (void)alpha; (void)other;
  }
  virtual void DeleteMemo(void *memo) const { NNET3_ASSERT(memo == nullptr); }

  // Reads "<TypeName>" then the component.
  static Component *ReadNew(std::istream &is, bool binary);
  // nullptr if the type is unknown.
  static Component *NewComponentOfType(const std::string &type);

  Component() {}
  virtual ~Component() {}

 private:
  Component(const Component &) = delete;
  Component &operator=(const Component &) = delete;
};

// Components that draw random numbers (dropout). test_mode_ turns the
// randomness off.
class RandomComponent : public Component {
 public:
  void SetTestMode(bool test_mode) { test_mode_ = test_mode; }
  bool TestMode() const { return test_mode_; }
  // Reseeds the generator (same seed, same numbers).
  void ResetGenerator(uint64 seed = 0) { random_.Seed(seed); }

 protected:
  mutable RandomSource random_;
  bool test_mode_ = false;
};

// Components with trained parameters: learning rate (the actual rate is the
// underlying rate times learning-rate-factor), max-change, l2-regularize.
class UpdatableComponent : public Component {
 public:
  UpdatableComponent()
      : learning_rate_(0.001), learning_rate_factor_(1.0),
        l2_regularize_(0.0), is_gradient_(false), max_change_(0.0) {}
  // Dot product of the parameters with another component's of the same type.
  virtual BaseFloat DotProduct(const UpdatableComponent &other) const = 0;
  // Sets (*norm)(0) (a vector of dimension 1) to DotProduct(*this). Types
  // whose parameters are Cu matrices override it to leave the value where
  // the computation runs (no wait on a GPU), so that the trainer reads all
  // components' norms back at once.
  virtual void SquaredNorm(CuVectorBase<BaseFloat> *norm) const {
    norm->Set(DotProduct(*this));
  }
  // Adds Gaussian noise of this stddev to the parameters.
  virtual void PerturbParams(BaseFloat stddev) = 0;
  virtual void SetUnderlyingLearningRate(BaseFloat lrate) {
    learning_rate_ = lrate * learning_rate_factor_;
  }
  virtual void SetActualLearningRate(BaseFloat lrate) {
    learning_rate_ = lrate;
  }
  // Makes this component hold a gradient: plain SGD updates, no natural
  // gradient, learning rate 1.
  virtual void SetAsGradient() {
    learning_rate_ = 1.0;
    is_gradient_ = true;
  }
  virtual void FreezeNaturalGradient(bool freeze) { (void)freeze; }
  BaseFloat LearningRate() const { return learning_rate_; }
  BaseFloat LearningRateFactor() const { return learning_rate_factor_; }
  virtual void SetLearningRateFactor(BaseFloat f) { learning_rate_factor_ = f; }
  BaseFloat MaxChange() const { return max_change_; }
  void SetMaxChange(BaseFloat max_change) { max_change_ = max_change; }
  BaseFloat L2Regularization() const { return l2_regularize_; }
  void SetL2Regularization(BaseFloat a) { l2_regularize_ = a; }
  bool IsGradient() const { return is_gradient_; }
  // Copies learning rate, factor, max-change, l2 and is-gradient.
  void SetUpdatableConfigs(const UpdatableComponent &other);

  virtual int32 NumParameters() const = 0;
  // Parameters as one vector (the order is the component's own).
  virtual void Vectorize(VectorBase<BaseFloat> *params) const = 0;
  virtual void UnVectorize(const VectorBase<BaseFloat> &params) = 0;
  std::string Info() const override;

 protected:
  // Reads learning-rate, learning-rate-factor, max-change, l2-regularize.
  void InitLearningRatesFromConfig(ConfigLine *cfl);
  // Reads the opening tag (if still there) and the common fields, in
  // Kaldi's order; returns "" if <LearningRate> was read, else the token
  // that came instead (old formats).
  std::string ReadUpdatableCommon(std::istream &is, bool binary);
  // Writes "<Type>", then <LearningRateFactor> (if != 1), <IsGradient> (if
  // set), <MaxChange> (if > 0), <L2Regularize> (if > 0), <LearningRate>.
  void WriteUpdatableCommon(std::ostream &os, bool binary) const;

  BaseFloat learning_rate_;
  BaseFloat learning_rate_factor_;
  BaseFloat l2_regularize_;
  bool is_gradient_;
  BaseFloat max_change_;
};

// ---- Helpers shared by component implementations ---------------------------

// "<Type>" and "</Type>".
inline std::string OpeningTag(const Component &c) { return "<" + c.Type() + ">"; }
inline std::string ClosingTag(const Component &c) { return "</" + c.Type() + ">"; }
// Reads a token; if it equals token1 reads another. The result must equal
// token2 (Kaldi's ExpectOneOrTwoTokens: lets Read() work whether or not
// ReadNew() consumed the opening tag).
void ExpectOneOrTwoTokens(std::istream &is, bool binary,
                          const std::string &token1,
                          const std::string &token2);
// Throws a UserError listing the unused values of a config line.
void CheckNoUnusedValues(const ConfigLine &cfl, const Component &c);

// ---- Registry --------------------------------------------------------------

typedef std::function<ComponentPrecomputedIndexes *()> PrecomputedIndexesFactory;

typedef std::function<Component *()> ComponentFactory;

// Type string -> factory. Families add their components through the
// Register*Components functions listed in registry.cc, the one place that
// knows every family.
class ComponentRegistry {
 public:
  static ComponentRegistry &Get();
  void Add(const std::string &type, ComponentFactory factory);
  // nullptr if unknown.
  Component *New(const std::string &type) const;
  std::vector<std::string> Types() const;
  // Precomputed-indexes classes, keyed by their Type() string.
  void AddPrecomputedIndexes(const std::string &type,
                             PrecomputedIndexesFactory factory);
  ComponentPrecomputedIndexes *NewPrecomputedIndexes(
      const std::string &type) const;

 private:
  ComponentRegistry();
  std::map<std::string, ComponentFactory> factories_;
  std::map<std::string, PrecomputedIndexesFactory> indexes_factories_;
};

}  // namespace nnet3

#endif  // NNET3_NNET3_COMPONENTS_COMPONENT_H_
