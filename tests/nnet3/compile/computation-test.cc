// tests/nnet3/compile/computation-test.cc
// NnetComputation printing and Kaldi's on-disk format: a hand-built
// computation that uses every command type is printed (one line per
// command, names of components and nodes) and round-tripped in binary and
// text; small computations are compared with byte sequences written out by
// hand from Kaldi's format (nnet3/nnet-computation.cc, version 5, and
// WriteCindexVector in nnet3/nnet-common.cc), so the test checks format
// compatibility and not only self-consistency; truncated and corrupted
// streams must give a UserError naming the problem.
#include <gtest/gtest.h>

#include <sstream>

#include "base/random.h"
#include "nnet3/compile/computation.h"
#include "nnet3/nnet/nnet.h"

namespace nnet3 {
namespace {

typedef NnetComputation::Command Cmd;

const char *kConfig =
    "input-node name=input dim=4\n"
    "component name=affine type=AffineComponent input-dim=8 output-dim=3\n"
    "component-node name=affine component=affine input=Append(Offset(input, -1), input)\n"
    "component name=relu type=RectifiedLinearComponent dim=3\n"
    "component-node name=relu component=relu input=affine\n"
    "output-node name=output input=relu\n";

// Node indexes of kConfig: input 0, affine_input 1, affine 2, relu_input 3,
// relu 4, output 5. Component indexes: affine 0, relu 1.
Nnet MakeNnet() {
  Nnet nnet;
  std::istringstream is(kConfig);
  nnet.ReadConfig(is);
  return nnet;
}

std::vector<Cindex> Cindexes(int32 node, int32 n, int32 t_begin, int32 t_end) {
  std::vector<Cindex> ans;
  for (int32 t = t_begin; t < t_end; t++) ans.push_back(Cindex(node, Index(n, t)));
  return ans;
}

// A computation (not one a compiler would produce, but well formed) that
// uses every command type; see the expected listing in PrintsEveryCommand.
NnetComputation MakeFullComputation() {
  NnetComputation c;
  int32 s1 = c.NewMatrix(3, 4);                      // input, t = -1..1
  int32 s2 = c.NewMatrix(2, 8, kStrideEqualNumCols); // affine_input
  int32 s3 = c.NewMatrix(2, 3);                      // affine
  int32 s4 = c.NewMatrix(2, 3);                      // relu
  int32 s5 = c.NewMatrix(2, 3);                      // deriv of output
  int32 s6 = c.NewMatrix(2, 3);                      // deriv of relu
  int32 s7 = c.NewSubMatrix(s2, 0, -1, 0, 4);        // m2(0:1, 0:3)
  int32 s8 = c.NewSubMatrix(s2, 0, -1, 4, 4);        // m2(0:1, 4:7)
  int32 s9 = c.NewSubMatrix(s1, 0, 2, 0, -1);        // m1(0:1, 0:3)
  c.matrix_debug_info.resize(c.matrices.size());
  c.matrix_debug_info[1].cindexes = Cindexes(0, 0, -1, 2);
  c.matrix_debug_info[2].cindexes = Cindexes(1, 0, 0, 2);
  c.matrix_debug_info[3].cindexes = Cindexes(2, 0, 0, 2);
  c.matrix_debug_info[4].cindexes = Cindexes(4, 0, 0, 2);
  c.matrix_debug_info[5].cindexes = Cindexes(5, 0, 0, 2);
  c.matrix_debug_info[5].is_deriv = true;
  c.matrix_debug_info[6].cindexes = Cindexes(4, 0, 0, 2);
  c.matrix_debug_info[6].is_deriv = true;

  c.indexes.push_back({1, 2});
  std::vector<int32> long_indexes;
  for (int32 i = 0; i < 12; i++) long_indexes.push_back(i % 3 - 1);
  c.indexes.push_back(long_indexes);
  c.indexes_multi.push_back({{s2, 0}, {-1, -1}, {s7, 1}});
  c.indexes_ranges.push_back({{0, 2}, {-1, -1}, {1, 1}});
  c.need_model_derivative = true;

  auto &k = c.commands;
  k.push_back(Cmd(kAllocMatrix, s1));                          // c0
  k.push_back(Cmd(kAcceptInput, s1, 0));                       // c1
  k.push_back(Cmd(kAllocMatrix, s2));                          // c2
  k.push_back(Cmd(kMatrixCopy, s7, s9));                       // c3
  k.push_back(Cmd(kCopyRows, s8, s1, 0));                      // c4
  k.push_back(Cmd(kAllocMatrix, s3));                          // c5
  k.push_back(Cmd(kPropagate, 0, 0, s2, s3, 0, 0));            // c6
  k.push_back(Cmd(kAllocMatrix, s4));                          // c7
  k.push_back(Cmd(kPropagate, 1, 0, s3, s4, 0, 1));            // c8
  k.push_back(Cmd(kProvideOutput, s4, 5));                     // c9
  k.push_back(Cmd(kNoOperationMarker));                        // c10
  k.push_back(Cmd(kAllocMatrix, s5));                          // c11
  k.push_back(Cmd(kAcceptInput, s5, 5));                       // c12
  k.push_back(Cmd(kAllocMatrix, s6));                          // c13
  k.push_back(Cmd(kBackprop, 1, 0, 0, s4, s5, s6, 0));         // c14
  k.push_back(Cmd(kBackpropNoModelUpdate, 0, 0, s2, 0, s6, 0, 2));  // c15
  k.push_back(Cmd(0.5, kMatrixAdd, s7, s9));                   // c16
  k.push_back(Cmd(2.0, kAddRows, s8, s1, 1));                  // c17
  k.push_back(Cmd(kCopyRowsMulti, s9, 0));                     // c18
  k.push_back(Cmd(kCopyToRowsMulti, s9, 0));                   // c19
  k.push_back(Cmd(kAddRowsMulti, s9, 0));                      // c20
  k.push_back(Cmd(0.25, kAddToRowsMulti, s9, 0));              // c21
  k.push_back(Cmd(kAddRowRanges, s4, s3, 0));                  // c22
  k.push_back(Cmd(0.25, kSetConst, s6));                       // c23
  k.push_back(Cmd(kSwapMatrix, s5, s6));                       // c24
  k.push_back(Cmd(10.0, kCompressMatrix, s4, 1, 1));           // c25
  k.push_back(Cmd(kDecompressMatrix, s4));                     // c26
  k.push_back(Cmd(kNoOperation));                              // c27
  k.push_back(Cmd(kNoOperationPermanent));                     // c28
  k.push_back(Cmd(kNoOperationLabel));                         // c29
  k.push_back(Cmd(kGotoLabel, 29));                            // c30
  k.push_back(Cmd(kDeallocMatrix, s1));                        // c31
  return c;
}

void ExpectEqual(const NnetComputation &a, const NnetComputation &b) {
  ASSERT_EQ(a.matrices.size(), b.matrices.size());
  for (size_t i = 0; i < a.matrices.size(); i++) {
    EXPECT_EQ(a.matrices[i].num_rows, b.matrices[i].num_rows);
    EXPECT_EQ(a.matrices[i].num_cols, b.matrices[i].num_cols);
    EXPECT_EQ(a.matrices[i].stride_type, b.matrices[i].stride_type);
  }
  ASSERT_EQ(a.matrix_debug_info.size(), b.matrix_debug_info.size());
  for (size_t i = 0; i < a.matrix_debug_info.size(); i++) {
    EXPECT_EQ(a.matrix_debug_info[i].is_deriv, b.matrix_debug_info[i].is_deriv);
    EXPECT_EQ(a.matrix_debug_info[i].cindexes, b.matrix_debug_info[i].cindexes);
  }
  EXPECT_EQ(a.submatrices, b.submatrices);
  EXPECT_EQ(a.component_precomputed_indexes.size(),
            b.component_precomputed_indexes.size());
  EXPECT_EQ(a.indexes, b.indexes);
  EXPECT_EQ(a.indexes_multi, b.indexes_multi);
  EXPECT_EQ(a.indexes_ranges, b.indexes_ranges);
  ASSERT_EQ(a.commands.size(), b.commands.size());
  for (size_t i = 0; i < a.commands.size(); i++) {
    const Cmd &x = a.commands[i], &y = b.commands[i];
    SCOPED_TRACE("command " + std::to_string(i));
    EXPECT_EQ(x.command_type, y.command_type);
    EXPECT_EQ(x.alpha, y.alpha);
    EXPECT_EQ(x.arg1, y.arg1);
    EXPECT_EQ(x.arg2, y.arg2);
    EXPECT_EQ(x.arg3, y.arg3);
    EXPECT_EQ(x.arg4, y.arg4);
    EXPECT_EQ(x.arg5, y.arg5);
    EXPECT_EQ(x.arg6, y.arg6);
    EXPECT_EQ(x.arg7, y.arg7);
  }
  EXPECT_EQ(a.need_model_derivative, b.need_model_derivative);
}

std::string ToString(const NnetComputation &c, bool binary) {
  std::ostringstream os;
  os.precision(7);  // as InitKaldiOutputStream sets for text
  c.Write(os, binary);
  return os.str();
}

// The message of the UserError that reading 'data' throws ("" if none).
std::string ReadError(const std::string &data, bool binary) {
  NnetComputation c;
  std::istringstream is(data);
  try {
    c.Read(is, binary);
  } catch (const UserError &e) {
    return e.message();
  }
  return "";
}

std::string I32(int32 v) {
  std::string s(1, '\x04');
  return s.append(reinterpret_cast<const char *>(&v), 4);
}
std::string RawI32(int32 v) { return std::string(reinterpret_cast<const char *>(&v), 4); }
std::string U64(uint64 v) {
  std::string s(1, static_cast<char>(-8));
  return s.append(reinterpret_cast<const char *>(&v), 8);
}
std::string F32(float f) {
  std::string s(1, '\x04');
  return s.append(reinterpret_cast<const char *>(&f), 4);
}

TEST(NnetComputation, FullComputationUsesEveryCommandType) {
  NnetComputation c = MakeFullComputation();
  for (int32 t = 0; t <= static_cast<int32>(kGotoLabel); t++) {
    bool found = false;
    for (const Cmd &cmd : c.commands) found = found || cmd.command_type == t;
    EXPECT_TRUE(found) << CommandTypeToString(static_cast<CommandType>(t));
  }
}

TEST(NnetComputation, SubmatrixStrings) {
  Nnet nnet = MakeNnet();
  NnetComputation c = MakeFullComputation();
  std::vector<std::string> s;
  c.GetSubmatrixStrings(nnet, &s);
  ASSERT_EQ(s.size(), 10u);
  EXPECT_EQ(s[0], "[]");
  EXPECT_EQ(s[1], "m1");
  EXPECT_EQ(s[6], "m6");
  EXPECT_EQ(s[7], "m2(0:1, 0:3)");
  EXPECT_EQ(s[8], "m2(0:1, 4:7)");
  EXPECT_EQ(s[9], "m1(0:1, 0:3)");
}

TEST(NnetComputation, PrintsEveryCommand) {
  Nnet nnet = MakeNnet();
  NnetComputation c = MakeFullComputation();
  std::string preamble;
  std::vector<std::string> lines;
  c.GetCommandStrings(nnet, &preamble, &lines);
  const std::vector<std::string> want = {
      "c0: m1 = zeros(3, 4)",
      "c1: m1 = user input [for node: 'input']",
      "c2: m2 = zeros(2, 8)",
      "c3: m2(0:1, 0:3) = m1(0:1, 0:3)",
      "c4: m2(0:1, 4:7).CopyRows(m1, [1, 2])",
      "c5: m3 = zeros(2, 3)",
      "c6: affine.Propagate(NULL, m2, &m3)",
      "c7: m4 = zeros(2, 3)",
      "c8: relu.Propagate(NULL, m3, &m4) [store-stats]",
      "c9: output m4 to user [for node: 'output']",
      "c10: # computation segment separator [e.g., begin backward commands]",
      "c11: m5 = zeros(2, 3)",
      "c12: m5 = user input [for node: 'output']",
      "c13: m6 = zeros(2, 3)",
      "c14: relu.Backprop(NULL, [], m4, m5, [component-pointer], &m6)",
      "c15: affine.Backprop(NULL, m2, [], m6, NULL, NULL) [memo 2] "
      "[no model update]",
      "c16: m2(0:1, 0:3) += 0.5 * m1(0:1, 0:3)",
      "c17: m2(0:1, 4:7).AddRows(m1, [-1, 0, 1, -1, 0, 1, -1, 0, 1, -1, ... "
      "(12 entries)], alpha=2)",
      "c18: m1(0:1, 0:3).CopyRowsMulti([m2(0, :), NULL, m2(1, 0:3)])",
      "c19: m1(0:1, 0:3).CopyToRowsMulti([m2(0, :), NULL, m2(1, 0:3)])",
      "c20: m1(0:1, 0:3).AddRowsMulti([m2(0, :), NULL, m2(1, 0:3)])",
      "c21: m1(0:1, 0:3).AddToRowsMulti([m2(0, :), NULL, m2(1, 0:3)], "
      "alpha=0.25)",
      "c22: m4.AddRowRanges(m3, [0:1, null, empty])",
      "c23: m6.set(0.25) [dim = 2 x 3]",
      "c24: m5.swap(m6) [dim = 2 x 3]",
      "c25: CompressMatrix(m4, range=10, int8, truncate=true)",
      "c26: DecompressMatrix(m4)",
      "c27: [no-op]",
      "c28: [no-op-permanent]",
      "c29: [label for goto statement]",
      "c30: goto c29",
      "c31: m1 = []"};
  ASSERT_EQ(lines.size(), want.size());
  for (size_t i = 0; i < want.size(); i++) EXPECT_EQ(lines[i], want[i]);

  EXPECT_NE(preamble.find("m1: 3 x 4 (input; cindexes: [ input(0, -1:1) ])\n"),
            std::string::npos) << preamble;
  EXPECT_NE(preamble.find("m2: 2 x 8, stride = num-cols (affine_input; "
                          "cindexes: [ affine_input(0, 0:1) ])\n"),
            std::string::npos) << preamble;
  EXPECT_NE(preamble.find("m5: 2 x 3 (deriv of output; cindexes: "
                          "[ output(0, 0:1) ])\n"),
            std::string::npos) << preamble;
  EXPECT_NE(preamble.find("m6: 2 x 3 (deriv of relu;"), std::string::npos);

  // Print = preamble, a header line, then exactly one line per command.
  std::ostringstream os;
  c.Print(os, nnet);
  EXPECT_EQ(os.str(), preamble + "# begin forward commands\n" + [&] {
    std::string s;
    for (const std::string &l : want) s += l + "\n";
    return s;
  }());
}

TEST(NnetComputation, PrintSurvivesBadArguments) {
  Nnet nnet = MakeNnet();
  NnetComputation c;
  int32 s1 = c.NewMatrix(2, 2);
  c.commands.push_back(Cmd(kPropagate, 7, 0, s1, 42, 0, 0));
  c.commands.push_back(Cmd(kProvideOutput, s1, 99));
  c.commands.push_back(Cmd(kCopyRows, s1, s1, 3));
  std::vector<std::string> lines;
  c.GetCommandStrings(nnet, nullptr, &lines);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "c0: <bad component 7>.Propagate(NULL, m1, &<bad submatrix 42>)");
  EXPECT_EQ(lines[1], "c1: output m1 to user [for node: '<bad node 99>']");
  EXPECT_EQ(lines[2], "c2: m1.CopyRows(m1, <bad indexes 3>)");
}

TEST(NnetComputation, LongCindexListsAreCut) {
  Nnet nnet = MakeNnet();
  NnetComputation c;
  c.NewMatrix(200, 4);
  c.matrix_debug_info.resize(2);
  for (int32 n = 0; n < 100; n++)
    for (int32 t = 0; t < 2; t++)
      c.matrix_debug_info[1].cindexes.push_back(Cindex(0, Index(n, t)));
  std::string preamble;
  c.GetCommandStrings(nnet, &preamble, nullptr);
  EXPECT_NE(preamble.find("m1: 200 x 4 (input; cindexes: [ input(0, 0:1) "
                          "input(1, 0:1) "),
            std::string::npos) << preamble;
  EXPECT_NE(preamble.find(" ... ])\n"), std::string::npos) << preamble;
  EXPECT_LT(preamble.size(), 300u);
}

TEST(NnetComputation, BinaryAndTextRoundTrips) {
  NnetComputation c = MakeFullComputation();
  for (bool binary : {true, false}) {
    SCOPED_TRACE(binary ? "binary" : "text");
    std::string first = ToString(c, binary);
    NnetComputation back;
    back.NewMatrix(5, 5);  // replaced by Read
    std::istringstream is(first);
    back.Read(is, binary);
    // Read consumes the whole object (in text, all but the final newline).
    if (!binary) is >> std::ws;
    EXPECT_EQ(is.peek(), EOF);
    ExpectEqual(c, back);
    EXPECT_EQ(ToString(back, binary), first);
  }
  // Text read, binary written: the same as writing binary directly.
  NnetComputation from_text;
  std::istringstream is(ToString(c, false));
  from_text.Read(is, false);
  EXPECT_EQ(ToString(from_text, true), ToString(c, true));
}

// A tiny computation whose text form is written out below by hand from
// Kaldi's Write functions.
NnetComputation MakeTinyComputation() {
  NnetComputation c;
  int32 s1 = c.NewMatrix(2, 3, kStrideEqualNumCols);
  c.matrix_debug_info.resize(2);
  c.matrix_debug_info[1].is_deriv = true;
  c.matrix_debug_info[1].cindexes = {Cindex(0, Index(0, 0)),
                                     Cindex(2, Index(0, 1))};
  c.indexes.push_back({1, 0});
  c.indexes_multi.push_back({{1, 0}, {-1, -1}});
  c.indexes_ranges.push_back({{0, 2}});
  c.commands.push_back(Cmd(kAllocMatrix, s1));
  c.commands.push_back(Cmd(0.5, kSetConst, s1));
  return c;
}

const char *kTinyText =
    "<NnetComputation> <Version> 5 <NumMatrices> 2 <Matrices> "
    "<MatrixInfo> \n<NumRows> 0 <NumCols> 0 \n</MatrixInfo> \n"
    "<MatrixInfo> \n<NumRows> 2 <NumCols> 3 <StrideEqualNumCols> \n"
    "</MatrixInfo> \n\n"
    "<NumMatrixDebugInfo> 2 <MatrixDebugInfo> "
    "<MatrixDebugInfo> \n<IsDeriv> F \n<Cindexes> <I1V> 0 \n"
    "</MatrixDebugInfo> \n"
    "<MatrixDebugInfo> \n<IsDeriv> T \n<Cindexes> <I1V> 2 "
    "[0 :<I1> 0 0 0 ][2 :<I1> 0 1 0 ]\n</MatrixDebugInfo> \n\n"
    "<NumSubMatrices> 2 <SubMatrices> "
    "<SubMatrixInfo> \n<MatrixIndex> 0 <RowOffset> 0 <NumRows> 0 "
    "<ColOffset> 0 <NumCols> 0 \n</SubMatrixInfo> \n"
    "<SubMatrixInfo> \n<MatrixIndex> 1 <RowOffset> 0 <NumRows> 2 "
    "<ColOffset> 0 <NumCols> 3 \n</SubMatrixInfo> \n\n"
    "<NumComponentPrecomputedIndexes> 0 <PrecomputedIndexesInfo> \n"
    "<NumIndexes> 1 <Indexes> [ 1 0 ]\n\n"
    "<NumIndexesMulti> 1 <IndexesMulti> [ 1,0 -1,-1 ]\n\n"
    "<NumIndexesRanges> 1 <IndexesRanges> [ 0,2 ]\n\n"
    "<NumCommands> 2 <Commands> "
    "<Cmd> kAllocMatrix\n<Alpha> 1 <Args> 1 -1 -1 -1 -1 -1 -1 </Cmd> "
    "<Cmd> kSetConst\n<Alpha> 0.5 <Args> 1 -1 -1 -1 -1 -1 -1 </Cmd> \n"
    "<NeedModelDerivative> F </NnetComputation> \n";

TEST(NnetComputation, TextFormMatchesKaldi) {
  NnetComputation c = MakeTinyComputation();
  EXPECT_EQ(ToString(c, false), kTinyText);
  NnetComputation back;
  std::istringstream is(kTinyText);
  back.Read(is, false);
  ExpectEqual(c, back);
}

TEST(NnetComputation, BinaryFormMatchesKaldi) {
  NnetComputation c;
  int32 s1 = c.NewMatrix(5, 3);
  c.matrix_debug_info.resize(2);
  c.matrix_debug_info[1].cindexes = {
      Cindex(0, Index(0, 0)), Cindex(0, Index(0, 1)), Cindex(2, Index(0, 0)),
      Cindex(2, Index(1, 0)), Cindex(2, Index(5, 7, 3))};
  c.indexes.push_back({1, 0});
  c.commands.push_back(Cmd(kCopyRows, s1, s1, 0));
  c.commands.push_back(Cmd(0.5, kNoOperation));
  c.need_model_derivative = true;

  std::string want = "<NnetComputation> <Version> " + I32(5) +
                     "<NumMatrices> " + U64(2) + "<Matrices> ";
  want += "<MatrixInfo> <NumRows> " + I32(0) + "<NumCols> " + I32(0) +
          "</MatrixInfo> ";
  want += "<MatrixInfo> <NumRows> " + I32(5) + "<NumCols> " + I32(3) +
          "</MatrixInfo> ";
  want += "<NumMatrixDebugInfo> " + U64(2) + "<MatrixDebugInfo> ";
  want += "<MatrixDebugInfo> <IsDeriv> F<Cindexes> <I1V> " + I32(0) +
          "</MatrixDebugInfo> ";
  want += "<MatrixDebugInfo> <IsDeriv> F<Cindexes> <I1V> " + I32(5);
  want += "|" + I32(0) + std::string(1, '\0');   // node 0, t = 0
  want += std::string(1, '\x01');                 // t + 1
  want += "|" + I32(2) + std::string(1, '\xff');  // node 2, t - 1
  want += std::string(1, '\x7e');                 // n + 1
  want += std::string(1, '\x7f') + I32(5) + I32(7) + I32(3);  // general
  want += "</MatrixDebugInfo> ";
  want += "<NumSubMatrices> " + U64(2) + "<SubMatrices> ";
  want += "<SubMatrixInfo> <MatrixIndex> " + I32(0) + "<RowOffset> " + I32(0) +
          "<NumRows> " + I32(0) + "<ColOffset> " + I32(0) + "<NumCols> " +
          I32(0) + "</SubMatrixInfo> ";
  want += "<SubMatrixInfo> <MatrixIndex> " + I32(1) + "<RowOffset> " + I32(0) +
          "<NumRows> " + I32(5) + "<ColOffset> " + I32(0) + "<NumCols> " +
          I32(3) + "</SubMatrixInfo> ";
  want += "<NumComponentPrecomputedIndexes> " + U64(0) +
          "<PrecomputedIndexesInfo> ";
  want += "<NumIndexes> " + U64(1) + "<Indexes> " + std::string(1, '\x04') +
          RawI32(2) + RawI32(1) + RawI32(0);
  want += "<NumIndexesMulti> " + U64(0) + "<IndexesMulti> ";
  want += "<NumIndexesRanges> " + U64(0) + "<IndexesRanges> ";
  want += "<NumCommands> " + U64(2) + "<Commands> ";
  // Trailing -1 arguments are dropped: kCopyRows keeps three, the no-op
  // none.
  want += "<Cmd> " + I32(kCopyRows) + F32(1.0f) + std::string(1, '\x04') +
          RawI32(3) + RawI32(1) + RawI32(1) + RawI32(0) + "</Cmd> ";
  want += "<Cmd> " + I32(kNoOperation) + F32(0.5f) + std::string(1, '\x04') +
          RawI32(0) + "</Cmd> ";
  want += "<NeedModelDerivative> T</NnetComputation> ";
  EXPECT_EQ(ToString(c, true), want);

  NnetComputation back;
  std::istringstream is(want);
  back.Read(is, true);
  ExpectEqual(c, back);
}

TEST(CindexVector, TextFormMatchesKaldi) {
  std::vector<Cindex> v = {Cindex(3, Index(0, -1)), Cindex(3, Index(1, 2, 4)),
                           Cindex(0, Index(0, 0))};
  std::ostringstream os;
  WriteCindexVector(os, false, v);
  EXPECT_EQ(os.str(), "<I1V> 3 [3 :<I1> 0 -1 0 <I1> 1 2 4 ][0 :<I1> 0 0 0 ]");
  std::istringstream is(os.str());
  std::vector<Cindex> back;
  ReadCindexVector(is, false, &back);
  EXPECT_EQ(back, v);
}

TEST(CindexVector, FirstElementShortForms) {
  // n = 1 at t = 0 is byte 126; t = 124 still fits one byte at element 0
  // (the '|' before it marks the node), but a step of 124 later does not.
  std::vector<Cindex> v = {Cindex(1, Index(1, 0))};
  std::ostringstream os;
  WriteCindexVector(os, true, v);
  EXPECT_EQ(os.str(), "<I1V> " + I32(1) + "|" + I32(1) + "\x7e");
  v = {Cindex(1, Index(0, 124)), Cindex(1, Index(0, 248))};
  os.str("");
  WriteCindexVector(os, true, v);
  EXPECT_EQ(os.str(), "<I1V> " + I32(2) + "|" + I32(1) + "\x7c" + "\x7f" +
                          I32(0) + I32(248) + I32(0));
}

TEST(CindexVector, RandomRoundTrips) {
  RandomSource rs(17);
  for (int32 iter = 0; iter < 200; iter++) {
    std::vector<Cindex> v;
    int32 size = rs.Int(0, 30);
    for (int32 i = 0; i < size; i++) {
      Cindex c = v.empty() ? Cindex(rs.Int(0, 3), Index(0, 0)) : v.back();
      switch (rs.Int(0, 5)) {
        case 0: c.first = rs.Int(0, 3); break;
        case 1: c.second.t += rs.Int(-130, 130); break;
        case 2: c.second.n += rs.Int(0, 1); break;
        case 3: c.second = Index(rs.Int(-3, 3), rs.Int(-300, 300), rs.Int(-2, 2)); break;
        case 4: c.second.t += rs.Int(-2, 2); break;
        default: c.second.x += 1; break;
      }
      v.push_back(c);
    }
    for (bool binary : {true, false}) {
      std::ostringstream os;
      WriteCindexVector(os, binary, v);
      std::istringstream is(os.str());
      std::vector<Cindex> back;
      ReadCindexVector(is, binary, &back);
      ASSERT_EQ(back, v) << "iteration " << iter << (binary ? " binary" : " text");
      if (!binary) is >> std::ws;  // an empty vector ends in a space
      ASSERT_EQ(is.peek(), EOF);
    }
  }
}

TEST(CindexVector, CorruptInputIsAUserError) {
  std::vector<Cindex> back;
  std::istringstream missing_bar("<I1V> " + I32(1) + std::string(1, '\0'));
  try {
    ReadCindexVector(missing_bar, true, &back);
    FAIL() << "no error";
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("expected '|'"), std::string::npos) << e.message();
  }
  std::istringstream bad_byte("<I1V> " + I32(2) + "|" + I32(0) + "\x01" + "\x80");
  try {
    ReadCindexVector(bad_byte, true, &back);
    FAIL() << "no error";
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("unexpected byte -128"), std::string::npos)
        << e.message();
  }
  std::istringstream text("<I1V> 1 3 :<I1> 0 0 0 ]");
  try {
    ReadCindexVector(text, false, &back);
    FAIL() << "no error";
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("expected '['"), std::string::npos) << e.message();
  }
}

