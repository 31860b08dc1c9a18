// tests/nnet3/optimize/variable-merging-test.cc
// Variable merging (remove-assignments, propagate-in-place,
// backprop-in-place) and allocate-from-other:
//  - hand-checked rewrites: affine -> relu -> no-op loses the relu's input
//    copy, the relu and the no-op propagate in place, the no-op backprops
//    in place; a copy whose source is still read
//    after the destination changes stays; left-only and right-only merges
//    keep the matrix they should; deallocation + allocation pairs become
//    swaps unless that would raise the peak memory;
//  - 200 random networks and requests (forward only, with input
//    derivatives, with model update): after each pass (and chains of
//    passes) the computation passes the checker, gives the same outputs,
//    input derivatives and parameter changes (1e-5 relative) and never
//    needs more peak memory;
//  - a TDNN training computation (tests/data/bench/tdnn.config): what the
//    passes save, printed.
#include <gtest/gtest.h>

#include <functional>
#include <iostream>
#include <sstream>

#include "common/testing.h"
#include "nnet3/analyze/analyze.h"
#include "nnet3/analyze/checker.h"
#include "nnet3/compile/compiler.h"
#include "nnet3/nnet/nnet-utils.h"
#include "nnet3/optimize/allocate-from-other.h"
#include "nnet3/optimize/convert-addition.h"
#include "nnet3/optimize/move-sizing.h"
#include "nnet3/optimize/optimize.h"
#include "nnet3/optimize/renumber.h"
#include "nnet3/optimize/variable-merging.h"
#include "nnet3/optimize/zeroing.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

typedef NnetComputation::Command Command;

// Runs merging rounds until nothing changes; returns the number of rounds
// that changed something.
int32 MergeUntilDone(const NnetOptimizeOptions &opts, const Nnet &nnet,
                     NnetComputation *computation) {
  int32 rounds = 0;
  while (VariableMergingOptimization(opts, nnet, computation)) {
    rounds++;
    NNET3_ASSERT(rounds < 100);
  }
  return rounds;
}

void Tidy(NnetComputation *computation) {
  RemoveNoOps(computation);
  RenumberComputation(computation);
}

int32 CountCommands(const NnetComputation &computation, CommandType t) {
  std::vector<int32> v;
  GetCommandsOfType(computation, t, &v);
  return static_cast<int32>(v.size());
}

std::string ToString(const NnetComputation &computation, const Nnet &nnet) {
  std::ostringstream os;
  computation.Print(os, nnet);
  return os.str();
}


// ---------------------------------------------------------------------------
// Hand-checked rewrites

const char *kAffineReluConfig =
    "input-node name=input dim=4\n"
    "component name=affine type=AffineComponent input-dim=4 output-dim=5\n"
    "component-node name=affine component=affine input=input\n"
    "component name=relu type=RectifiedLinearComponent dim=5\n"
    "component-node name=relu component=relu input=affine\n"
    "component name=noop type=NoOpComponent dim=5\n"
    "component-node name=noop component=noop input=relu\n"
    "output-node name=output input=noop\n";

ComputationRequest SimpleRequest(int32 num_frames, bool backprop) {
  ComputationRequest request;
  request.inputs.push_back(IoSpecification("input", 0, num_frames));
  request.outputs.push_back(IoSpecification("output", 0, num_frames));
  request.inputs[0].has_deriv = backprop;
  request.outputs[0].has_deriv = backprop;
  request.need_model_derivative = backprop;
  return request;
}

// The kPropagate / kBackprop commands of component 'name'.
const Command *FindComponentCommand(const NnetComputation &computation,
                                    const Nnet &nnet, const std::string &name,
                                    CommandType type) {
  int32 component = nnet.GetComponentIndex(name);
  for (const Command &c : computation.commands)
    if (c.command_type == type && c.arg1 == component) return &c;
  return nullptr;
}

