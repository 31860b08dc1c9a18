// tests/nnet3/egs/nnet-example-test.cc
// NnetIo / NnetExample: Kaldi's byte layout (hand-derived), round trips in
// binary and text for full, compressed and sparse features, and malformed
// input; merging (n renumbering, name order, errors); the request of an
// example.
#include <gtest/gtest.h>

#include <sstream>

#include "base/io.h"
#include "nnet3/egs/example-utils.h"
#include "nnet3/egs/nnet-example.h"

namespace nnet3 {
namespace {

std::string ToString(const NnetExample &eg, bool binary) {
  std::ostringstream os;
  eg.Write(os, binary);
  return os.str();
}

NnetExample FromString(const std::string &s, bool binary) {
  std::istringstream is(s);
  NnetExample eg;
  eg.Read(is, binary);
  return eg;
}

Matrix<BaseFloat> Ramp(int32 rows, int32 cols, BaseFloat offset) {
  Matrix<BaseFloat> m(rows, cols);
  for (int32 r = 0; r < rows; r++)
    for (int32 c = 0; c < cols; c++) m(r, c) = offset + r + 0.25f * c;
  return m;
}

// An example like nnet3-get-egs makes: input t = -1 .. 2 (dim 3), output
// t = 0, 1 (2 pdfs of 4).
NnetExample SmallEg(BaseFloat offset) {
  NnetExample eg;
  eg.io.push_back(NnetIo("input", -1, Ramp(4, 3, offset)));
  Posterior post(2);
  post[0].push_back(std::make_pair(1, 1.0f));
  post[1].push_back(std::make_pair(3, 0.5f));
  eg.io.push_back(NnetIo("output", 4, 0, post));
  return eg;
}

TEST(NnetIoTest, BinaryLayoutMatchesHandDerivedBytes) {
  NnetIo io("in", 5, Ramp(2, 1, 0.0f));
  std::ostringstream os;
  io.Write(os, true);
  std::string expected = "<NnetIo> in <I1V> ";
  expected += std::string("\x04\x02\x00\x00\x00", 5);  // int32 2
  expected += std::string("\x05\x01", 2);  // t = 5, then +1
  expected += "FM ";
  expected += std::string("\x04\x02\x00\x00\x00", 5);  // rows
  expected += std::string("\x04\x01\x00\x00\x00", 5);  // cols
  expected += std::string("\x00\x00\x00\x00\x00\x00\x80\x3f", 8);  // 0, 1
  expected += "</NnetIo> ";
  EXPECT_EQ(os.str(), expected);
}

TEST(NnetIoTest, IndexesThatChangeNUseTheLongForm) {
  NnetIo io;
  io.name = "x";
  io.indexes = {Index(0, 0, 0), Index(1, 0, 0)};
  io.features = Ramp(2, 1, 0.0f);
  std::ostringstream os;
  io.Write(os, true);
  std::string expected_indexes =
      std::string("<I1V> \x04\x02\x00\x00\x00", 11) + std::string(1, '\0') +
      std::string(1, '\x7f') + std::string("\x04\x01\x00\x00\x00", 5) +
      std::string("\x04\x00\x00\x00\x00", 5) +
      std::string("\x04\x00\x00\x00\x00", 5);
  EXPECT_NE(os.str().find(expected_indexes), std::string::npos);
}

TEST(NnetExampleTest, TextLayout) {
  NnetExample eg;
  eg.io.push_back(NnetIo("input", 0, Ramp(1, 2, 1.0f)));
  EXPECT_EQ(ToString(eg, false),
            "<Nnet3Eg> <NumIo> 1 <NnetIo> input <I1V> 1 <I1> 0 0 0  [\n"
            "  1 1.25 ]\n</NnetIo> </Nnet3Eg> ");
}

TEST(NnetExampleTest, RoundTripsAllMatrixTypes) {
  NnetExample eg = SmallEg(0.5f);
  NnetExample compressed = eg;
  compressed.Compress();
  ASSERT_EQ(compressed.io[0].features.Type(), kCompressedMatrix);
  ASSERT_EQ(compressed.io[1].features.Type(), kSparseMatrix);
  for (const NnetExample *e : {&eg, &compressed}) {
    for (bool binary : {true, false}) {
      std::string s = ToString(*e, binary);
      NnetExample back = FromString(s, binary);
      EXPECT_TRUE(back == *e);
      EXPECT_EQ(ToString(back, binary), s);
    }
    // Binary keeps the type.
    NnetExample back = FromString(ToString(*e, true), true);
    EXPECT_EQ(back.io[0].features.Type(), e->io[0].features.Type());
  }
}

TEST(NnetExampleTest, SparseTargetsHoldThePosteriors) {
  NnetExample eg = SmallEg(0.0f);
  Matrix<BaseFloat> targets;
  eg.io[1].features.GetMatrix(&targets);
  ASSERT_EQ(targets.NumRows(), 2);
  ASSERT_EQ(targets.NumCols(), 4);
  EXPECT_EQ(targets(0, 1), 1.0f);
  EXPECT_EQ(targets(1, 3), 0.5f);
  EXPECT_EQ(targets.Sum(), 1.5f);
  EXPECT_EQ(eg.io[1].indexes[1], Index(0, 1, 0));
}

TEST(NnetExampleTest, PosteriorIdOutOfRangeIsAnError) {
  Posterior post(1);
  post[0].push_back(std::make_pair(7, 1.0f));
  EXPECT_THROW(NnetIo("output", 4, 0, post), UserError);
}

TEST(NnetExampleTest, MalformedInputIsAnError) {
  std::string good = ToString(SmallEg(0.0f), true);
  // Truncated anywhere: an error, never a crash.
  for (size_t len : {size_t(3), size_t(20), good.size() / 2,
                     good.size() - 3})
    EXPECT_THROW(FromString(good.substr(0, len), true), UserError) << len;
  EXPECT_THROW(FromString("<Nnet3Eg> <NumIo> 0 </Nnet3Eg> ", false),
               UserError);
  // Three indexes but a 2-row matrix.
  EXPECT_THROW(FromString("<Nnet3Eg> <NumIo> 1 <NnetIo> input <I1V> 3 "
                          "<I1> 0 0 0 <I1> 0 1 0 <I1> 0 2 0 "
                          "[ 1 2 \n 3 4 ] </NnetIo> </Nnet3Eg> ",
                          false),
               UserError);
}

TEST(NnetExampleTest, StructureCompareIgnoresValues) {
  NnetExample a = SmallEg(0.0f), b = SmallEg(9.0f), c = SmallEg(0.0f);
  c.io[0].indexes[0].t = -2;
  NnetExampleStructureCompare compare;
  NnetExampleStructureHasher hasher;
  EXPECT_TRUE(compare(a, b));
  EXPECT_EQ(hasher(a), hasher(b));
  EXPECT_FALSE(compare(a, c));
  EXPECT_FALSE(a == b);
}

TEST(NnetExampleTest, FiniteCheckFindsTheRow) {
  NnetExample eg = SmallEg(0.0f);
  std::string name;
  int32 row = -1;
  EXPECT_TRUE(ExampleIsFinite(eg, &name, &row));
  Matrix<BaseFloat> m = Ramp(4, 3, 0.0f);
  m(2, 1) = std::numeric_limits<BaseFloat>::quiet_NaN();
  eg.io[0].features = m;
  EXPECT_FALSE(ExampleIsFinite(eg, &name, &row));
  EXPECT_EQ(name, "input");
  EXPECT_EQ(row, 2);
}

TEST(MergeExamplesTest, RenumbersNAndSortsNames) {
  std::vector<NnetExample> egs = {SmallEg(0.0f), SmallEg(10.0f),
                                  SmallEg(20.0f)};
  // Io order in an example does not matter for merging.
  std::swap(egs[1].io[0], egs[1].io[1]);
  NnetExample merged;
  MergeExamples(egs, false, &merged);
  ASSERT_EQ(merged.io.size(), 2u);
  EXPECT_EQ(merged.io[0].name, "input");
  EXPECT_EQ(merged.io[1].name, "output");
  const NnetIo &in = merged.io[0];
  ASSERT_EQ(in.indexes.size(), 12u);
  for (int32 n = 0; n < 3; n++) {
    for (int32 i = 0; i < 4; i++) {
      EXPECT_EQ(in.indexes[4 * n + i], Index(n, i - 1, 0));
    }
  }
  Matrix<BaseFloat> feats;
  in.features.GetMatrix(&feats);
  // Row 4*n + i is row i of example n: offset 10 n + i.
  EXPECT_EQ(feats(5, 0), 11.0f);
  EXPECT_EQ(feats(11, 2), 23.5f);
  EXPECT_EQ(merged.io[1].features.Type(), kSparseMatrix);
  EXPECT_EQ(merged.io[1].indexes[5], Index(2, 1, 0));
  EXPECT_EQ(GetNumNvalues(merged.io), 3);
  EXPECT_EQ(GetNnetExampleSize(merged), 12);
  EXPECT_EQ(NumIndexesForIo(merged, "output"), 6);
  EXPECT_EQ(NumIndexesForIo(merged, "ivector"), -1);

  NnetExample compressed;
  MergeExamples(egs, true, &compressed);
  EXPECT_EQ(compressed.io[0].features.Type(), kCompressedMatrix);
}

TEST(MergeExamplesTest, Errors) {
  std::vector<NnetExample> egs = {SmallEg(0.0f), SmallEg(1.0f)};
  NnetExample merged;
  MergeExamples(egs, false, &merged);
  std::vector<NnetExample> again = {merged, SmallEg(0.0f)};
  EXPECT_THROW(MergeExamples(again, false, &merged), UserError);
  egs[1].io[0].features = Ramp(4, 5, 0.0f);
  EXPECT_THROW(MergeExamples(egs, false, &merged), UserError);
}

TEST(ShiftExampleTimesTest, ExcludesNames) {
  NnetExample eg = SmallEg(0.0f);
  eg.io.push_back(NnetIo("ivector", 0, Ramp(1, 2, 0.0f)));
  ShiftExampleTimes(3, {"ivector"}, &eg);
  EXPECT_EQ(eg.io[0].indexes[0].t, 2);
  EXPECT_EQ(eg.io[1].indexes[1].t, 4);
  EXPECT_EQ(eg.io[2].indexes[0].t, 0);
}

TEST(GetComputationRequestTest, InputsAndOutputs) {
  Nnet nnet;
  std::istringstream config(
      "input-node name=input dim=3\n"
      "input-node name=ivector dim=2\n"
      "component name=affine type=AffineComponent input-dim=5 output-dim=4\n"
      "component-node name=affine component=affine "
      "input=Append(input, ReplaceIndex(ivector, t, 0))\n"
      "output-node name=output input=affine\n");
  nnet.ReadConfig(config);
  NnetExample eg = SmallEg(0.0f);
  eg.io.insert(eg.io.begin(), NnetIo("ivector", 0, Ramp(1, 2, 0.0f)));
  ComputationRequest request;
  GetComputationRequest(nnet, eg, true, false, &request);
  ASSERT_EQ(request.inputs.size(), 2u);
  ASSERT_EQ(request.outputs.size(), 1u);
  EXPECT_EQ(request.inputs[0].name, "ivector");
  EXPECT_EQ(request.inputs[1].name, "input");
  EXPECT_EQ(request.inputs[1].indexes, eg.io[1].indexes);
  EXPECT_FALSE(request.inputs[1].has_deriv);
  EXPECT_EQ(request.outputs[0].name, "output");
  EXPECT_TRUE(request.outputs[0].has_deriv);
  EXPECT_TRUE(request.need_model_derivative);
  EXPECT_FALSE(request.store_component_stats);

  GetComputationRequest(nnet, eg, false, true, &request);
  EXPECT_FALSE(request.outputs[0].has_deriv);
  EXPECT_TRUE(request.store_component_stats);

  NnetExample bad = eg;
  bad.io[0].name = "nosuchnode";
  EXPECT_THROW(GetComputationRequest(nnet, bad, true, false, &request),
               UserError);
  NnetExample no_output = eg;
  no_output.io.pop_back();
  EXPECT_THROW(GetComputationRequest(nnet, no_output, true, false, &request),
               UserError);
}

}  // namespace
}  // namespace nnet3
