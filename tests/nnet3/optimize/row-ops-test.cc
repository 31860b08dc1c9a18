// tests/nnet3/optimize/row-ops-test.cc
// optimize-row-ops, snip-row-ops and split-row-ops (row-ops.h):
//  - hand-built computations on an identity network (input m1, a scaled
//    copy m3 of it, output m2 preset to 0.25) with one row command each:
//    after the pass the command types, submatrix row ranges and index
//    vectors are exactly the expected ones, the checker passes, and the
//    output is the same as before on random inputs; commands a pass must
//    not touch (copies with -1 rows, non-consecutive copies into rows, three
//    submatrices, widely spread rows) stay as they were;
//  - 150 random networks and requests: the three passes (+ RemoveNoOps,
//    RenumberComputation) give a computation the checker accepts with the
//    same outputs, input derivatives and parameter gradient (1e-5
//    relative), also after the rest of the optimizer; the number of
//    commands rewritten is printed.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <sstream>

#include "nnet3/analyze/checker.h"
#include "nnet3/compile/compiler.h"
#include "nnet3/optimize/optimize.h"
#include "nnet3/optimize/renumber.h"
#include "nnet3/optimize/row-ops.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

typedef NnetComputation::Command Command;
typedef NnetComputation::SubMatrixInfo SubMatrixInfo;
typedef std::vector<std::pair<int32, int32> > Pairs;

std::string ToString(const NnetComputation &computation, const Nnet &nnet) {
  std::ostringstream os;
  computation.Print(os, nnet);
  return os.str();
}

void Tidy(NnetComputation *computation) {
  RemoveNoOps(computation);
  RenumberComputation(computation);
}

// ---------------------------------------------------------------------------
// Hand-built computations

const int32 kRows = 6, kCols = 3;

// input m1 (6x3); m3 = -1.5 * m1; m2 = 0.25 everywhere; <row command>;
// output m2. The row command sits at index 'op'.
struct Frame {
  Nnet nnet;
  NnetComputation c;
  int32 s1 = -1, s2 = -1, s3 = -1, op = -1;
  Frame()
      : nnet(NnetFromConfigString("input-node name=input dim=3\n"
                                  "output-node name=output input=input\n")) {
    s1 = c.NewMatrix(kRows, kCols);
    s2 = c.NewMatrix(kRows, kCols);
    s3 = c.NewMatrix(kRows, kCols);
  }
  void Finish(const Command &row_command) {
    int32 in = nnet.GetNodeIndex("input"), out = nnet.GetNodeIndex("output");
    c.commands = {Command(kAcceptInput, s1, in),
                  Command(kAllocMatrix, s3),
                  Command(-1.5, kMatrixCopy, s3, s1),
                  Command(kAllocMatrix, s2),
                  Command(0.25, kSetConst, s2)};
    op = static_cast<int32>(c.commands.size());
    c.commands.push_back(row_command);
    c.commands.push_back(Command(kDeallocMatrix, s1));
    c.commands.push_back(Command(kDeallocMatrix, s3));
    c.commands.push_back(Command(kProvideOutput, s2, out));
    CheckComputation(nnet, c, false);
  }
  int32 AddIndexes(const std::vector<int32> &v) {
    c.indexes.push_back(v);
    return static_cast<int32>(c.indexes.size()) - 1;
  }
  int32 AddMulti(const Pairs &v) {
    c.indexes_multi.push_back(v);
    return static_cast<int32>(c.indexes_multi.size()) - 1;
  }
  int32 AddRanges(const Pairs &v) {
    c.indexes_ranges.push_back(v);
    return static_cast<int32>(c.indexes_ranges.size()) - 1;
  }
  Matrix<BaseFloat> Output(const NnetComputation &computation) const {
    ComputationRequest request;
    request.inputs.push_back(IoSpecification("input", 0, kRows));
    request.outputs.push_back(IoSpecification("output", 0, kRows));
    RandomSource rng(11);
    std::vector<Matrix<BaseFloat> > inputs(
        1, RandomGaussMatrix(kRows, kCols, &rng));
    ComputationResults results;
    RunComputationForTest(nnet, request, computation, inputs,
                          std::vector<Matrix<BaseFloat> >(1), nullptr,
                          &results);
    return results.outputs[0];
  }
  // Runs 'pass' on a copy; checks the result and that the output is
  // unchanged; returns the copy (not tidied, so command indexes hold).
  template <class Pass>
  NnetComputation Apply(Pass pass, bool expect_change) const {
    NnetComputation opt(c);
    EXPECT_EQ(pass(&opt), expect_change);
    NnetComputation tidy(opt);
    Tidy(&tidy);
    EXPECT_NO_THROW(CheckComputation(nnet, tidy, false))
        << ToString(tidy, nnet);
    EXPECT_LE(RelativeDifference(Output(c), Output(tidy)), 1e-6)
        << ToString(c, nnet) << "\n--- became ---\n" << ToString(tidy, nnet);
    return opt;
  }
  // Rows [offset, offset + num_rows) of the matrix of submatrix s, all
  // columns.
  SubMatrixInfo Rows(int32 s, int32 offset, int32 num_rows) const {
    return SubMatrixInfo(c.submatrices[s].matrix_index, offset, num_rows, 0,
                         kCols);
  }
};