TEST(VariableMerging, AffineReluPropagatesInPlace) {
  Nnet nnet = NnetFromConfigString(kAffineReluConfig);
  for (bool backprop : {false, true}) {
    SCOPED_TRACE(backprop ? "training" : "forward only");
    ComputationRequest request = SimpleRequest(3, backprop);
    NnetComputation raw;
    CompileComputation(nnet, request, CompilerOptions(), &raw);
    SCOPED_TRACE("compiled:\n" + ToString(raw, nnet));
    // Compiled: the relu's input is a copy of the affine output.
    const Command *relu = FindComponentCommand(raw, nnet, "relu", kPropagate);
    ASSERT_NE(relu, nullptr);
    ASSERT_NE(raw.submatrices[relu->arg3].matrix_index,
              raw.submatrices[relu->arg4].matrix_index);
    int32 raw_copies = CountCommands(raw, kMatrixCopy);
    ASSERT_GT(raw_copies, 0);

    NnetComputation merged(raw);
    EXPECT_GT(MergeUntilDone(NnetOptimizeOptions(), nnet, &merged), 0);
    Tidy(&merged);
    SCOPED_TRACE("merged:\n" + ToString(merged, nnet));
    CheckComputation(nnet, merged, false);
    relu = FindComponentCommand(merged, nnet, "relu", kPropagate);
    ASSERT_NE(relu, nullptr);
    EXPECT_EQ(relu->arg3, relu->arg4) << "relu propagates in place";
    // The affine output, relu input and relu output are now one matrix,
    // and so is the output node's matrix (the output copy went too).
    const Command *affine =
        FindComponentCommand(merged, nnet, "affine", kPropagate);
    ASSERT_NE(affine, nullptr);
    EXPECT_EQ(affine->arg4, relu->arg3);
    EXPECT_EQ(CountCommands(merged, kMatrixCopy), 0);
    EXPECT_LT(merged.matrices.size(), raw.matrices.size());
    EXPECT_LT(merged.commands.size(), raw.commands.size());
    EXPECT_LT(GetMaxMemoryUse(merged), GetMaxMemoryUse(raw));
    if (backprop) {
      // The relu cannot backprop in place (no kBackpropInPlace, as in
      // Kaldi); the no-op after it can.
      const Command *noop_back =
          FindComponentCommand(merged, nnet, "noop", kBackpropNoModelUpdate);
      ASSERT_NE(noop_back, nullptr);
      EXPECT_EQ(noop_back->arg5, noop_back->arg6) << "noop backprops in place";
      const Command *relu_back =
          FindComponentCommand(merged, nnet, "relu", kBackpropNoModelUpdate);
      ASSERT_NE(relu_back, nullptr);
      EXPECT_NE(relu_back->arg5, relu_back->arg6);
    }
    // Same results.
    RandomSource rng(7);
    std::vector<Matrix<BaseFloat> > inputs(1, RandomGaussMatrix(3, 4, &rng));
    std::vector<Matrix<BaseFloat> > derivs;
    RandomOutputDerivs(nnet, request, &rng, &derivs);
    ReferenceRun ref(nnet, request, inputs, derivs, raw);
    ASSERT_EQ(ref.Compare(merged), "");

    // With every merge turned off nothing happens.
    NnetOptimizeOptions off;
    off.remove_assignments = off.propagate_in_place = off.backprop_in_place =
        false;
    NnetComputation unchanged(raw);
    EXPECT_FALSE(VariableMergingOptimization(off, nnet, &unchanged));
    EXPECT_EQ(unchanged.commands.size(), raw.commands.size());
    // Propagate-in-place alone merges the relu, and no copy goes.
    NnetOptimizeOptions in_place_only = off;
    in_place_only.propagate_in_place = true;
    NnetComputation prop(raw);
    MergeUntilDone(in_place_only, nnet, &prop);
    Tidy(&prop);
    CheckComputation(nnet, prop, false);
    EXPECT_EQ(CountCommands(prop, kMatrixCopy), raw_copies);
    relu = FindComponentCommand(prop, nnet, "relu", kPropagate);
    EXPECT_EQ(relu->arg3, relu->arg4);
    ASSERT_EQ(ref.Compare(prop), "");
  }
}