TEST(NnetComputation, EveryTruncationIsAUserError) {
  NnetComputation c = MakeFullComputation();
  for (bool binary : {true, false}) {
    std::string data = ToString(c, binary);
    // A text file may lose its final newline and still be complete.
    size_t complete = binary ? data.size() : data.size() - 1;
    for (size_t len = 0; len < complete; len++) {
      std::string msg = ReadError(data.substr(0, len), binary);
      ASSERT_NE(msg, "") << (binary ? "binary" : "text")
                         << " stream truncated to " << len << " of "
                         << data.size() << " bytes was accepted";
      ASSERT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
}

TEST(NnetComputation, CorruptStreamsNameTheProblem) {
  std::string text = kTinyText;
  auto replaced = [&](const std::string &from, const std::string &to) {
    std::string s = text;
    size_t pos = s.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    return s.replace(pos, from.size(), to);
  };
  std::string msg = ReadError(replaced("<NumCommands>", "<NumCommandz>"), false);
  EXPECT_NE(msg.find("Expected token <NumCommands>, got <NumCommandz>"),
            std::string::npos) << msg;
  msg = ReadError(replaced("kSetConst", "kFrobnicate"), false);
  EXPECT_NE(msg.find("Unknown command type 'kFrobnicate'"), std::string::npos)
      << msg;
  msg = ReadError(replaced("<Version> 5", "<Version> 4"), false);
  EXPECT_NE(msg.find("version 4"), std::string::npos) << msg;
  msg = ReadError(replaced("<StrideEqualNumCols>", "<Stride>"), false);
  EXPECT_NE(msg.find("Expected token </MatrixInfo> or <StrideEqualNumCols>, "
                     "got <Stride>"),
            std::string::npos) << msg;
  msg = ReadError(replaced("<MatrixIndex> 1", "<MatrixIndex> 2"), false);
  EXPECT_NE(msg.find("submatrix 1 refers to matrix 2"), std::string::npos)
      << msg;
  msg = ReadError(replaced("<RowOffset> 0 <NumRows> 2", "<RowOffset> 1 <NumRows> 2"),
                  false);
  EXPECT_NE(msg.find("does not lie inside matrix 1"), std::string::npos) << msg;
  msg = ReadError(replaced("<NumMatrixDebugInfo> 2 <MatrixDebugInfo> "
                           "<MatrixDebugInfo> \n<IsDeriv> F \n<Cindexes> "
                           "<I1V> 0 \n</MatrixDebugInfo> \n",
                           "<NumMatrixDebugInfo> 1 <MatrixDebugInfo> "),
                  false);
  EXPECT_NE(msg.find("1 matrix debug-info entries but 2 matrices"),
            std::string::npos) << msg;

  // Binary: an out-of-range command type.
  NnetComputation c;
  c.NewMatrix(1, 1);
  c.commands.push_back(Cmd(kAllocMatrix, 1));
  std::string bin = ToString(c, true);
  std::string cmd = "<Cmd> " + I32(kAllocMatrix);
  size_t pos = bin.find(cmd);
  ASSERT_NE(pos, std::string::npos);
  bin.replace(pos, cmd.size(), "<Cmd> " + I32(99));
  msg = ReadError(bin, true);
  EXPECT_NE(msg.find("Invalid command type 99"), std::string::npos) << msg;
}

// Precomputed indexes of a type this library cannot construct.
class FakeIndexes : public ComponentPrecomputedIndexes {
 public:
  ComponentPrecomputedIndexes *Copy() const override { return new FakeIndexes; }
  void Write(std::ostream &os, bool binary) const override {
    WriteToken(os, binary, "<FakePrecomputedIndexes>");
    WriteToken(os, binary, "<Size>");
    WriteBasicType(os, binary, static_cast<int32>(3));
    WriteToken(os, binary, "</FakePrecomputedIndexes>");
  }
  void Read(std::istream &, bool) override {}
  std::string Type() const override { return "FakePrecomputedIndexes"; }
};

TEST(NnetComputation, PrecomputedIndexesAreWrittenButUnknownTypesNotRead) {
  Nnet nnet = MakeNnet();
  NnetComputation c;
  c.NewMatrix(2, 2);
  c.component_precomputed_indexes.resize(2);
  c.component_precomputed_indexes[1].data = new FakeIndexes;
  c.component_precomputed_indexes[1].input_indexes = {Index(0, 0), Index(0, 1)};
  c.component_precomputed_indexes[1].output_indexes = {Index(0, 0)};
  std::string text = ToString(c, false);
  EXPECT_NE(text.find("<NumComponentPrecomputedIndexes> 2 <PrecomputedIndexesInfo> "
                      "<FakePrecomputedIndexes> <Size> 3 </FakePrecomputedIndexes> "
                      "<I1V> 2 <I1> 0 0 0 <I1> 0 1 0 <I1V> 1 <I1> 0 0 0 \n"),
            std::string::npos) << text;
  for (bool binary : {true, false}) {
    std::string msg = ReadError(ToString(c, binary), binary);
    EXPECT_NE(msg.find("type 'FakePrecomputedIndexes'"), std::string::npos)
        << msg;
  }
  std::ostringstream os;
  c.Print(os, nnet);
  EXPECT_NE(os.str().find("precomputed_indexes[1]: FakePrecomputedIndexes "
                          "(2 input, 1 output indexes)"),
            std::string::npos) << os.str();
}

// A registered type: read back through the registry, size and all.
class SizedIndexes : public ComponentPrecomputedIndexes {
 public:
  int32 size = 0;
  ComponentPrecomputedIndexes *Copy() const override {
    SizedIndexes *ans = new SizedIndexes;
    ans->size = size;
    return ans;
  }
  void Write(std::ostream &os, bool binary) const override {
    WriteToken(os, binary, "<SizedPrecomputedIndexes>");
    WriteToken(os, binary, "<Size>");
    WriteBasicType(os, binary, size);
    WriteToken(os, binary, "</SizedPrecomputedIndexes>");
  }
  void Read(std::istream &is, bool binary) override {
    ExpectOneOrTwoTokens(is, binary, "<SizedPrecomputedIndexes>", "<Size>");
    ReadBasicType(is, binary, &size);
    ExpectToken(is, binary, "</SizedPrecomputedIndexes>");
  }
  std::string Type() const override { return "SizedPrecomputedIndexes"; }
};

TEST(NnetComputation, RegisteredPrecomputedIndexesRoundTrip) {
  ComponentRegistry::Get().AddPrecomputedIndexes(
      "SizedPrecomputedIndexes", [] { return new SizedIndexes; });
  NnetComputation c;
  c.NewMatrix(2, 2);
  c.component_precomputed_indexes.resize(3);
  for (int32 p = 1; p <= 2; p++) {
    SizedIndexes *data = new SizedIndexes;
    data->size = 10 * p + 7;
    c.component_precomputed_indexes[p].data = data;
    c.component_precomputed_indexes[p].input_indexes = {Index(0, p), Index(1, p)};
    c.component_precomputed_indexes[p].output_indexes = {Index(0, -p)};
  }
  for (bool binary : {true, false}) {
    std::istringstream is(ToString(c, binary));
    NnetComputation back;
    back.Read(is, binary);
    ASSERT_EQ(back.component_precomputed_indexes.size(), 3u);
    EXPECT_EQ(back.component_precomputed_indexes[0].data, nullptr);
    for (int32 p = 1; p <= 2; p++) {
      const SizedIndexes *data = dynamic_cast<const SizedIndexes *>(
          back.component_precomputed_indexes[p].data);
      ASSERT_TRUE(data != nullptr);
      EXPECT_EQ(data->size, 10 * p + 7);
      EXPECT_EQ(back.component_precomputed_indexes[p].input_indexes,
                c.component_precomputed_indexes[p].input_indexes);
      EXPECT_EQ(back.component_precomputed_indexes[p].output_indexes,
                c.component_precomputed_indexes[p].output_indexes);
    }
    EXPECT_EQ(ToString(back, binary), ToString(c, binary));
  }
}

TEST(NnetComputation, FailedReadLeavesTheComputationUnchanged) {
  NnetComputation c = MakeFullComputation();
  std::string data = ToString(MakeTinyComputation(), true);
  std::istringstream is(data.substr(0, data.size() / 2));
  EXPECT_THROW(c.Read(is, true), UserError);
  ExpectEqual(c, MakeFullComputation());
}

}  // namespace
}  // namespace nnet3