// ---- optimize-row-ops

TEST(ReplaceRowWithMatrixOps, AddRowsWithConsecutiveRunBecomesMatrixAdd) {
  Frame f;
  f.Finish(Command(0.5, kAddRows, f.s2, f.s1,
                   f.AddIndexes({-1, 2, 3, 4, -1, -1})));
  NnetComputation opt = f.Apply(ReplaceRowWithMatrixOps, true);
  const Command &c = opt.commands[f.op];
  EXPECT_EQ(c.command_type, kMatrixAdd);
  EXPECT_EQ(c.alpha, 0.5f);
  EXPECT_EQ(opt.submatrices[c.arg1], f.Rows(f.s2, 1, 3));
  EXPECT_EQ(opt.submatrices[c.arg2], f.Rows(f.s1, 2, 3));
}

TEST(ReplaceRowWithMatrixOps, FullCopyRowsBecomesWholeMatrixCopy) {
  Frame f;
  f.Finish(Command(2.0, kCopyRows, f.s2, f.s3,
                   f.AddIndexes({0, 1, 2, 3, 4, 5})));
  NnetComputation opt = f.Apply(ReplaceRowWithMatrixOps, true);
  const Command &c = opt.commands[f.op];
  EXPECT_EQ(c.command_type, kMatrixCopy);
  EXPECT_EQ(c.alpha, 2.0f);
  EXPECT_EQ(c.arg1, f.s2);  // whole submatrices are reused
  EXPECT_EQ(c.arg2, f.s3);
}

TEST(ReplaceRowWithMatrixOps, ShiftedCopyOfSubmatrix) {
  Frame f;
  int32 top = f.c.NewSubMatrix(f.s2, 0, 3, 0, -1);
  f.Finish(Command(kCopyRows, top, f.s1, f.AddIndexes({3, 4, 5})));
  NnetComputation opt = f.Apply(ReplaceRowWithMatrixOps, true);
  const Command &c = opt.commands[f.op];
  EXPECT_EQ(c.command_type, kMatrixCopy);
  EXPECT_EQ(c.arg1, top);
  EXPECT_EQ(opt.submatrices[c.arg2], f.Rows(f.s1, 3, 3));
}

TEST(ReplaceRowWithMatrixOps, AllMinusOne) {
  {
    Frame f;
    f.Finish(Command(kCopyRows, f.s2, f.s1, f.AddIndexes(
        std::vector<int32>(kRows, -1))));
    NnetComputation opt = f.Apply(ReplaceRowWithMatrixOps, true);
    EXPECT_EQ(opt.commands[f.op].command_type, kSetConst);
    EXPECT_EQ(opt.commands[f.op].alpha, 0.0f);
    EXPECT_EQ(opt.commands[f.op].arg1, f.s2);
  }
  {
    Frame f;
    f.Finish(Command(kAddRows, f.s2, f.s1, f.AddIndexes(
        std::vector<int32>(kRows, -1))));
    NnetComputation opt = f.Apply(ReplaceRowWithMatrixOps, true);
    EXPECT_EQ(opt.commands[f.op].command_type, kNoOperation);
  }
}

