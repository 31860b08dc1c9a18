// tests/nnet3/optimize/extend-matrices-test.cc
// extend-matrices (extend-matrices.h) on hand-built computations over an
// identity network: input m1 (10 rows) is copied, leading rows only, into
// the tail of m2; m2 is copied into the output m3. Checks that a qualifying
// copy is widened to the whole of m1 with m2 grown to fit (allocation,
// zeroing and debug info following it), that the checker accepts the result
// and the output is unchanged; and that copies which do not qualify (too
// few source rows, destination not ending at its last row, destination used
// for output, scaled copy) are left alone. The differential optimizer test
// (optimize-test) covers the pass on random networks.
#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include "nnet3/analyze/checker.h"
#include "nnet3/optimize/extend-matrices.h"
#include "nnet3/testing/computation-runner.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

typedef NnetComputation::Command Command;
typedef NnetComputation::SubMatrixInfo SubMatrixInfo;

const int32 kInRows = 10, kMidRows = 12, kCols = 3;

struct Case {
  Nnet nnet;
  NnetComputation c;
  int32 s1, s2, s3 = -1, copy = -1;
  // src_rows leading rows of m1 go to rows [dest_offset, dest_offset +
  // src_rows) of m2 with scale alpha; if output_from_m2, m2 itself is the
  // output (and there is no m3).
  Case(int32 src_rows, int32 dest_offset, BaseFloat alpha,
       bool output_from_m2 = false)
      : nnet(NnetFromConfigString("input-node name=input dim=3\n"
                                  "output-node name=output input=input\n")) {
    s1 = c.NewMatrix(kInRows, kCols);
    s2 = c.NewMatrix(kMidRows, kCols);
    if (!output_from_m2) s3 = c.NewMatrix(kMidRows, kCols);
    int32 src = c.NewSubMatrix(s1, 0, src_rows, 0, -1);
    int32 dest = c.NewSubMatrix(s2, dest_offset, src_rows, 0, -1);
    int32 in = nnet.GetNodeIndex("input"), out = nnet.GetNodeIndex("output");
    c.commands = {Command(kAcceptInput, s1, in), Command(kAllocMatrix, s2),
                  Command(0.0, kSetConst, s2)};
    copy = static_cast<int32>(c.commands.size());
    c.commands.push_back(Command(alpha, kMatrixCopy, dest, src));
    c.commands.push_back(Command(kDeallocMatrix, s1));
    if (output_from_m2) {
      c.commands.push_back(Command(kProvideOutput, s2, out));
    } else {
      c.commands.push_back(Command(kAllocMatrix, s3));
      c.commands.push_back(Command(kMatrixCopy, s3, s2));
      c.commands.push_back(Command(kDeallocMatrix, s2));
      c.commands.push_back(Command(kProvideOutput, s3, out));
    }
    // Debug info: row r of each matrix is (input, t = r).
    c.matrix_debug_info.resize(c.matrices.size());
    for (size_t m = 1; m < c.matrices.size(); m++)
      for (int32 r = 0; r < c.matrices[m].num_rows; r++)
        c.matrix_debug_info[m].cindexes.push_back(
            Cindex(in, Index(0, r, 0)));
    CheckComputation(nnet, c, false);
  }
  Matrix<BaseFloat> Output(const NnetComputation &computation) const {
    ComputationRequest request;
    request.inputs.push_back(IoSpecification("input", 0, kInRows));
    request.outputs.push_back(IoSpecification("output", 0, kMidRows));
    RandomSource rng(5);
    std::vector<Matrix<BaseFloat> > inputs(
        1, RandomGaussMatrix(kInRows, kCols, &rng));
    ComputationResults results;
    RunComputationForTest(nnet, request, computation, inputs,
                          std::vector<Matrix<BaseFloat> >(1), nullptr,
                          &results);
    return results.outputs[0];
  }
  std::string Print(const NnetComputation &computation) const {
    std::ostringstream os;
    computation.Print(os, nnet);
    return os.str();
  }
};

TEST(ExtendMatrices, WidensCopyOfLeadingRowsIntoTail) {
  // 8 of m1's 10 rows (80%) go to rows 4..11 of m2, its last row.
  Case k(8, 4, 1.0);
  NnetComputation opt(k.c);
  ASSERT_TRUE(ExtendMatrices(&opt));
  EXPECT_NO_THROW(CheckComputation(k.nnet, opt, false)) << k.Print(opt);
  // m2 grew by the two rows m1 has beyond the copied ones.
  int32 m2 = k.c.submatrices[k.s2].matrix_index;
  ASSERT_EQ(opt.matrices.size(), k.c.matrices.size());
  EXPECT_EQ(opt.matrices[m2].num_rows, kMidRows + 2);
  // The copy now takes all of m1 into rows 4..13 of m2.
  const Command &cmd = opt.commands[k.copy];
  EXPECT_EQ(cmd.command_type, kMatrixCopy);
  EXPECT_EQ(opt.submatrices[cmd.arg1], SubMatrixInfo(m2, 4, kInRows, 0, kCols));
  int32 m1 = k.c.submatrices[k.s1].matrix_index;
  EXPECT_EQ(opt.submatrices[cmd.arg2], SubMatrixInfo(m1, 0, kInRows, 0, kCols));
  // Allocation and zeroing of m2 cover the grown matrix.
  EXPECT_TRUE(opt.IsWholeMatrix(opt.commands[1].arg1));
  EXPECT_EQ(opt.submatrices[opt.commands[1].arg1].num_rows, kMidRows + 2);
  EXPECT_TRUE(opt.IsWholeMatrix(opt.commands[2].arg1));
  EXPECT_EQ(opt.submatrices[opt.commands[2].arg1].matrix_index, m2);
  // The added debug-info rows repeat the last rows with t = kNoTime.
  const std::vector<Cindex> &ci = opt.matrix_debug_info[m2].cindexes;
  ASSERT_EQ(ci.size(), static_cast<size_t>(kMidRows + 2));
  EXPECT_EQ(ci[kMidRows].second.t, std::numeric_limits<int32>::min());
  EXPECT_EQ(ci[kMidRows + 1].second.t, std::numeric_limits<int32>::min());
  EXPECT_EQ(ci[kMidRows - 1].second.t, kMidRows - 1);
  // Same output as before.
  EXPECT_LE(RelativeDifference(k.Output(k.c), k.Output(opt)), 1e-7);
}

TEST(ExtendMatrices, LeavesNonQualifyingCopiesAlone) {
  struct Variant {
    const char *what;
    int32 src_rows, dest_offset;
    BaseFloat alpha;
    bool output_from_m2;
  };
  for (const Variant &v : {Variant{"7 of 10 source rows", 7, 5, 1.0, false},
                           Variant{"destination ends early", 8, 2, 1.0, false},
                           Variant{"destination is an output", 8, 4, 1.0, true},
                           Variant{"scaled copy", 8, 4, 2.0, false},
                           Variant{"whole source already", 10, 2, 1.0, false}}) {
    Case k(v.src_rows, v.dest_offset, v.alpha, v.output_from_m2);
    NnetComputation opt(k.c);
    EXPECT_FALSE(ExtendMatrices(&opt)) << v.what;
    EXPECT_EQ(k.Print(opt), k.Print(k.c)) << v.what;
  }
}

}  // namespace
}  // namespace nnet3