// A hand-built computation on an identity network (output = input):
//   m1 = input; m2 = m1; m2 += m1; m3 = m2; output m3.
// The first copy must stay (m1 is read again after m2 has changed); the
// second one goes.
struct HandBuilt {
  Nnet nnet;
  NnetComputation computation;
  int32 first_copy = -1, second_copy = -1;
  HandBuilt() : nnet(NnetFromConfigString(
                    "input-node name=input dim=3\n"
                    "output-node name=output input=input\n")) {
    int32 in = nnet.GetNodeIndex("input"), out = nnet.GetNodeIndex("output");
    NnetComputation &c = computation;
    int32 s1 = c.NewMatrix(4, 3), s2 = c.NewMatrix(4, 3),
          s3 = c.NewMatrix(4, 3);
    std::vector<Command> &cmds = c.commands;
    cmds.push_back(Command(kAcceptInput, s1, in));
    cmds.push_back(Command(kAllocMatrix, s2));
    cmds.push_back(Command(0.0, kSetConst, s2));
    cmds.push_back(Command(kAllocMatrix, s3));
    cmds.push_back(Command(0.0, kSetConst, s3));
    first_copy = static_cast<int32>(cmds.size());
    cmds.push_back(Command(kMatrixCopy, s2, s1));
    cmds.push_back(Command(kMatrixAdd, s2, s1));
    second_copy = static_cast<int32>(cmds.size());
    cmds.push_back(Command(kMatrixCopy, s3, s2));
    cmds.push_back(Command(kDeallocMatrix, s1));
    cmds.push_back(Command(kDeallocMatrix, s2));
    cmds.push_back(Command(kProvideOutput, s3, out));
  }
};

TEST(VariableMerging, CopyWhoseSourceIsReadLaterStays) {
  HandBuilt h;
  CheckComputation(h.nnet, h.computation, false);
  ComputationRequest request = SimpleRequest(4, false);
  RandomSource rng(3);
  std::vector<Matrix<BaseFloat> > inputs(1, RandomGaussMatrix(4, 3, &rng));
  std::vector<Matrix<BaseFloat> > no_derivs(1);
  ReferenceRun ref(h.nnet, request, inputs, no_derivs, h.computation);
  {
    Matrix<BaseFloat> twice(inputs[0]);
    twice.Scale(2.0);
    EXPECT_LE(RelativeDifference(ref.results().outputs[0], twice), 1e-6);
  }
  for (int32 variant = 0; variant < 3; variant++) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    NnetOptimizeOptions opts;
    if (variant == 1) opts.allow_left_merge = false;
    if (variant == 2) opts.allow_right_merge = false;
    NnetComputation merged(h.computation);
    EXPECT_EQ(MergeUntilDone(opts, h.nnet, &merged), 1);
    Tidy(&merged);
    SCOPED_TRACE(ToString(merged, h.nnet));
    CheckComputation(h.nnet, merged, false);
    // One copy left: m2 = m1, followed by the addition.
    ASSERT_EQ(CountCommands(merged, kMatrixCopy), 1);
    ASSERT_EQ(CountCommands(merged, kMatrixAdd), 1);
    EXPECT_EQ(merged.matrices.size(), h.computation.matrices.size() - 1);
    // The output is now the matrix the addition writes.
    std::vector<int32> provide, add;
    GetCommandsOfType(merged, kProvideOutput, &provide);
    GetCommandsOfType(merged, kMatrixAdd, &add);
    EXPECT_EQ(merged.commands[provide[0]].arg1, merged.commands[add[0]].arg1);
    EXPECT_LT(GetMaxMemoryUse(merged), GetMaxMemoryUse(h.computation));
    // Nothing is allocated twice or left deallocated: a right merge keeps
    // the output's matrix (with no deallocation), a left merge keeps m2
    // and drops its deallocation.
    EXPECT_EQ(CountCommands(merged, kDeallocMatrix), 1);
    EXPECT_EQ(CountCommands(merged, kAllocMatrix), 1);
    ASSERT_EQ(ref.Compare(merged), "");
  }
  // With both directions forbidden nothing merges.
  NnetOptimizeOptions neither;
  neither.allow_left_merge = neither.allow_right_merge = false;
  NnetComputation unchanged(h.computation);
  EXPECT_FALSE(VariableMergingOptimization(neither, h.nnet, &unchanged));
}

