// tests/nnet3/optimize/optimize-test.cc
// The optimizer against the unoptimized computation, on hundreds of random
// networks and requests (forward only, with input derivatives, with model
// update, recurrent ones included): outputs, input derivatives and
// parameter changes agree to 1e-5 relative with every pass on, and again
// with each pass turned off in turn; with all passes on, the optimized
// computation never needs more peak memory. Plus hand-checked rewrites of
// single passes.
#include <gtest/gtest.h>

#include <functional>
#include <sstream>

#include "base/log.h"
#include "nnet3/analyze/analyze.h"
#include "nnet3/compile/compiler.h"
#include "nnet3/optimize/convert-addition.h"
#include "nnet3/optimize/extend-matrices.h"
#include "nnet3/optimize/io-consolidation.h"
#include "nnet3/optimize/move-sizing.h"
#include "nnet3/optimize/optimize.h"
#include "nnet3/optimize/renumber.h"
#include "nnet3/optimize/zeroing.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

struct Variant {
  const char *name;
  std::function<void(NnetOptimizeOptions *)> set;
};

std::vector<Variant> Variants() {
  return {
      {"all passes", [](NnetOptimizeOptions *) {}},
      {"no consolidate-model-update",
       [](NnetOptimizeOptions *o) { o->consolidate_model_update = false; }},
      {"no snip-row-ops", [](NnetOptimizeOptions *o) { o->snip_row_ops = false; }},
      {"no split-row-ops",
       [](NnetOptimizeOptions *o) { o->split_row_ops = false; }},
      {"no optimize-row-ops",
       [](NnetOptimizeOptions *o) { o->optimize_row_ops = false; }},
      {"no convert-addition",
       [](NnetOptimizeOptions *o) { o->convert_addition = false; }},
      {"no variable merging",
       [](NnetOptimizeOptions *o) {
         o->remove_assignments = o->propagate_in_place =
             o->backprop_in_place = false;
       }},
      {"no left merge", [](NnetOptimizeOptions *o) { o->allow_left_merge = false; }},
      {"no right merge",
       [](NnetOptimizeOptions *o) { o->allow_right_merge = false; }},
      {"no initialize-undefined",
       [](NnetOptimizeOptions *o) { o->initialize_undefined = false; }},
      {"no move-sizing-commands",
       [](NnetOptimizeOptions *o) { o->move_sizing_commands = false; }},
      {"memory-compression-level 0",
       [](NnetOptimizeOptions *o) { o->memory_compression_level = 0; }},
      {"no extend-matrices",
       [](NnetOptimizeOptions *o) { o->extend_matrices = false; }},
      {"no allocate-from-other",
       [](NnetOptimizeOptions *o) { o->allocate_from_other = false; }},
  };
}

// Every variant of the optimizer on random networks gives the unoptimized
// computation's results; returns through the counters what was exercised.
void CheckOptimizerOnRandomNetworks(const RandomNnetOptions &nnet_opts,
                                    int32 first_seed, int32 num_seeds) {
  std::vector<Variant> variants = Variants();
  int64 total_before = 0, total_after = 0;
  int32 num_backprop = 0, num_extended = 0;
  for (int32 seed = first_seed; seed < first_seed + num_seeds; seed++) {
    RandomSource rng(5000 + seed);
    std::string description;
    std::string config =
        GenerateRandomNnetConfig(&rng, nnet_opts, &description);
    SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + config);
    Nnet nnet = NnetFromConfigString(config);
    ComputationRequest request;
    std::vector<Matrix<BaseFloat> > inputs;
    GenerateRandomRequest(nnet, &rng, &request, &inputs);
    NnetComputation raw;
    CompileComputation(nnet, request, CompilerOptions(), &raw);
    std::vector<Matrix<BaseFloat> > output_derivs;
    RandomOutputDerivs(nnet, request, &rng, &output_derivs);
    bool backprop = false;
    for (const auto &o : request.outputs) backprop |= o.has_deriv;
    if (backprop) num_backprop++;
    ReferenceRun ref(nnet, request, inputs, output_derivs, raw);
    int64 raw_memory = GetMaxMemoryUse(raw);
    {
      NnetComputation extended(raw);
      if (ExtendMatrices(&extended)) num_extended++;
    }
    for (const Variant &v : variants) {
      SCOPED_TRACE(v.name);
      NnetOptimizeOptions opts;
      v.set(&opts);
      NnetComputation optimized(raw);
      // Verbose level 3 makes Optimize() run the checker after every pass.
      SetVerboseLevel(3);
      Optimize(opts, nnet, 0, &optimized);
      SetVerboseLevel(0);
      // Outputs, input derivatives and parameter changes.
      ASSERT_EQ(ref.Compare(optimized), "");
      int64 memory = GetMaxMemoryUse(optimized);
      if (v.name == variants[0].name) {
        // With the whole recipe the peak never rises (without
        // move-sizing, consolidate-model-update's gathered matrices can
        // add to it).
        ASSERT_LE(memory, raw_memory);
        total_before += raw_memory;
        total_after += memory;
      }
    }
  }
  EXPECT_GT(num_backprop, num_seeds / 4);
  // Across all seeds the optimizer must actually save memory.
  EXPECT_LT(total_after, total_before);
  std::cout << "peak matrix memory over " << num_seeds
            << " random computations: " << total_before << " -> "
            << total_after << " bytes; extend-matrices applies to "
            << num_extended << " raw computations\n";
}