TEST(ReplaceRowWithMatrixOps, IrregularOrCopyWithGapsStays) {
  // A copy's -1 rows are zeroed, so a run flanked by -1 must stay.
  for (const std::vector<int32> &v :
       {std::vector<int32>{-1, 0, 1, 2, 3, 4},
        std::vector<int32>{5, 4, 3, 2, 1, 0},
        std::vector<int32>{0, 1, 2, -1, 3, 4}}) {
    Frame f;
    f.Finish(Command(kCopyRows, f.s2, f.s1, f.AddIndexes(v)));
    NnetComputation opt = f.Apply(ReplaceRowWithMatrixOps, false);
    EXPECT_EQ(opt.commands[f.op].command_type, kCopyRows);
    EXPECT_EQ(opt.commands[f.op].arg1, f.s2);
  }
  Frame f;
  f.Finish(Command(kAddRows, f.s2, f.s1, f.AddIndexes({0, 1, 2, -1, 3, 4})));
  f.Apply(ReplaceRowWithMatrixOps, false);
}

// ---- snip-row-ops

TEST(SnipRowOps, AddRows) {
  Frame f;
  f.Finish(Command(kAddRows, f.s2, f.s1, f.AddIndexes({-1, 3, 0, 5, -1, -1})));
  NnetComputation opt = f.Apply(SnipRowOps, true);
  const Command &c = opt.commands[f.op];
  EXPECT_EQ(c.command_type, kAddRows);
  EXPECT_EQ(opt.submatrices[c.arg1], f.Rows(f.s2, 1, 3));
  EXPECT_EQ(c.arg2, f.s1);
  EXPECT_EQ(opt.indexes[c.arg3], std::vector<int32>({3, 0, 5}));
}

TEST(SnipRowOps, CopyRowsAndCopyRowsMultiStay) {
  {
    Frame f;
    f.Finish(Command(kCopyRows, f.s2, f.s1,
                     f.AddIndexes({-1, 3, 0, 5, -1, -1})));
    f.Apply(SnipRowOps, false);
  }
  {
    Frame f;
    Pairs p(kRows, std::make_pair(-1, -1));
    p[2] = std::make_pair(f.s1, 4);
    f.Finish(Command(kCopyRowsMulti, f.s2, f.AddMulti(p)));
    f.Apply(SnipRowOps, false);
  }
  {
    Frame f;
    f.Finish(Command(kAddRows, f.s2, f.s1, f.AddIndexes({1, -1, 0, -1, 5, 2})));
    f.Apply(SnipRowOps, false);
  }
}

TEST(SnipRowOps, AddRowsMulti) {
  Frame f;
  Pairs p = {{-1, -1}, {f.s1, 0}, {f.s3, 2}, {-1, -1}, {f.s1, 1}, {-1, -1}};
  f.Finish(Command(kAddRowsMulti, f.s2, f.AddMulti(p)));
  NnetComputation opt = f.Apply(SnipRowOps, true);
  const Command &c = opt.commands[f.op];
  EXPECT_EQ(c.command_type, kAddRowsMulti);
  EXPECT_EQ(opt.submatrices[c.arg1], f.Rows(f.s2, 1, 4));
  EXPECT_EQ(opt.indexes_multi[c.arg2],
            Pairs({{f.s1, 0}, {f.s3, 2}, {-1, -1}, {f.s1, 1}}));
}

TEST(SnipRowOps, AddToRowsMultiAndCopyToRowsMulti) {
  for (CommandType t : {kAddToRowsMulti, kCopyToRowsMulti}) {
    Frame f;
    Pairs p = {{-1, -1}, {f.s2, 4}, {f.s2, 0}, {-1, -1}, {-1, -1}, {-1, -1}};
    f.Finish(Command(0.5, t, f.s1, f.AddMulti(p)));
    NnetComputation opt = f.Apply(SnipRowOps, true);
    const Command &c = opt.commands[f.op];
    EXPECT_EQ(c.command_type, t);
    EXPECT_EQ(opt.submatrices[c.arg1], f.Rows(f.s1, 1, 2));
    EXPECT_EQ(opt.indexes_multi[c.arg2], Pairs({{f.s2, 4}, {f.s2, 0}}));
  }
}