// m1 = input; m2 = m1; free m1; m3 = 2 * m2; free m2; m4 = m3; free m3;
// output m4 -- each deallocation can hand its memory to the next
// allocation without raising the peak.
TEST(AllocateFromOther, DeallocationAndAllocationBecomeSwap) {
  Nnet nnet = NnetFromConfigString(
      "input-node name=input dim=3\n"
      "output-node name=output input=input\n");
  int32 in = nnet.GetNodeIndex("input"), out = nnet.GetNodeIndex("output");
  NnetComputation c;
  int32 s1 = c.NewMatrix(4, 3), s2 = c.NewMatrix(4, 3), s3 = c.NewMatrix(4, 3),
        s4 = c.NewMatrix(4, 3);
  c.commands = {Command(kAcceptInput, s1, in), Command(kAllocMatrix, s2),
                Command(kMatrixCopy, s2, s1),  Command(kDeallocMatrix, s1),
                Command(kAllocMatrix, s3),     Command(2.0, kMatrixCopy, s3, s2),
                Command(kDeallocMatrix, s2),   Command(kAllocMatrix, s4),
                Command(kMatrixCopy, s4, s3),  Command(kDeallocMatrix, s3),
                Command(kProvideOutput, s4, out)};
  CheckComputation(nnet, c, false);
  NnetComputation opt(c);
  RemoveUnnecessaryAllocation(nnet, &opt);
  SCOPED_TRACE(ToString(opt, nnet));
  CheckComputation(nnet, opt, false);
  EXPECT_EQ(opt.commands.size(), c.commands.size() - 2);
  ASSERT_EQ(CountCommands(opt, kSwapMatrix), 2);
  EXPECT_EQ(CountCommands(opt, kAllocMatrix), 1);
  EXPECT_EQ(CountCommands(opt, kDeallocMatrix), 1);
  // m3 takes m1's memory, m4 takes m2's.
  std::vector<int32> swaps;
  GetCommandsOfType(opt, kSwapMatrix, &swaps);
  EXPECT_EQ(opt.commands[swaps[0]].arg1, s3);
  EXPECT_EQ(opt.commands[swaps[0]].arg2, s1);
  EXPECT_EQ(opt.commands[swaps[1]].arg1, s4);
  EXPECT_EQ(opt.commands[swaps[1]].arg2, s2);
  EXPECT_EQ(GetMaxMemoryUse(opt), GetMaxMemoryUse(c));

  ComputationRequest request = SimpleRequest(4, false);
  RandomSource rng(5);
  std::vector<Matrix<BaseFloat> > inputs(1, RandomGaussMatrix(4, 3, &rng));
  std::vector<Matrix<BaseFloat> > no_derivs(1);
  ReferenceRun ref(nnet, request, inputs, no_derivs, c);
  ASSERT_EQ(ref.Compare(opt), "");
}

