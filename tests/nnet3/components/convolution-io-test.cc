// tests/nnet3/components/convolution-io-test.cc
// The regular time grid of convolution-io.h on hand-built Index lists:
// the fitted progressions (gaps, subsampling, one frame), the TDNN
// adjustment (reorder_t_in, rounding num_t_in up), the exact row layout and
// blanks of GetIndexesForComputation (checked against lists written out by
// hand), and the <ConvCompIo> text and binary encodings.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "base/io.h"
#include "nnet3/components/convolution-io.h"

namespace nnet3 {
namespace time_height_convolution {
namespace {

// Indexes for every (n, x) in nx crossed with the given t values, t-major.
std::vector<Index> Grid(const std::vector<std::pair<int32, int32> > &nx,
                        const std::vector<int32> &ts) {
  std::vector<Index> ans;
  for (int32 t : ts)
    for (auto p : nx) ans.push_back(Index(p.first, t, p.second));
  return ans;
}

ConvolutionComputationIo MakeIo(int32 images, int32 s_in, int32 step_in,
                                int32 n_in, int32 s_out, int32 step_out,
                                int32 n_out, int32 reorder) {
  ConvolutionComputationIo io;
  io.num_images = images;
  io.start_t_in = s_in;
  io.t_step_in = step_in;
  io.num_t_in = n_in;
  io.start_t_out = s_out;
  io.t_step_out = step_out;
  io.num_t_out = n_out;
  io.reorder_t_in = reorder;
  return io;
}

std::string Str(const ConvolutionComputationIo &io) {
  std::ostringstream os;
  io.Write(os, false);
  return os.str();
}

TEST(ConvolutionIo, Arithmetic) {
  EXPECT_EQ(Gcd(12, 18), 6);
  EXPECT_EQ(Gcd(0, 7), 7);
  EXPECT_EQ(Gcd(-4, 6), 2);
  EXPECT_EQ(DivideRoundingDown(7, 3), 2);
  EXPECT_EQ(DivideRoundingDown(-1, 3), -1);
  EXPECT_EQ(DivideRoundingDown(-3, 3), -1);
  EXPECT_EQ(DivideRoundingDown(-4, 3), -2);
}

TEST(ConvolutionIo, ListsAreSortedAndUnique) {
  std::vector<Index> v = {Index(1, 5, 0), Index(0, 2, 1), Index(1, 5, 0),
                          Index(0, kNoTime, 3), Index(1, -1, 0)};
  std::vector<std::pair<int32, int32> > nx;
  GetNxList(v, &nx);
  std::vector<std::pair<int32, int32> > nx_ref = {{0, 1}, {0, 3}, {1, 0}};
  EXPECT_EQ(nx, nx_ref);
  std::vector<int32> ts;
  GetTList(v, &ts);
  std::vector<int32> ts_ref = {-1, 2, 5};
  EXPECT_EQ(ts, ts_ref);
}

TEST(ConvolutionIo, ContiguousTwoSequences) {
  std::vector<std::pair<int32, int32> > nx = {{0, 0}, {1, 0}};
  std::vector<Index> in = Grid(nx, {-2, -1, 0, 1, 2, 3});
  std::vector<Index> out = Grid(nx, {0, 1});
  ConvolutionComputationIo io;
  GetComputationIo(in, out, &io);
  EXPECT_EQ(io, MakeIo(2, -2, 1, 6, 0, 1, 2, 1)) << Str(io);
  ModifyComputationIo(&io);
  EXPECT_EQ(io, MakeIo(2, -2, 1, 6, 0, 1, 2, 1)) << Str(io);
  std::vector<Index> in2, out2;
  GetIndexesForComputation(io, in, out, &in2, &out2);
  EXPECT_EQ(in2, in);
  EXPECT_EQ(out2, out);
}

TEST(ConvolutionIo, OrderIsRestoredAndGapsBlanked) {
  // Input given n-major with a missing frame t=2 for n=0 and the whole
  // t=4 missing; output given in reverse.
  std::vector<Index> in = {Index(0, 0), Index(0, 1), Index(0, 3),
                           Index(0, 5), Index(1, 0), Index(1, 1),
                           Index(1, 2), Index(1, 3), Index(1, 5)};
  std::vector<Index> out = {Index(1, 3), Index(0, 3), Index(1, 1),
                            Index(0, 1)};
  ConvolutionComputationIo io;
  GetComputationIo(in, out, &io);
  EXPECT_EQ(io, MakeIo(2, 0, 1, 6, 1, 2, 2, 1)) << Str(io);
  ModifyComputationIo(&io);
  // Output stride 2, input stride 1: two input frames per block; six
  // input frames already a multiple of 2.
  EXPECT_EQ(io, MakeIo(2, 0, 1, 6, 1, 2, 2, 2)) << Str(io);
  std::vector<Index> in2, out2;
  GetIndexesForComputation(io, in, out, &in2, &out2);
  const int32 B = kNoTime;
  std::vector<Index> in_ref = {
      Index(0, 0), Index(0, 1), Index(1, 0), Index(1, 1),   // t 0,1
      Index(0, B), Index(0, 3), Index(1, 2), Index(1, 3),   // t 2,3
      Index(0, B), Index(0, 5), Index(1, B), Index(1, 5)};  // t 4,5
  std::vector<Index> out_ref = {Index(0, 1), Index(1, 1), Index(0, 3),
                                Index(1, 3)};
  EXPECT_EQ(in2, in_ref);
  EXPECT_EQ(out2, out_ref);
}

TEST(ConvolutionIo, SubsamplingRoundsInputUp) {
  // x varies too: three images (n, x) = (0,0) (0,1) (2,0).
  std::vector<std::pair<int32, int32> > nx = {{0, 0}, {0, 1}, {2, 0}};
  std::vector<Index> in = Grid(nx, {-3, -2, -1, 0, 1, 2, 3});  // 7 frames
  std::vector<Index> out = Grid(nx, {-3, 0});
  ConvolutionComputationIo io;
  GetComputationIo(in, out, &io);
  EXPECT_EQ(io, MakeIo(3, -3, 1, 7, -3, 3, 2, 1)) << Str(io);
  ModifyComputationIo(&io);
  EXPECT_EQ(io, MakeIo(3, -3, 1, 9, -3, 3, 2, 3)) << Str(io);
  std::vector<Index> in2, out2;
  GetIndexesForComputation(io, in, out, &in2, &out2);
  ASSERT_EQ(in2.size(), 27u);
  // Row r: block r / 9, image (r % 9) / 3, frame within block r % 3.
  for (int32 r = 0; r < 27; r++) {
    int32 t = -3 + 3 * (r / 9) + r % 3;
    auto p = nx[(r % 9) / 3];
    Index expect(p.first, t > 3 ? kNoTime : t, p.second);
    EXPECT_EQ(in2[r], expect) << "row " << r;
  }
  EXPECT_EQ(out2, out);
}

TEST(ConvolutionIo, SparseInputStride) {
  // Input every 3 frames from an earlier layer, output every 6.
  std::vector<std::pair<int32, int32> > nx = {{0, 0}};
  std::vector<Index> in = Grid(nx, {0, 3, 9, 12});
  std::vector<Index> out = Grid(nx, {3, 9});
  ConvolutionComputationIo io;
  GetComputationIo(in, out, &io);
  EXPECT_EQ(io, MakeIo(1, 0, 3, 5, 3, 6, 2, 1)) << Str(io);
  ModifyComputationIo(&io);
  EXPECT_EQ(io, MakeIo(1, 0, 3, 6, 3, 6, 2, 2)) << Str(io);
  std::vector<Index> in2, out2;
  GetIndexesForComputation(io, in, out, &in2, &out2);
  std::vector<Index> in_ref = {Index(0, 0),       Index(0, 3),
                               Index(0, kNoTime), Index(0, 9),
                               Index(0, 12),      Index(0, kNoTime)};
  EXPECT_EQ(in2, in_ref);
  EXPECT_EQ(out2, out);
}

TEST(ConvolutionIo, SingleOutputFrame) {
  std::vector<std::pair<int32, int32> > nx = {{0, 0}, {1, 0}};
  std::vector<Index> in = Grid(nx, {4, 6, 8});
  std::vector<Index> out = Grid(nx, {6});
  ConvolutionComputationIo io;
  GetComputationIo(in, out, &io);
  EXPECT_EQ(io, MakeIo(2, 4, 2, 3, 6, 0, 1, 1)) << Str(io);
  ModifyComputationIo(&io);
  EXPECT_EQ(io, MakeIo(2, 4, 2, 3, 6, 2, 1, 1)) << Str(io);

  // One input and one output frame: both strides become 1.
  std::vector<Index> one = Grid(nx, {7});
  GetComputationIo(one, one, &io);
  EXPECT_EQ(io, MakeIo(2, 7, 0, 1, 7, 0, 1, 1)) << Str(io);
  ModifyComputationIo(&io);
  EXPECT_EQ(io, MakeIo(2, 7, 1, 1, 7, 1, 1, 1)) << Str(io);
  std::vector<Index> in2, out2;
  GetIndexesForComputation(io, one, one, &in2, &out2);
  EXPECT_EQ(in2, one);
  EXPECT_EQ(out2, one);
}

TEST(ConvolutionIo, BlankInputsIgnoredForTimes) {
  // A blank already present in the input contributes its (n, x) but no t.
  std::vector<Index> in = {Index(0, 0), Index(0, 1), Index(1, kNoTime)};
  std::vector<Index> out = {Index(0, 0)};
  ConvolutionComputationIo io;
  GetComputationIo(in, out, &io);
  EXPECT_EQ(io, MakeIo(2, 0, 1, 2, 0, 0, 1, 1)) << Str(io);
}

TEST(ConvolutionIo, WriteRead) {
  ConvolutionComputationIo io = MakeIo(2, -1, 1, 6, 0, 3, 2, 3);
  EXPECT_EQ(Str(io), "<ConvCompIo> 2 -1 1 6 0 3 2 3 </ConvCompIo> ");
  for (bool binary : {false, true}) {
    std::ostringstream os;
    io.Write(os, binary);
    if (binary) {
      // token + space, eight (size byte + 4-byte int), token + space.
      EXPECT_EQ(os.str().size(), 13u + 8 * 5 + 14u);
      EXPECT_EQ(os.str().substr(0, 13), "<ConvCompIo> ");
      EXPECT_EQ(os.str()[13], '\4');
    }
    std::istringstream is(os.str());
    ConvolutionComputationIo io2;
    io2.Read(is, binary);
    EXPECT_EQ(io2, io);
    std::ostringstream os2;
    io2.Write(os2, binary);
    EXPECT_EQ(os2.str(), os.str());
  }
  std::istringstream bad("<ConvCompIo> 1 2 3 </ConvCompIo> ");
  ConvolutionComputationIo io3;
  EXPECT_ANY_THROW(io3.Read(bad, false));
}

}  // namespace
}  // namespace time_height_convolution
}  // namespace nnet3