TEST(SnipRowOps, AddRowRanges) {
  Frame f;
  Pairs r = {{0, 0}, {1, 3}, {2, 2}, {0, 6}, {3, 3}, {4, 4}};
  f.Finish(Command(kAddRowRanges, f.s2, f.s1, f.AddRanges(r)));
  NnetComputation opt = f.Apply(SnipRowOps, true);
  const Command &c = opt.commands[f.op];
  EXPECT_EQ(c.command_type, kAddRowRanges);
  EXPECT_EQ(opt.submatrices[c.arg1], f.Rows(f.s2, 1, 3));
  EXPECT_EQ(c.arg2, f.s1);
  EXPECT_EQ(opt.indexes_ranges[c.arg3], Pairs({{1, 3}, {2, 2}, {0, 6}}));
}

TEST(SnipRowOps, NothingToSnipOrNothingLeft) {
  {
    Frame f;
    f.Finish(Command(kAddRowRanges, f.s2, f.s1,
                     f.AddRanges(Pairs(kRows, std::make_pair(1, 2)))));
    f.Apply(SnipRowOps, false);
  }
  {
    Frame f;
    f.Finish(Command(kAddRowsMulti, f.s2,
                     f.AddMulti(Pairs(kRows, std::make_pair(-1, -1)))));
    NnetComputation opt = f.Apply(SnipRowOps, true);
    EXPECT_EQ(opt.commands[f.op].command_type, kNoOperation);
  }
}

// ---- split-row-ops

TEST(SplitRowOps, AddRowsMultiIntoMatrixAddAndAddRows) {
  Frame f;
  Pairs p = {{f.s1, 0}, {f.s1, 1}, {f.s1, 2}, {f.s3, 5}, {f.s3, 3}, {f.s3, 4}};
  f.Finish(Command(0.5, kAddRowsMulti, f.s2, f.AddMulti(p)));
  size_t before = f.c.commands.size();
  NnetComputation opt = f.Apply(SplitRowOps, true);
  ASSERT_EQ(opt.commands.size(), before + 1);
  const Command &a = opt.commands[f.op], &b = opt.commands[f.op + 1];
  EXPECT_EQ(a.command_type, kMatrixAdd);
  EXPECT_EQ(a.alpha, 0.5f);
  EXPECT_EQ(opt.submatrices[a.arg1], f.Rows(f.s2, 0, 3));
  EXPECT_EQ(opt.submatrices[a.arg2], f.Rows(f.s1, 0, 3));
  EXPECT_EQ(b.command_type, kAddRows);
  EXPECT_EQ(b.alpha, 0.5f);
  EXPECT_EQ(opt.submatrices[b.arg1], f.Rows(f.s2, 3, 3));
  EXPECT_EQ(opt.submatrices[b.arg2], f.Rows(f.s3, 3, 3));
  EXPECT_EQ(opt.indexes[b.arg3], std::vector<int32>({2, 0, 1}));
  EXPECT_EQ(opt.commands[f.op + 2].command_type, kDeallocMatrix);
}

TEST(SplitRowOps, CopyRowsMultiFromOneSubmatrix) {
  Frame f;
  Pairs p = {{f.s3, 1}, {f.s3, 2}, {f.s3, 3}, {f.s3, 4}, {f.s3, 5}, {f.s3, 0}};
  f.Finish(Command(kCopyRowsMulti, f.s2, f.AddMulti(p)));
  NnetComputation opt = f.Apply(SplitRowOps, true);
  ASSERT_EQ(opt.commands.size(), f.c.commands.size());
  const Command &a = opt.commands[f.op];
  EXPECT_EQ(a.command_type, kCopyRows);
  EXPECT_EQ(a.arg1, f.s2);
  EXPECT_EQ(a.arg2, f.s3);
  EXPECT_EQ(opt.indexes[a.arg3], std::vector<int32>({1, 2, 3, 4, 5, 0}));
}

TEST(SplitRowOps, AddToRowsMultiIsInverted) {
  Frame f;
  Pairs p = {{f.s2, 1}, {f.s2, 2}, {f.s2, 3}, {f.s2, 4}, {f.s2, 5}, {f.s2, 0}};
  f.Finish(Command(kAddToRowsMulti, f.s1, f.AddMulti(p)));
  NnetComputation opt = f.Apply(SplitRowOps, true);
  const Command &a = opt.commands[f.op];
  EXPECT_EQ(a.command_type, kAddRows);
  EXPECT_EQ(a.arg1, f.s2);
  EXPECT_EQ(a.arg2, f.s1);
  EXPECT_EQ(opt.indexes[a.arg3], std::vector<int32>({5, 0, 1, 2, 3, 4}));
}