// As above, but a bigger matrix lives between the deallocation of m1 and
// the allocation of m3: reusing m1's memory for m3 would raise the peak,
// so nothing changes (Kaldi would pair them).
TEST(AllocateFromOther, KeepsThePeak) {
  Nnet nnet = NnetFromConfigString(
      "input-node name=input dim=3\n"
      "output-node name=output input=input\n");
  int32 in = nnet.GetNodeIndex("input"), out = nnet.GetNodeIndex("output");
  NnetComputation c;
  int32 s1 = c.NewMatrix(4, 3), s2 = c.NewMatrix(4, 3), s3 = c.NewMatrix(4, 3),
        big = c.NewMatrix(8, 3);
  c.commands = {Command(kAcceptInput, s1, in), Command(kAllocMatrix, s2),
                Command(kMatrixCopy, s2, s1),  Command(kDeallocMatrix, s1),
                Command(kAllocMatrix, big),    Command(1.0, kSetConst, big),
                Command(kDeallocMatrix, big),  Command(kAllocMatrix, s3),
                Command(kMatrixCopy, s3, s2),  Command(kDeallocMatrix, s2),
                Command(kProvideOutput, s3, out)};
  CheckComputation(nnet, c, false);
  NnetComputation opt(c);
  RemoveUnnecessaryAllocation(nnet, &opt);
  EXPECT_EQ(opt.commands.size(), c.commands.size());
  EXPECT_EQ(CountCommands(opt, kSwapMatrix), 0);
  EXPECT_EQ(GetMaxMemoryUse(opt), GetMaxMemoryUse(c));
}

// ---------------------------------------------------------------------------
// Random networks

struct Pipeline {
  const char *name;
  std::function<void(const Nnet &, NnetComputation *)> run;
};

std::vector<Pipeline> Pipelines() {
  NnetOptimizeOptions left_only, right_only;
  left_only.allow_right_merge = false;
  right_only.allow_left_merge = false;
  return {
      {"merge",
       [](const Nnet &n, NnetComputation *c) {
         MergeUntilDone(NnetOptimizeOptions(), n, c);
       }},
      {"merge, left only",
       [left_only](const Nnet &n, NnetComputation *c) {
         MergeUntilDone(left_only, n, c);
       }},
      {"merge, right only",
       [right_only](const Nnet &n, NnetComputation *c) {
         MergeUntilDone(right_only, n, c);
       }},
      {"convert-addition, merge",
       [](const Nnet &n, NnetComputation *c) {
         ConvertAdditionToAssignment(n, c);
         MergeUntilDone(NnetOptimizeOptions(), n, c);
       }},
      {"allocate-from-other",
       [](const Nnet &n, NnetComputation *c) {
         RemoveUnnecessaryAllocation(n, c);
       }},
      {"move-sizing, allocate-from-other",
       [](const Nnet &n, NnetComputation *c) {
         MoveSizingCommands(n, c);
         RemoveUnnecessaryAllocation(n, c);
       }},
      // Merging after the zeroing removal and the moving of sizing
      // commands (not Kaldi's order): what it still does must be right.
      {"zeroing, move-sizing, merge",
       [](const Nnet &n, NnetComputation *c) {
         RemoveUnnecessaryZeroing(n, c);
         RemoveNoOps(c);
         MoveSizingCommands(n, c);
         MergeUntilDone(NnetOptimizeOptions(), n, c);
       }},
      {"all: convert-addition, merge, zeroing, move-sizing, "
       "allocate-from-other",
       [](const Nnet &n, NnetComputation *c) {
         ConvertAdditionToAssignment(n, c);
         MergeUntilDone(NnetOptimizeOptions(), n, c);
         RemoveUnnecessaryZeroing(n, c);
         RemoveNoOps(c);
         MoveSizingCommands(n, c);
         RemoveUnnecessaryAllocation(n, c);
       }},
  };
}

