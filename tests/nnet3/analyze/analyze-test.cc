// tests/nnet3/analyze/analyze-test.cc
// The analysis (analyze.h) on hand-built computations whose variables,
// command attributes, variable and matrix accesses and query answers are
// worked out by hand below; GetMaxMemoryUse on hand-built command
// sequences; the helpers GetCommandsOfType and ComputeMatrixToSubmatrix.
#include <gtest/gtest.h>

#include "base/log.h"
#include "nnet3/analyze/analyze.h"
#include "nnet3/analyze/checker.h"
#include "nnet3/testing/random-nnet.h"

namespace nnet3 {
namespace {

typedef NnetComputation::Command Cmd;

// input (10) -> affine (10 -> 20) -> tanh (20) -> output.
Nnet SmallNnet() {
  return NnetFromConfigString(
      "input-node name=input dim=10\n"
      "component name=affine type=AffineComponent input-dim=10 "
      "output-dim=20\n"
      "component-node name=affine component=affine input=input\n"
      "component name=tanh type=TanhComponent dim=20\n"
      "component-node name=tanh component=tanh input=affine\n"
      "output-node name=output input=tanh\n");
}

std::vector<Access> Accesses(
    std::initializer_list<std::pair<int32, AccessType> > list) {
  std::vector<Access> ans;
  for (const auto &p : list) ans.push_back(Access(p.first, p.second));
  return ans;
}

// Matrices and submatrices of the main example:
//   m1 (4 x 20): s1 = whole, s2 = rows 0..3 cols 0..9, s3 = rows 0..3
//                cols 10..19, s4 = row 2 cols 0..19
//   m2 (4 x 10): s5 = whole (the input)
//   m3 (4 x 20): s6 = whole (the output)
// Row split points of m1 are {0, 2, 3, 4}, column split points {0, 10, 20},
// so m1 has 3 x 2 variables:
//   v0 = rows 0-1 cols 0-9,  v1 = rows 0-1 cols 10-19,
//   v2 = row 2 cols 0-9,     v3 = row 2 cols 10-19,
//   v4 = row 3 cols 0-9,     v5 = row 3 cols 10-19;
// m2 is v6 and m3 is v7.
//   s1 -> v0..v5, s2 -> {v0, v2, v4}, s3 -> {v1, v3, v5}, s4 -> {v2, v3}.
struct Example {
  Nnet nnet = SmallNnet();
  NnetComputation computation;
  Example() {
    NnetComputation &c = computation;
    int32 s1 = c.NewMatrix(4, 20);
    EXPECT_EQ(s1, 1);
    EXPECT_EQ(c.NewSubMatrix(s1, 0, 4, 0, 10), 2);
    EXPECT_EQ(c.NewSubMatrix(s1, 0, 4, 10, 10), 3);
    EXPECT_EQ(c.NewSubMatrix(s1, 2, 1, 0, 20), 4);
    EXPECT_EQ(c.NewMatrix(4, 10), 5);
    EXPECT_EQ(c.NewMatrix(4, 20), 6);
    c.indexes.push_back({0, -1, 2, 3});
    int32 input = 0, output = 0;
    for (int32 n = 0; n < nnet.NumNodes(); n++) {
      if (nnet.GetNodeName(n) == "input") input = n;
      if (nnet.GetNodeName(n) == "output") output = n;
    }
    int32 tanh = nnet.GetComponentIndex("tanh");
    c.commands = {
        Cmd(kAllocMatrix, 1),                  // c0
        Cmd(kAllocMatrix, 6),                  // c1
        Cmd(0.0, kSetConst, 1),                // c2
        Cmd(kAcceptInput, 5, input),           // c3
        Cmd(kMatrixCopy, 2, 5),                // c4
        Cmd(kMatrixAdd, 3, 5),                 // c5
        Cmd(1.0, kSetConst, 4),                // c6
        Cmd(kCopyRows, 2, 5, 0),               // c7 (has a -1 index)
        Cmd(kPropagate, tanh, 0, 1, 6, 0, 0),  // c8
        Cmd(kProvideOutput, 6, output),        // c9
        Cmd(kNoOperationMarker),               // c10
        Cmd(kDeallocMatrix, 1)};               // c11
  }
};

TEST(ComputationVariables, SplitsAndDescriptions) {
  Example ex;
  ComputationVariables vars;
  vars.Init(ex.computation);
  ASSERT_EQ(vars.NumVariables(), 8);
  std::vector<int32> v;
  vars.AppendVariablesForSubmatrix(1, &v);
  EXPECT_EQ(v, std::vector<int32>({0, 1, 2, 3, 4, 5}));
  v.clear();
  vars.AppendVariablesForSubmatrix(2, &v);
  EXPECT_EQ(v, std::vector<int32>({0, 2, 4}));
  v.clear();
  vars.AppendVariablesForSubmatrix(3, &v);
  EXPECT_EQ(v, std::vector<int32>({1, 3, 5}));
  v.clear();
  vars.AppendVariablesForSubmatrix(4, &v);
  EXPECT_EQ(v, std::vector<int32>({2, 3}));
  v.clear();
  vars.AppendVariablesForSubmatrix(5, &v);
  EXPECT_EQ(v, std::vector<int32>({6}));
  v.clear();
  vars.AppendVariablesForMatrix(1, &v);
  vars.AppendVariablesForMatrix(3, &v);
  EXPECT_EQ(v, std::vector<int32>({0, 1, 2, 3, 4, 5, 7}));
  v.clear();
  vars.AppendVariablesForSubmatrix(0, &v);
  EXPECT_TRUE(v.empty());

  EXPECT_EQ(vars.GetMatrixForVariable(0), 1);
  EXPECT_EQ(vars.GetMatrixForVariable(5), 1);
  EXPECT_EQ(vars.GetMatrixForVariable(6), 2);
  EXPECT_EQ(vars.GetMatrixForVariable(7), 3);
  EXPECT_EQ(vars.DescribeVariable(0), "m1(0:1, 0:9)");
  EXPECT_EQ(vars.DescribeVariable(3), "m1(2:2, 10:19)");
  EXPECT_EQ(vars.DescribeVariable(5), "m1(3:3, 10:19)");
  EXPECT_EQ(vars.DescribeVariable(6), "m2");
  EXPECT_TRUE(vars.GetVariableInfo(3) ==
              NnetComputation::SubMatrixInfo(1, 2, 1, 10, 10));
  EXPECT_TRUE(vars.GetVariableInfo(7) ==
              NnetComputation::SubMatrixInfo(3, 0, 4, 0, 20));
  EXPECT_TRUE(vars.SubmatrixIsWholeMatrix(1));
  EXPECT_FALSE(vars.SubmatrixIsWholeMatrix(2));
  EXPECT_TRUE(vars.SubmatrixIsWholeMatrix(5));
}

TEST(ComputationVariables, OnlyRowsOrOnlyColumnsSplit) {
  NnetComputation c;
  int32 s1 = c.NewMatrix(6, 4);
  c.NewSubMatrix(s1, 0, 3, 0, 4);  // rows split at 3 only
  int32 s3 = c.NewMatrix(2, 8);
  c.NewSubMatrix(s3, 0, 2, 5, 3);  // columns split at 5 only
  ComputationVariables vars;
  vars.Init(c);
  ASSERT_EQ(vars.NumVariables(), 4);
  EXPECT_EQ(vars.DescribeVariable(0), "m1(0:2, :)");
  EXPECT_EQ(vars.DescribeVariable(1), "m1(3:5, :)");
  EXPECT_EQ(vars.DescribeVariable(2), "m2(:, 0:4)");
  EXPECT_EQ(vars.DescribeVariable(3), "m2(:, 5:7)");
}

TEST(Analyzer, CommandAttributesByHand) {
  Example ex;
  Analyzer a;
  a.Init(ex.nnet, ex.computation);
  const std::vector<CommandAttributes> &at = a.command_attributes;
  ASSERT_EQ(at.size(), 12u);
  typedef std::vector<int32> V;
  // Sizing commands touch nothing.
  for (int32 c : {0, 1, 10, 11}) {
    EXPECT_TRUE(at[c].variables_read.empty() &&
                at[c].variables_written.empty() &&
                at[c].matrices_read.empty() && at[c].matrices_written.empty())
        << "c" << c;
  }
  // c2: zero the whole of m1.
  EXPECT_EQ(at[2].variables_written, V({0, 1, 2, 3, 4, 5}));
  EXPECT_TRUE(at[2].variables_read.empty());
  EXPECT_EQ(at[2].matrices_written, V({1}));
  EXPECT_TRUE(at[2].matrices_read.empty());
  // c3: accept the input.
  EXPECT_EQ(at[3].variables_written, V({6}));
  EXPECT_EQ(at[3].submatrices_written, V({5}));
  // c4: s2 = s5; a partial write is a read of the matrix.
  EXPECT_EQ(at[4].variables_read, V({6}));
  EXPECT_EQ(at[4].variables_written, V({0, 2, 4}));
  EXPECT_EQ(at[4].submatrices_read, V({5}));
  EXPECT_EQ(at[4].submatrices_written, V({2}));
  EXPECT_EQ(at[4].matrices_read, V({1, 2}));
  EXPECT_EQ(at[4].matrices_written, V({1}));
  // c5: s3 += s5.
  EXPECT_EQ(at[5].variables_read, V({1, 3, 5, 6}));
  EXPECT_EQ(at[5].variables_written, V({1, 3, 5}));
  // c6: s4 = 1.
  EXPECT_TRUE(at[6].variables_read.empty());
  EXPECT_EQ(at[6].variables_written, V({2, 3}));
  EXPECT_EQ(at[6].matrices_read, V({1}));
  // c7: copy-rows with a -1: read-write of the destination.
  EXPECT_EQ(at[7].variables_read, V({0, 2, 4, 6}));
  EXPECT_EQ(at[7].variables_written, V({0, 2, 4}));
  // c8: tanh propagate m1 -> m3.
  EXPECT_EQ(at[8].variables_read, V({0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(at[8].variables_written, V({7}));
  EXPECT_EQ(at[8].matrices_read, V({1}));
  EXPECT_EQ(at[8].matrices_written, V({3}));
  EXPECT_FALSE(at[8].has_side_effects);
  // c9: provide the output.
  EXPECT_EQ(at[9].variables_read, V({7}));
  EXPECT_TRUE(at[9].variables_written.empty());
}

TEST(Analyzer, VariableAndMatrixAccessesByHand) {
  Example ex;
  Analyzer a;
  a.Init(ex.nnet, ex.computation);
  const AccessType r = kReadAccess, w = kWriteAccess, rw = kReadWriteAccess;
  const std::vector<std::vector<Access> > &va = a.variable_accesses;
  ASSERT_EQ(va.size(), 8u);
  EXPECT_EQ(va[0], Accesses({{2, w}, {4, w}, {7, rw}, {8, r}}));
  EXPECT_EQ(va[1], Accesses({{2, w}, {5, rw}, {8, r}}));
  EXPECT_EQ(va[2], Accesses({{2, w}, {4, w}, {6, w}, {7, rw}, {8, r}}));
  EXPECT_EQ(va[3], Accesses({{2, w}, {5, rw}, {6, w}, {8, r}}));
  EXPECT_EQ(va[4], Accesses({{2, w}, {4, w}, {7, rw}, {8, r}}));
  EXPECT_EQ(va[5], Accesses({{2, w}, {5, rw}, {8, r}}));
  EXPECT_EQ(va[6], Accesses({{3, w}, {4, r}, {5, r}, {7, r}}));
  EXPECT_EQ(va[7], Accesses({{8, w}, {9, r}}));

  const std::vector<MatrixAccesses> &ma = a.matrix_accesses;
  ASSERT_EQ(ma.size(), 4u);
  EXPECT_EQ(ma[1].allocate_command, 0);
  EXPECT_EQ(ma[1].deallocate_command, 11);
  EXPECT_FALSE(ma[1].is_input || ma[1].is_output);
  EXPECT_EQ(ma[1].accesses,
            Accesses({{2, w}, {4, rw}, {5, rw}, {6, rw}, {7, rw}, {8, r}}));
  EXPECT_EQ(ma[2].allocate_command, 3);  // kAcceptInput allocates
  EXPECT_EQ(ma[2].deallocate_command, -1);
  EXPECT_TRUE(ma[2].is_input);
  EXPECT_FALSE(ma[2].is_output);
  EXPECT_EQ(ma[2].accesses, Accesses({{3, w}, {4, r}, {5, r}, {7, r}}));
  EXPECT_EQ(ma[3].allocate_command, 1);
  EXPECT_EQ(ma[3].deallocate_command, -1);
  EXPECT_TRUE(ma[3].is_output);
  EXPECT_EQ(ma[3].accesses, Accesses({{8, w}, {9, r}}));

  // The example is a valid computation (with and without the rewrite
  // check: no variable is written after a pure read).
  CheckComputation(ex.nnet, ex.computation, false);
  CheckComputation(ex.nnet, ex.computation, true);
}

TEST(ComputationAnalysis, QueriesByHand) {
  Example ex;
  Analyzer a;
  a.Init(ex.nnet, ex.computation);
  ComputationAnalysis an(ex.computation, a);
  // c2 only zeroes m1, so it is a trivial access.
  EXPECT_EQ(an.FirstAccess(1), 2);
  EXPECT_EQ(an.FirstNontrivialAccess(1), 4);
  EXPECT_EQ(an.FirstNontrivialAccess(3), 5);
  EXPECT_EQ(an.FirstNontrivialAccess(4), 4);
  EXPECT_EQ(an.FirstNontrivialAccess(6), 8);
  EXPECT_EQ(an.FirstAccess(5), 3);
  EXPECT_EQ(an.LastAccess(2), 8);
  EXPECT_EQ(an.LastAccess(5), 7);
  EXPECT_EQ(an.LastWriteAccess(3), 6);
  EXPECT_EQ(an.LastWriteAccess(2), 7);
  EXPECT_EQ(an.LastWriteAccess(5), 3);
  EXPECT_EQ(an.LastWriteAccess(6), 12);  // an output: "written" at the end
  EXPECT_EQ(an.DataInvalidatedCommand(4, 3), 5);
  EXPECT_EQ(an.DataInvalidatedCommand(4, 2), 6);  // c6 writes row 2
  EXPECT_EQ(an.DataInvalidatedCommand(7, 2), 11);  // freed at c11
  EXPECT_EQ(an.DataInvalidatedCommand(3, 5), 12);  // never again
  EXPECT_EQ(an.FirstNontrivialMatrixAccess(1), 4);
  EXPECT_EQ(an.FirstNontrivialMatrixAccess(2), 3);
  EXPECT_EQ(an.LastMatrixAccess(1), 8);
  EXPECT_EQ(an.LastMatrixAccess(2), 7);
  EXPECT_EQ(an.LastMatrixAccess(3), 9);
}

TEST(Analyzer, MultiRangeCompressAndBackpropAttributes) {
  Nnet nnet = SmallNnet();
  int32 affine = nnet.GetComponentIndex("affine"),
        tanh = nnet.GetComponentIndex("tanh");
  NnetComputation c;
  c.NewMatrix(4, 10);   // s1 = m1
  c.NewMatrix(2, 10);   // s2 = m2
  c.NewMatrix(2, 10);   // s3 = m3
  c.NewMatrix(4, 20);   // s4 = m4
  c.NewMatrix(4, 20);   // s5 = m5
  c.indexes_multi.push_back({{2, 0}, {-1, -1}, {3, 1}, {2, 1}});
  c.indexes_ranges.push_back({{0, 2}, {-1, -1}});
  c.commands = {Cmd(kAddRowsMulti, 1, 0),        // c0
                Cmd(kCopyRowsMulti, 1, 0),       // c1
                Cmd(kCopyToRowsMulti, 1, 0),     // c2
                Cmd(kAddToRowsMulti, 1, 0),      // c3
                Cmd(kAddRowRanges, 2, 1, 0),     // c4
                Cmd(kCompressMatrix, 1, 1, 0),   // c5
                Cmd(kDecompressMatrix, 1),       // c6
                Cmd(kBackprop, affine, 0, 1, 0, 4, 0, 0),               // c7
                Cmd(kBackpropNoModelUpdate, affine, 0, 1, 0, 4, 0, 0),  // c8
                Cmd(kBackprop, tanh, 0, 0, 5, 4, 5, 0),                 // c9
                Cmd(kSwapMatrix, 2, 3)};                                // c10
  Analyzer a;
  a.Init(nnet, c);
  typedef std::vector<int32> V;
  const std::vector<CommandAttributes> &at = a.command_attributes;
  // Variables are the matrices here: v0 = m1, ..., v4 = m5.
  EXPECT_EQ(at[0].variables_read, V({0, 1, 2}));
  EXPECT_EQ(at[0].variables_written, V({0}));
  EXPECT_EQ(at[1].variables_read, V({1, 2}));
  EXPECT_EQ(at[1].variables_written, V({0}));
  EXPECT_EQ(at[1].matrices_read, V({2, 3}));
  EXPECT_EQ(at[2].variables_read, V({0, 1, 2}));
  EXPECT_EQ(at[2].variables_written, V({1, 2}));
  EXPECT_EQ(at[3].variables_read, V({0, 1, 2}));
  EXPECT_EQ(at[3].variables_written, V({1, 2}));
  EXPECT_EQ(at[4].variables_read, V({0, 1}));
  EXPECT_EQ(at[4].variables_written, V({1}));
  EXPECT_EQ(at[5].variables_read, V({0}));
  EXPECT_EQ(at[5].variables_written, V({0}));
  EXPECT_TRUE(at[6].variables_read.empty());
  EXPECT_EQ(at[6].variables_written, V({0}));
  // Backprop with no input-derivative: reads only.
  EXPECT_EQ(at[7].variables_read, V({0, 3}));
  EXPECT_TRUE(at[7].variables_written.empty());
  EXPECT_TRUE(at[7].has_side_effects);  // updates the affine component
  EXPECT_FALSE(at[8].has_side_effects);
  // tanh backprop: reads out-value (m5) and out-deriv (m4), writes in-deriv
  // (m5, which is also read, as out-value).
  EXPECT_EQ(at[9].variables_read, V({3, 4}));
  EXPECT_EQ(at[9].variables_written, V({4}));
  EXPECT_FALSE(at[9].has_side_effects);
  EXPECT_TRUE(at[10].variables_read.empty() &&
              at[10].variables_written.empty());
  // The swap: m2 begins (is allocated) and m3 ends there.
  EXPECT_EQ(a.matrix_accesses[2].allocate_command, 10);
  EXPECT_EQ(a.matrix_accesses[3].deallocate_command, 10);
}

TEST(Analyzer, AllocatedTwiceIsAnError) {
  Nnet nnet = SmallNnet();
  NnetComputation c;
  c.NewMatrix(2, 10);
  c.commands = {Cmd(kAllocMatrix, 1), Cmd(kAllocMatrix, 1)};
  Analyzer a;
  try {
    a.Init(nnet, c);
    FAIL() << "no error";
  } catch (const UserError &e) {
    EXPECT_NE(std::string(e.what()).find("command c1 (kAllocMatrix)"),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("allocated twice"), std::string::npos)
        << e.what();
  }
}

TEST(GetMaxMemoryUse, HandBuiltSequences) {
  Example ex;
  // m1 = 4x20 (320 bytes), m3 = 4x20 (320), m2 = 4x10 (160, accepted at c3);
  // all three are live after c3; m1 is freed at c11.
  EXPECT_EQ(GetMaxMemoryUse(ex.computation),
            static_cast<int64>(sizeof(BaseFloat)) * (80 + 80 + 40));

  NnetComputation c;
  c.NewMatrix(10, 10);  // s1, 100 elements
  c.NewMatrix(5, 10);   // s2, 50 elements
  c.NewMatrix(5, 10);   // s3, 50 elements
  c.commands = {Cmd(kAllocMatrix, 1),    // 100
                Cmd(kDeallocMatrix, 1),  // 0
                Cmd(kAllocMatrix, 2),    // 50
                Cmd(kAllocMatrix, 3),    // 100
                Cmd(kSwapMatrix, 2, 3),  // 100
                Cmd(kDeallocMatrix, 3)}; // 50
  EXPECT_EQ(GetMaxMemoryUse(c), static_cast<int64>(sizeof(BaseFloat)) * 100);
  // With compression (int8: 1 byte per element).
  c.commands = {Cmd(kAllocMatrix, 1),          // 400 bytes
                Cmd(kCompressMatrix, 1, 1, 0),  // 100
                Cmd(kAllocMatrix, 2),          // 300
                Cmd(kAllocMatrix, 3),          // 500
                Cmd(kDecompressMatrix, 1)};    // 800
  c.commands[1].alpha = 10.0;
  int64 f = static_cast<int64>(sizeof(BaseFloat));
  EXPECT_EQ(GetMaxMemoryUse(c), 100 * f + 2 * 50 * f);
  c.commands.clear();
  EXPECT_EQ(GetMaxMemoryUse(c), 0);
}

TEST(Helpers, CommandsOfTypeAndMatrixToSubmatrix) {
  Example ex;
  std::vector<int32> cmds;
  GetCommandsOfType(ex.computation, kAllocMatrix, &cmds);
  EXPECT_EQ(cmds, std::vector<int32>({0, 1}));
  GetCommandsOfType(ex.computation, kSetConst, &cmds);
  EXPECT_EQ(cmds, std::vector<int32>({2, 6}));
  GetCommandsOfType(ex.computation, kBackprop, &cmds);
  EXPECT_TRUE(cmds.empty());
  std::vector<std::vector<int32> > m2s;
  ComputeMatrixToSubmatrix(ex.computation, &m2s);
  ASSERT_EQ(m2s.size(), 4u);
  EXPECT_TRUE(m2s[0].empty());
  EXPECT_EQ(m2s[1], std::vector<int32>({1, 2, 3, 4}));
  EXPECT_EQ(m2s[2], std::vector<int32>({5}));
  EXPECT_EQ(m2s[3], std::vector<int32>({6}));
  EXPECT_EQ(DescribeCommand(ex.computation, 8), "c8 (kPropagate)");
}

}  // namespace
}  // namespace nnet3