TEST(Optimize, RandomNetworksGiveTheSameResults) {
  CheckOptimizerOnRandomNetworks(RandomNnetOptions(), 1, 250);
}

// Networks with TDNN-F, LSTM (IfDefined recurrence, backprop truncation),
// convolution, statistics pooling, attention, distribute, composite and
// block/repeated affine layers.
TEST(Optimize, RandomGeneralNetworksGiveTheSameResults) {
  RandomNnetOptions opts;
  opts.allow_general_components = true;
  CheckOptimizerOnRandomNetworks(opts, 1001, 150);
}

const char *kChainConfig =
    "input-node name=input dim=3\n"
    "component name=a type=AffineComponent input-dim=3 output-dim=4\n"
    "component-node name=a component=a input=input\n"
    "component name=r type=RectifiedLinearComponent dim=4\n"
    "component-node name=r component=r input=a\n"
    "component name=b type=AffineComponent input-dim=4 output-dim=2\n"
    "component-node name=b component=b input=r\n"
    "output-node name=output input=b\n";

ComputationRequest ChainRequest(bool backprop) {
  ComputationRequest request;
  request.inputs.push_back(IoSpecification("input", 0, 5));
  request.outputs.push_back(IoSpecification("output", 0, 5));
  request.outputs[0].has_deriv = backprop;
  request.need_model_derivative = backprop;
  return request;
}

int32 CountType(const NnetComputation &c, CommandType t) {
  std::vector<int32> v;
  GetCommandsOfType(c, t, &v);
  return static_cast<int32>(v.size());
}

TEST(Optimize, InitializeUndefinedDropsZeroingOfOverwrittenMatrices) {
  Nnet nnet = NnetFromConfigString(kChainConfig);
  NnetComputation c;
  CompileComputation(nnet, ChainRequest(false), CompilerOptions(), &c);
  // Forward only: every matrix is fully written (copies and propagates)
  // before it is read, except the output, which is written too.
  int32 zeroings = CountType(c, kSetConst);
  ASSERT_GT(zeroings, 0);
  RemoveUnnecessaryZeroing(nnet, &c);
  RemoveNoOps(&c);
  EXPECT_EQ(CountType(c, kSetConst), 0);
}

TEST(Optimize, ConvertAdditionTurnsFirstAddIntoCopy) {
  Nnet nnet = NnetFromConfigString(kChainConfig);
  NnetComputation c;
  CompileComputation(nnet, ChainRequest(true), CompilerOptions(), &c);
  // The backward pass adds the descriptor derivatives into zeroed
  // derivative matrices.
  int32 adds = CountType(c, kMatrixAdd), copies = CountType(c, kMatrixCopy);
  ASSERT_GT(adds, 0);
  ConvertAdditionToAssignment(nnet, &c);
  EXPECT_EQ(CountType(c, kMatrixAdd), 0);
  EXPECT_EQ(CountType(c, kMatrixCopy), copies + adds);
}