TEST(SplitRowOps, CopyToRowsMultiIntoTwoMatrixCopies) {
  Frame f;
  int32 top = f.c.NewSubMatrix(f.s2, 0, 3, 0, -1),
        bottom = f.c.NewSubMatrix(f.s2, 3, 3, 0, -1);
  Pairs p = {{bottom, 0}, {bottom, 1}, {bottom, 2},
             {top, 1}, {top, 2}};
  int32 part = f.c.NewSubMatrix(f.s1, 1, 5, 0, -1);
  f.Finish(Command(kCopyToRowsMulti, part, f.AddMulti(p)));
  NnetComputation opt = f.Apply(SplitRowOps, true);
  const Command &a = opt.commands[f.op], &b = opt.commands[f.op + 1];
  EXPECT_EQ(a.command_type, kMatrixCopy);
  EXPECT_EQ(a.arg1, bottom);
  EXPECT_EQ(opt.submatrices[a.arg2], f.Rows(f.s1, 1, 3));
  EXPECT_EQ(b.command_type, kMatrixCopy);
  EXPECT_EQ(opt.submatrices[b.arg1], f.Rows(f.s2, 1, 2));
  EXPECT_EQ(opt.submatrices[b.arg2], f.Rows(f.s1, 4, 2));
}

TEST(SplitRowOps, UnsplittableCommandsStay) {
  auto expect_unchanged = [](Frame *f, const Command &command) {
    f->Finish(command);
    NnetComputation opt = f->Apply(SplitRowOps, false);
    EXPECT_EQ(opt.commands.size(), f->c.commands.size());
    EXPECT_EQ(opt.commands[f->op].command_type, command.command_type);
  };
  {  // three submatrices
    Frame f;
    int32 s4 = f.c.NewSubMatrix(f.s3, 0, 3, 0, -1);
    Pairs p = {{f.s1, 0}, {f.s1, 1}, {f.s3, 0}, {f.s3, 1}, {s4, 0}, {s4, 1}};
    expect_unchanged(&f, Command(kAddRowsMulti, f.s2, f.AddMulti(p)));
  }
  {  // a (-1,-1) pair
    Frame f;
    Pairs p = {{f.s1, 0}, {f.s1, 1}, {f.s1, 2}, {-1, -1}, {f.s1, 4}, {f.s1, 5}};
    expect_unchanged(&f, Command(kCopyRowsMulti, f.s2, f.AddMulti(p)));
  }
  {  // rows spread over more than twice the block's length
    Frame f;
    Pairs p = {{f.s1, 0}, {f.s1, 5}, {f.s3, 0}, {f.s3, 1}, {f.s3, 2},
               {f.s3, 3}};
    expect_unchanged(&f, Command(kAddRowsMulti, f.s2, f.AddMulti(p)));
  }
  {  // non-consecutive copy into rows
    Frame f;
    Pairs p = {{f.s2, 1}, {f.s2, 0}, {f.s2, 2}, {f.s2, 3}, {f.s2, 4},
               {f.s2, 5}};
    expect_unchanged(&f, Command(kCopyToRowsMulti, f.s1, f.AddMulti(p)));
  }
}

// ---------------------------------------------------------------------------
// Random networks

void ExpectSameResults(const Nnet &nnet, const ComputationRequest &request,
                       const std::vector<Matrix<BaseFloat> > &inputs,
                       const std::vector<Matrix<BaseFloat> > &output_derivs,
                       const NnetComputation &a, const NnetComputation &b) {
  Nnet delta_a = MakeGradientNnet(nnet), delta_b = MakeGradientNnet(nnet);
  ComputationResults ra, rb;
  bool model = request.need_model_derivative;
  RunComputationForTest(nnet, request, a, inputs, output_derivs,
                        model ? &delta_a : nullptr, &ra);
  RunComputationForTest(nnet, request, b, inputs, output_derivs,
                        model ? &delta_b : nullptr, &rb);
  ASSERT_EQ(ra.outputs.size(), rb.outputs.size());
  for (size_t o = 0; o < ra.outputs.size(); o++)
    ASSERT_LE(RelativeDifference(ra.outputs[o], rb.outputs[o]), 1e-5)
        << "output " << request.outputs[o].name;
  ASSERT_EQ(ra.input_derivs.size(), rb.input_derivs.size());
  for (size_t i = 0; i < ra.input_derivs.size(); i++) {
    if (request.inputs[i].has_deriv) {
      ASSERT_LE(RelativeDifference(ra.input_derivs[i], rb.input_derivs[i]),
                1e-5)
          << "derivative of input " << request.inputs[i].name;
    }
  }
  if (model) {
    ASSERT_LE(ParameterDifference(delta_a, delta_b), 1e-5)
        << "parameter gradient";
  }
}