TEST(VariableMerging, RandomNetworksGiveTheSameResults) {
  const int32 num_seeds = 200;
  std::vector<Pipeline> pipelines = Pipelines();
  std::vector<int64> memory_before(pipelines.size(), 0),
      memory_after(pipelines.size(), 0), commands_before(pipelines.size(), 0),
      commands_after(pipelines.size(), 0), matrices_after(pipelines.size(), 0);
  int64 matrices_before = 0;
  int32 num_swaps = 0, num_in_place = 0;
  for (int32 seed = 1; seed <= num_seeds; seed++) {
    RandomSource rng(9000 + seed);
    std::string description;
    std::string config =
        GenerateRandomNnetConfig(&rng, RandomNnetOptions(), &description);
    SCOPED_TRACE("seed " + std::to_string(seed) + " (" + description + ")\n" +
                 config);
    Nnet nnet = NnetFromConfigString(config);
    ComputationRequest request;
    std::vector<Matrix<BaseFloat> > inputs;
    GenerateRandomRequest(nnet, &rng, &request, &inputs);
    // Three kinds of computation, in turn.
    int32 kind = seed % 3;
    for (IoSpecification &o : request.outputs) o.has_deriv = (kind != 0);
    for (IoSpecification &i : request.inputs)
      i.has_deriv = (kind == 1) || (kind == 2 && i.has_deriv);
    request.need_model_derivative = (kind == 2);
    std::ostringstream req_str;
    request.Print(req_str);
    SCOPED_TRACE(req_str.str());

    NnetComputation raw;
    CompileComputation(nnet, request, CompilerOptions(), &raw);
    std::vector<Matrix<BaseFloat> > output_derivs;
    RandomOutputDerivs(nnet, request, &rng, &output_derivs);
    ReferenceRun ref(nnet, request, inputs, output_derivs, raw);
    int64 raw_memory = GetMaxMemoryUse(raw);
    matrices_before += static_cast<int64>(raw.matrices.size());
    for (size_t p = 0; p < pipelines.size(); p++) {
      SCOPED_TRACE(pipelines[p].name);
      NnetComputation opt(raw);
      pipelines[p].run(nnet, &opt);
      Tidy(&opt);
      ASSERT_NO_THROW(CheckComputation(nnet, opt, false))
          << ToString(raw, nnet) << "\n--- became ---\n"
          << ToString(opt, nnet);
      int64 memory = GetMaxMemoryUse(opt);
      ASSERT_LE(memory, raw_memory);
      ASSERT_EQ(ref.Compare(opt), "");
      if (::testing::Test::HasFatalFailure()) {
        ADD_FAILURE() << ToString(raw, nnet) << "\n--- became ---\n"
                      << ToString(opt, nnet);
        return;
      }
      memory_before[p] += raw_memory;
      memory_after[p] += memory;
      commands_before[p] += static_cast<int64>(raw.commands.size());
      commands_after[p] += static_cast<int64>(opt.commands.size());
      matrices_after[p] += static_cast<int64>(opt.matrices.size());
      if (p == 0) {
        for (const Command &c : opt.commands)
          if ((c.command_type == kPropagate && c.arg3 == c.arg4) ||
              ((c.command_type == kBackprop ||
                c.command_type == kBackpropNoModelUpdate) &&
               c.arg5 == c.arg6))
            num_in_place++;
      }
      if (p == 5) num_swaps += CountCommands(opt, kSwapMatrix);
    }
  }
  for (size_t p = 0; p < pipelines.size(); p++)
    std::cout << pipelines[p].name << ": commands " << commands_before[p]
              << " -> " << commands_after[p] << ", matrices "
              << matrices_before << " -> " << matrices_after[p]
              << ", summed peak memory " << memory_before[p] << " -> "
              << memory_after[p] << " bytes\n";
  std::cout << "in-place propagate/backprop commands: " << num_in_place
            << "; swaps from allocate-from-other: " << num_swaps << "\n";
  // The passes must actually have done something.
  EXPECT_LT(matrices_after[0], matrices_before);
  EXPECT_LT(memory_after[0], memory_before[0]);
  EXPECT_GT(num_in_place, 0);
  EXPECT_GT(num_swaps, 0);
}

// ---------------------------------------------------------------------------
// A TDNN training computation