TEST(Optimize, MoveSizingCommandsShortensLifetimes) {
  Nnet nnet = NnetFromConfigString(kChainConfig);
  NnetComputation c;
  CompileComputation(nnet, ChainRequest(true), CompilerOptions(), &c);
  int64 before = GetMaxMemoryUse(c);
  MoveSizingCommands(nnet, &c);
  int64 after = GetMaxMemoryUse(c);
  EXPECT_LT(after, before);
  // Every allocation now comes right before (its zeroing and) the first
  // command that uses the matrix.
  for (size_t i = 0; i + 2 < c.commands.size(); i++) {
    if (c.commands[i].command_type != kAllocMatrix) continue;
    size_t next = i + 1;
    if (c.commands[next].command_type == kSetConst &&
        c.commands[next].arg1 == c.commands[i].arg1)
      next++;
    EXPECT_NE(c.commands[next].command_type, kAllocMatrix) << "command " << i;
  }
}

TEST(Optimize, ConsolidateIoMovesInputsFirstAndOutputsLast) {
  NnetComputation c;
  int32 m1 = c.NewMatrix(2, 2), m2 = c.NewMatrix(2, 2);
  c.commands.push_back(NnetComputation::Command(kAllocMatrix, m2));
  c.commands.push_back(NnetComputation::Command(kAcceptInput, m1, 0));
  c.commands.push_back(NnetComputation::Command(kMatrixCopy, m2, m1));
  c.commands.push_back(NnetComputation::Command(kProvideOutput, m2, 1));
  c.commands.push_back(NnetComputation::Command(kDeallocMatrix, m1));
  c.commands.push_back(NnetComputation::Command(kNoOperationMarker));
  Nnet nnet = NnetFromConfigString("input-node name=input dim=2\n"
                                   "output-node name=output input=input\n");
  ConsolidateIoOperations(nnet, &c);
  std::vector<CommandType> want = {kAcceptInput, kAllocMatrix, kMatrixCopy,
                                   kDeallocMatrix, kProvideOutput,
                                   kNoOperationMarker};
  ASSERT_EQ(c.commands.size(), want.size());
  for (size_t i = 0; i < want.size(); i++)
    EXPECT_EQ(c.commands[i].command_type, want[i]) << i;
}

TEST(Optimize, RenumberDropsUnusedMatricesAndIndexes) {
  NnetComputation c;
  int32 m1 = c.NewMatrix(3, 2), unused = c.NewMatrix(4, 4),
        m3 = c.NewMatrix(3, 2);
  (void)unused;
  int32 dup = c.NewSubMatrix(m3, 0, 3, 0, 2);  // same as m3
  c.indexes.push_back({0, 1, 2});
  c.indexes.push_back({2, 1, 0});
  c.commands.push_back(NnetComputation::Command(kAllocMatrix, m1));
  c.commands.push_back(NnetComputation::Command(kAllocMatrix, m3));
  c.commands.push_back(NnetComputation::Command(1.0, kCopyRows, dup, m1, 1));
  RenumberComputation(&c);
  EXPECT_EQ(c.matrices.size(), 3u);     // empty + two used
  EXPECT_EQ(c.submatrices.size(), 3u);  // empty + two whole matrices
  ASSERT_EQ(c.indexes.size(), 1u);
  EXPECT_EQ(c.indexes[0], std::vector<int32>({2, 1, 0}));
  EXPECT_EQ(c.commands[2].arg3, 0);
  EXPECT_EQ(c.commands[2].arg1, 2);
  EXPECT_EQ(c.submatrices[2].matrix_index, 2);
}

// The comparison the differential tests rely on notices a changed result.
TEST(Optimize, ReferenceRunNoticesChangedResults) {
  Nnet nnet = NnetFromConfigString(kChainConfig);
  ComputationRequest request = ChainRequest(true);
  NnetComputation raw;
  CompileComputation(nnet, request, CompilerOptions(), &raw);
  RandomSource rng(3);
  std::vector<Matrix<BaseFloat> > inputs(1, RandomGaussMatrix(5, 3, &rng)),
      output_derivs;
  RandomOutputDerivs(nnet, request, &rng, &output_derivs);
  ReferenceRun ref(nnet, request, inputs, output_derivs, raw);
  EXPECT_EQ(ref.Compare(raw), "");
  // Doubling the first copy or addition changes what follows it.
  NnetComputation changed(raw);
  bool found = false;
  for (NnetComputation::Command &c : changed.commands) {
    if (c.command_type == kMatrixCopy || c.command_type == kMatrixAdd ||
        c.command_type == kCopyRows) {
      c.alpha *= 2;
      found = true;
      break;
    }
  }
  ASSERT_TRUE(found);
  EXPECT_NE(ref.Compare(changed), "");
}

}  // namespace
}  // namespace nnet3