// Commands at the same position that differ (for passes that keep
// positions).
int32 CountDifferent(const NnetComputation &a, const NnetComputation &b) {
  int32 n = 0;
  for (size_t i = 0; i < a.commands.size(); i++) {
    const Command &x = a.commands[i], &y = b.commands[i];
    if (x.command_type != y.command_type || x.arg1 != y.arg1 ||
        x.arg2 != y.arg2 || x.arg3 != y.arg3)
      n++;
  }
  return n;
}

int32 CountMulti(const NnetComputation &c) {
  int32 n = 0;
  for (const Command &x : c.commands)
    if (x.command_type == kAddRowsMulti || x.command_type == kCopyRowsMulti ||
        x.command_type == kAddToRowsMulti ||
        x.command_type == kCopyToRowsMulti)
      n++;
  return n;
}

TEST(RowOps, RandomNetworksGiveTheSameResults) {
  const int32 num_seeds = 150;
  int32 num_replaced = 0, num_snipped = 0, num_split = 0,
        num_changed_computations = 0, num_multi = 0;
  for (int32 seed = 1; seed <= num_seeds; seed++) {
    RandomSource rng(7300 + seed);
    RandomBackwardCase c;
    GenerateRandomBackwardCase(&rng, seed % 3 != 0, (seed % 2 == 0), &c);
    SCOPED_TRACE("seed " + std::to_string(seed) + " " + c.trace);
    const Nnet &nnet = c.nnet;
    const ComputationRequest &request = c.request;
    const std::vector<Matrix<BaseFloat> > &inputs = c.inputs;

    NnetComputation raw;
    CompileComputation(nnet, request, CompilerOptions(), &raw);
    std::vector<Matrix<BaseFloat> > output_derivs;
    RandomOutputDerivs(nnet, request, &rng, &output_derivs);

    NnetComputation opt(raw);
    NnetComputation step(opt);
    bool changed = false;
    num_multi += CountMulti(raw);
    if (SnipRowOps(&opt)) changed = true;
    num_snipped += CountDifferent(step, opt);
    step = opt;
    if (SplitRowOps(&opt)) changed = true;
    num_split += CountMulti(step) - CountMulti(opt);
    step = opt;
    if (ReplaceRowWithMatrixOps(&opt)) changed = true;
    num_replaced += CountDifferent(step, opt);
    if (changed) num_changed_computations++;
    Tidy(&opt);
    ASSERT_NO_THROW(CheckComputation(nnet, opt, false))
        << ToString(raw, nnet) << "\n--- became ---\n" << ToString(opt, nnet);
    ExpectSameResults(nnet, request, inputs, output_derivs, raw, opt);
    if (::testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << ToString(raw, nnet) << "\n--- became ---\n"
                    << ToString(opt, nnet);
      return;
    }

    // The rest of the optimizer copes with the rewritten commands.
    int32 max_t = 0;
    for (const IoSpecification &o : request.outputs)
      for (const Index &index : o.indexes) max_t = std::max(max_t, index.t);
    Optimize(NnetOptimizeOptions(), nnet, max_t, &opt);
    ASSERT_NO_THROW(CheckComputation(nnet, opt, false)) << ToString(opt, nnet);
    ExpectSameResults(nnet, request, inputs, output_derivs, raw, opt);
    if (::testing::Test::HasFatalFailure()) {
      ADD_FAILURE() << "after Optimize: " << ToString(opt, nnet);
      return;
    }
  }
  std::cout << "row ops: " << num_changed_computations << " of " << num_seeds
            << " computations changed; " << num_split << " of " << num_multi
            << " multi-row commands split, " << num_snipped
            << " commands snipped, " << num_replaced
            << " row commands replaced by matrix ops or removed\n";
  EXPECT_GT(num_changed_computations, 0);
}

}  // namespace
}  // namespace nnet3