struct Stats {
  size_t commands, matrices;
  int64 memory;
  explicit Stats(const NnetComputation &c)
      : commands(c.commands.size()), matrices(c.matrices.size()),
        memory(GetMaxMemoryUse(c)) {}
};

std::ostream &operator<<(std::ostream &os, const Stats &s) {
  return os << s.commands << " commands, " << s.matrices << " matrices, peak "
            << s.memory / 1024 << " KiB";
}

TEST(VariableMerging, TdnnTrainingComputation) {
  Nnet nnet = NnetFromConfigString(
      testing::ReadFile(testing::DataDir() + "/bench/tdnn.config"));
  int32 left = 0, right = 0;
  ComputeSimpleNnetContext(nnet, &left, &right);
  const int32 num_sequences = 8, num_frames = 50;
  ComputationRequest request;
  std::vector<Index> in_indexes, out_indexes;
  for (int32 n = 0; n < num_sequences; n++) {
    for (int32 t = -left; t < num_frames + right; t++)
      in_indexes.push_back(Index(n, t, 0));
    for (int32 t = 0; t < num_frames; t++)
      out_indexes.push_back(Index(n, t, 0));
  }
  request.inputs.push_back(IoSpecification("input", in_indexes, false));
  request.outputs.push_back(IoSpecification("output", out_indexes, true));
  request.need_model_derivative = true;
  request.store_component_stats = true;
  NnetComputation raw;
  CompileComputation(nnet, request, CompilerOptions(), &raw);
  CheckComputation(nnet, raw, false);

  NnetComputation merged(raw);
  int32 rounds = MergeUntilDone(NnetOptimizeOptions(), nnet, &merged);
  Tidy(&merged);
  CheckComputation(nnet, merged, false);

  NnetComputation converted(raw);
  ConvertAdditionToAssignment(nnet, &converted);
  Tidy(&converted);
  NnetComputation converted_merged(converted);
  MergeUntilDone(NnetOptimizeOptions(), nnet, &converted_merged);
  Tidy(&converted_merged);
  CheckComputation(nnet, converted_merged, false);

  NnetComputation moved(converted_merged);
  RemoveUnnecessaryZeroing(nnet, &moved);
  RemoveNoOps(&moved);
  MoveSizingCommands(nnet, &moved);
  NnetComputation reused(moved);
  RemoveUnnecessaryAllocation(nnet, &reused);
  Tidy(&reused);
  CheckComputation(nnet, reused, false);

  // Without the merges, for comparison.
  NnetComputation unmerged(converted);
  RemoveUnnecessaryZeroing(nnet, &unmerged);
  RemoveNoOps(&unmerged);
  MoveSizingCommands(nnet, &unmerged);
  Tidy(&unmerged);

  std::cout << "TDNN training computation (" << num_sequences << " x "
            << num_frames << " frames):\n"
            << "  compiled:                       " << Stats(raw) << "\n"
            << "  merged (" << rounds << " rounds):              "
            << Stats(merged) << "\n"
            << "  convert-addition:               " << Stats(converted)
            << "\n"
            << "  convert-addition + merge:       " << Stats(converted_merged)
            << "\n"
            << "  ... + zeroing + move-sizing:    " << Stats(moved) << "\n"
            << "  ... + allocate-from-other:      " << Stats(reused) << " ("
            << CountCommands(reused, kSwapMatrix) << " swaps)\n"
            << "  (no merging) zeroing + move-sizing: " << Stats(unmerged)
            << "\n";
  EXPECT_LT(merged.matrices.size(), raw.matrices.size());
  EXPECT_LT(GetMaxMemoryUse(merged), GetMaxMemoryUse(raw));
  EXPECT_LT(GetMaxMemoryUse(moved), GetMaxMemoryUse(unmerged));
  EXPECT_LE(GetMaxMemoryUse(reused), GetMaxMemoryUse(moved));
}

}  // namespace
}  // namespace nnet3
