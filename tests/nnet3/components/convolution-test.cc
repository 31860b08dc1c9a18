// tests/nnet3/components/convolution-test.cc
// TimeHeightConvolutionComponent, ConvolutionModel and the convolution
// planning: forward against a direct convolution written here with plain
// loops (images x output times x output heights x filters x offsets, zero
// for heights outside the image and for absent input frames), for
// geometries with and without height subsampling, time subsampling (output
// step a multiple of the input step), strided input, time zero padding,
// several images and memory-limited chunking; Backprop against finite
// differences (input and parameters); model, component, computation and
// precomputed-indexes I/O round trips; Info(); config errors.
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "component-test-util.h"
#include "nnet3/components/convolution-compute.h"
#include "nnet3/components/time-height-convolution.h"

namespace nnet3 {
namespace {

using testing::ConfigError;
using testing::FromConfig;
using time_height_convolution::ConvolutionComputation;
using time_height_convolution::ConvolutionModel;

typedef TimeHeightConvolutionComponent Conv;

std::unique_ptr<Conv> MakeConv(const std::string &line) {
  std::unique_ptr<Component> c =
      FromConfig("TimeHeightConvolutionComponent", line);
  Conv *conv = dynamic_cast<Conv *>(c.release());
  EXPECT_TRUE(conv != nullptr);
  return std::unique_ptr<Conv>(conv);
}

// Input frames keyed by (n, t): one vector of height_in * num_filters_in.
typedef std::map<std::pair<int32, int32>, std::vector<BaseFloat> > Frames;

// The direct convolution, from the model's definition.
std::vector<BaseFloat> NaiveOutput(const Conv &c, const Frames &in, int32 n,
                                   int32 t) {
  const ConvolutionModel &m = c.Model();
  const Matrix<BaseFloat> w = ToHost(c.LinearParams());
  const Vector<BaseFloat> b = ToHost(c.BiasParams());
  std::vector<BaseFloat> out(m.OutputDim());
  for (int32 j = 0; j < m.height_out; j++) {
    for (int32 fo = 0; fo < m.num_filters_out; fo++) {
      double sum = b(fo);
      for (size_t o = 0; o < m.offsets.size(); o++) {
        int32 h = j * m.height_subsample_out + m.offsets[o].height_offset;
        if (h < 0 || h >= m.height_in) continue;
        auto it = in.find(std::make_pair(n, t + m.offsets[o].time_offset));
        if (it == in.end()) continue;
        for (int32 fi = 0; fi < m.num_filters_in; fi++)
          sum += double(w(fo, o * m.num_filters_in + fi)) *
                 it->second[h * m.num_filters_in + fi];
      }
      out[j * m.num_filters_out + fo] = sum;
    }
  }
  return out;
}

// One step of a computation: the Indexes as the component arranged them,
// the precomputed plan, and the input matrix.
struct Step {
  std::vector<Index> in_idx, out_idx;
  std::unique_ptr<ComponentPrecomputedIndexes> pi;
  CuMatrix<BaseFloat> in;
};

void Prepare(const Conv &c, const std::vector<int32> &images,
             const std::vector<int32> &in_times,
             const std::vector<int32> &out_times, const Frames &frames,
             Step *s) {
  s->in_idx.clear();
  s->out_idx.clear();
  // Deliberately unsorted (n-major) order; ReorderIndexes must fix it.
  for (int32 n : images) {
    for (int32 t : in_times) s->in_idx.push_back(Index(n, t, 0));
    for (int32 t : out_times) s->out_idx.push_back(Index(n, t, 0));
  }
  c.ReorderIndexes(&s->in_idx, &s->out_idx);
  MiscComputationInfo misc;
  s->pi.reset(c.PrecomputeIndexes(misc, s->in_idx, s->out_idx, true));
  ASSERT_TRUE(s->pi != nullptr);
  Matrix<BaseFloat> in(s->in_idx.size(), c.InputDim());
  for (size_t r = 0; r < s->in_idx.size(); r++) {
    const Index &idx = s->in_idx[r];
    if (idx.t == kNoTime) continue;
    const std::vector<BaseFloat> &v = frames.at(std::make_pair(idx.n, idx.t));
    for (int32 k = 0; k < c.InputDim(); k++) in(r, k) = v[k];
  }
  s->in = testing::Contig(in);
}

Frames RandomFrames(const Conv &c, const std::vector<int32> &images,
                    const std::vector<int32> &in_times, RandomSource *rs) {
  Frames f;
  for (int32 n : images)
    for (int32 t : in_times) {
      std::vector<BaseFloat> v(c.InputDim());
      for (auto &x : v) x = rs->Gauss();
      f[std::make_pair(n, t)] = v;
    }
  return f;
}

std::vector<int32> Range(int32 begin, int32 end, int32 step = 1) {
  std::vector<int32> v;
  for (int32 t = begin; t < end; t += step) v.push_back(t);
  return v;
}

// Runs the forward pass for this geometry and compares every real output
// row with the direct convolution.
void CheckForward(const std::string &config, const std::vector<int32> &images,
                  const std::vector<int32> &in_times,
                  const std::vector<int32> &out_times, uint64 seed) {
  SCOPED_TRACE(config);
  RandomSource rs(seed);
  std::unique_ptr<Conv> c = MakeConv(config + " bias-stddev=0.5");
  Frames frames = RandomFrames(*c, images, in_times, &rs);
  Step s;
  Prepare(*c, images, in_times, out_times, frames, &s);
  CuMatrix<BaseFloat> out_cu =
      testing::NewMat(s.out_idx.size(), c->OutputDim());
  EXPECT_EQ(c->Propagate(s.pi.get(), s.in, &out_cu), nullptr);
  const Matrix<BaseFloat> out = ToHost(out_cu);
  int32 real_rows = 0;
  std::set<std::pair<int32, int32> > seen;
  for (size_t r = 0; r < s.out_idx.size(); r++) {
    const Index &idx = s.out_idx[r];
    if (idx.t == kNoTime) continue;
    real_rows++;
    seen.insert(std::make_pair(idx.n, idx.t));
    std::vector<BaseFloat> ref = NaiveOutput(*c, frames, idx.n, idx.t);
    for (int32 k = 0; k < c->OutputDim(); k++)
      ASSERT_NEAR(out(r, k), ref[k], 1e-4 * (1.0 + std::fabs(ref[k])))
          << "row " << r << " (n=" << idx.n << ", t=" << idx.t << ") col "
          << k;
  }
  EXPECT_EQ(real_rows, static_cast<int32>(images.size() * out_times.size()));
  EXPECT_EQ(seen.size(), images.size() * out_times.size());
  // Every real input Index is still there.
  int32 real_in = 0;
  for (const Index &idx : s.in_idx) real_in += (idx.t != kNoTime);
  EXPECT_EQ(real_in, static_cast<int32>(images.size() * in_times.size()));
}

const char *kPlain =
    "num-filters-in=3 num-filters-out=6 height-in=12 height-out=10 "
    "height-offsets=0,1,2 time-offsets=-1,0,1 required-time-offsets=-1";
const char *kHeightSub =
    "num-filters-in=6 num-filters-out=7 height-in=10 height-out=5 "
    "height-offsets=-1,0,1 time-offsets=0 height-subsample-out=2";
const char *kPadded3x3 =
    "num-filters-in=2 num-filters-out=3 height-in=6 height-out=6 "
    "time-offsets=-1,0,1 height-offsets=-1,0,1";

TEST(ConvolutionForward, PlainNoPadding) {
  CheckForward(kPlain, {0, 1}, Range(-1, 7), Range(0, 6), 1);
}

TEST(ConvolutionForward, HeightSubsampling) {
  CheckForward(kHeightSub, {0, 1, 2}, Range(0, 5), Range(0, 5), 2);
  // Subsampled heights that read beyond the top of the image.
  CheckForward("num-filters-in=2 num-filters-out=2 height-in=7 height-out=3 "
               "height-offsets=-1,0,1,2 time-offsets=-1,0,1 "
               "height-subsample-out=3",
               {0}, Range(-1, 5), Range(0, 4), 3);
}

TEST(ConvolutionForward, HeightPaddingAndTimePadding) {
  // All time offsets required: inputs cover the context.
  CheckForward(kPadded3x3, {0, 1}, Range(-1, 6), Range(0, 5), 4);
  // Only offset 0 required: the edge frames are zero-padded.
  CheckForward(std::string(kPadded3x3) + " required-time-offsets=0", {0, 1},
               Range(0, 5), Range(0, 5), 5);
}

TEST(ConvolutionForward, TimeSubsamplingAppendsFrames) {
  // Output every 2nd frame, input every frame: frames are appended in pairs.
  CheckForward(kPadded3x3, {0, 1}, Range(-1, 10), Range(0, 9, 2), 6);
  // Output every 3rd frame, kernel spanning 5 frames.
  CheckForward("num-filters-in=2 num-filters-out=2 height-in=4 height-out=4 "
               "height-offsets=-1,0,1 time-offsets=-2,0,2",
               {0, 1, 2}, Range(-2, 12), Range(0, 12, 3), 7);
}

TEST(ConvolutionForward, StridedInput) {
  // The previous layer was subsampled: input and offsets in steps of 3.
  CheckForward("num-filters-in=2 num-filters-out=3 height-in=5 height-out=3 "
               "height-offsets=-1,0,1 time-offsets=-3,0,3 "
               "height-subsample-out=2",
               {0, 1}, Range(-3, 16, 3), Range(0, 13, 3), 8);
}

TEST(ConvolutionForward, SingleOutputFrame) {
  CheckForward(kPlain, {0, 1, 2}, Range(-1, 2), {0}, 9);
}

TEST(ConvolutionForward, MemoryLimitSplitsTheWork) {
  // rand007's layer2-conv: max-memory-mb=1e-4 forces one-frame chunks.
  std::string small =
      "num-filters-in=7 num-filters-out=3 height-in=5 height-out=3 "
      "time-offsets=-1,0,1 height-offsets=-1,0,1 max-memory-mb=1.0e-04 "
      "height-subsample-out=2 required-time-offsets=-1";
  CheckForward(small, {0, 1}, Range(-1, 12), Range(0, 11), 10);
  std::unique_ptr<Conv> c = MakeConv(small);
  Step s;
  RandomSource rs(11);
  Frames frames = RandomFrames(*c, {0, 1}, Range(-1, 12), &rs);
  Prepare(*c, {0, 1}, Range(-1, 12), Range(0, 11), frames, &s);
  const ConvolutionComputation &cc =
      dynamic_cast<const Conv::PrecomputedIndexes &>(*s.pi).computation;
  EXPECT_GT(cc.temp_cols, 0);
  EXPECT_LT(cc.temp_rows, cc.num_t_out * cc.num_images);
  EXPECT_EQ(cc.temp_rows % cc.num_images, 0);
}

TEST(ConvolutionForward, ImageAverageOffset) {
  // The pair (kNoTime, kNoTime) adds W0 times the per-image average of each
  // input filter over the whole input grid (blank rows count as zeros).
  std::string config =
      "num-filters-in=2 num-filters-out=3 height-in=4 height-out=4 "
      "offsets=-2147483648,-2147483648;-1,0;0,-1;0,0;0,1;1,0 "
      "required-time-offsets=0 bias-stddev=0.5";
  RandomSource rs(12);
  std::unique_ptr<Conv> c = MakeConv(config);
  ASSERT_EQ(c->Model().offsets[0].time_offset, kNoTime);
  std::vector<int32> images = {0, 1}, in_times = Range(0, 5),
                     out_times = Range(0, 5);
  Frames frames = RandomFrames(*c, images, in_times, &rs);
  Step s;
  Prepare(*c, images, in_times, out_times, frames, &s);
  // Per-image averages over the grid the component chose.
  std::map<int32, std::vector<double> > avg;
  std::map<int32, int32> rows_of;
  const Matrix<BaseFloat> in = ToHost(s.in);
  for (size_t r = 0; r < s.in_idx.size(); r++) {
    int32 n = s.in_idx[r].n;
    rows_of[n]++;
    avg[n].resize(2);
    for (int32 k = 0; k < c->InputDim(); k++) avg[n][k % 2] += in(r, k);
  }
  CuMatrix<BaseFloat> out_cu =
      testing::NewMat(s.out_idx.size(), c->OutputDim());
  c->Propagate(s.pi.get(), s.in, &out_cu);
  const Matrix<BaseFloat> out = ToHost(out_cu);
  for (size_t r = 0; r < s.out_idx.size(); r++) {
    const Index &idx = s.out_idx[r];
    if (idx.t == kNoTime) continue;
    std::vector<BaseFloat> ref = NaiveOutput(*c, frames, idx.n, idx.t);
    for (int32 j = 0; j < 4; j++)
      for (int32 fo = 0; fo < 3; fo++) {
        double expected = ref[j * 3 + fo];
        for (int32 f = 0; f < 2; f++)
          expected += c->LinearParams().GetElement(fo, f) * avg[idx.n][f] /
                      (rows_of[idx.n] * 4.0);
        EXPECT_NEAR(out(r, j * 3 + fo), expected, 1e-4) << r << " " << j;
      }
  }
}

// ---- Backprop --------------------------------------------------------------

void CheckBackprop(const std::string &config, const std::vector<int32> &images,
                   const std::vector<int32> &in_times,
                   const std::vector<int32> &out_times, uint64 seed) {
  SCOPED_TRACE(config);
  RandomSource rs(seed);
  std::unique_ptr<Conv> c = MakeConv(config + " bias-stddev=0.5");
  Frames frames = RandomFrames(*c, images, in_times, &rs);
  Step s;
  Prepare(*c, images, in_times, out_times, frames, &s);
  int32 nin = s.in.NumRows(), nout = s.out_idx.size();
  // Objective: sum over real output rows of out .* R.
  CuMatrix<BaseFloat> r = testing::RandMat(nout, c->OutputDim(), &rs);
  for (int32 i = 0; i < nout; i++)
    if (s.out_idx[i].t == kNoTime) r.Row(i).SetZero();
  auto objf = [&](const Conv &comp, const CuMatrixBase<BaseFloat> &in) {
    CuMatrix<BaseFloat> out = testing::NewMat(nout, comp.OutputDim());
    comp.Propagate(s.pi.get(), in, &out);
    return testing::MatDot(out, r);
  };
  std::unique_ptr<Conv> grad(dynamic_cast<Conv *>(c->Copy()));
  grad->Scale(0.0);
  grad->SetAsGradient();
  CuMatrix<BaseFloat> in_deriv = testing::NewMat(nin, c->InputDim());
  CuMatrix<BaseFloat> empty;
  c->Backprop("test", s.pi.get(), s.in, empty, r, nullptr, grad.get(),
              &in_deriv);
  const BaseFloat eps = 1e-2;
  for (int32 k = 0; k < 3; k++) {
    CuMatrix<BaseFloat> dir = testing::RandMat(nin, c->InputDim(), &rs);
    for (int32 i = 0; i < nin; i++)
      if (s.in_idx[i].t == kNoTime) dir.Row(i).SetZero();
    CuMatrix<BaseFloat> plus = testing::Contig(s.in),
                        minus = testing::Contig(s.in);
    plus.AddMat(eps, dir);
    minus.AddMat(-eps, dir);
    double numeric = (objf(*c, plus) - objf(*c, minus)) / (2 * eps);
    double analytic = testing::MatDot(in_deriv, dir);
    EXPECT_NEAR(numeric, analytic, 2e-3 * (1.0 + std::fabs(numeric)))
        << "input derivative";
  }
  int32 np = c->NumParameters();
  Vector<BaseFloat> params(np), g(np);
  c->Vectorize(&params);
  grad->Vectorize(&g);
  EXPECT_GT(g.Norm(2.0), 0.0);
  for (int32 k = 0; k < 3; k++) {
    Vector<BaseFloat> dir(np);
    dir.SetRandn(&rs);
    std::unique_ptr<Conv> cp(dynamic_cast<Conv *>(c->Copy())),
        cm(dynamic_cast<Conv *>(c->Copy()));
    Vector<BaseFloat> p(params), m(params);
    p.AddVec(eps, dir);
    m.AddVec(-eps, dir);
    cp->UnVectorize(p);
    cm->UnVectorize(m);
    double numeric = (objf(*cp, s.in) - objf(*cm, s.in)) / (2 * eps);
    double analytic = VecVec(g, dir);
    EXPECT_NEAR(numeric, analytic, 2e-3 * (1.0 + std::fabs(numeric)))
        << "parameter derivative";
  }
  // Backprop adds to in_deriv.
  CuMatrix<BaseFloat> start = testing::RandMat(nin, c->InputDim(), &rs);
  CuMatrix<BaseFloat> d2 = testing::Contig(start);
  c->Backprop("test", s.pi.get(), s.in, empty, r, nullptr, nullptr, &d2);
  d2.AddMat(-1.0, start);
  EXPECT_TRUE(d2.ApproxEqual(in_deriv, 1e-4));
}

TEST(ConvolutionBackprop, FiniteDifferences) {
  CheckBackprop(kPlain, {0, 1}, Range(-1, 7), Range(0, 6), 21);
  CheckBackprop(kHeightSub, {0, 1}, Range(0, 4), Range(0, 4), 22);
  CheckBackprop(std::string(kPadded3x3) + " required-time-offsets=0", {0, 1},
                Range(0, 5), Range(0, 5), 23);
  CheckBackprop(kPadded3x3, {0, 1}, Range(-1, 10), Range(0, 9, 2), 24);
  CheckBackprop("num-filters-in=7 num-filters-out=3 height-in=5 height-out=3 "
                "time-offsets=-1,0,1 height-offsets=-1,0,1 "
                "max-memory-mb=1.0e-04 height-subsample-out=2",
                {0, 1}, Range(-1, 8), Range(0, 7), 25);
  CheckBackprop("num-filters-in=2 num-filters-out=3 height-in=4 "
                "height-out=4 offsets=-2147483648,-2147483648;-1,0;0,0;1,0",
                {0, 1}, Range(-1, 6), Range(0, 5), 27);
  // A 1x1 kernel over the whole input reads the input matrix directly.
  CheckBackprop("num-filters-in=3 num-filters-out=2 height-in=4 height-out=4 "
                "height-offsets=0 time-offsets=0",
                {0, 1}, Range(0, 3), Range(0, 3), 26);
}

TEST(ConvolutionBackprop, NaturalGradientUpdateFollowsTheGradient) {
  RandomSource rs(31);
  std::unique_ptr<Conv> c = MakeConv(std::string(kPlain));
  c->SetActualLearningRate(0.01);
  Frames frames = RandomFrames(*c, {0, 1}, Range(-1, 7), &rs);
  Step s;
  Prepare(*c, {0, 1}, Range(-1, 7), Range(0, 6), frames, &s);
  CuMatrix<BaseFloat> r =
      testing::RandMat(s.out_idx.size(), c->OutputDim(), &rs);
  std::unique_ptr<Conv> grad(dynamic_cast<Conv *>(c->Copy()));
  grad->Scale(0.0);
  grad->SetAsGradient();
  CuMatrix<BaseFloat> empty;
  c->Backprop("test", s.pi.get(), s.in, empty, r, nullptr, grad.get(), nullptr);
  std::unique_ptr<Conv> updated(dynamic_cast<Conv *>(c->Copy()));
  c->Backprop("test", s.pi.get(), s.in, empty, r, nullptr, updated.get(),
              nullptr);
  updated->Add(-1.0, *c);  // the change
  BaseFloat change_dot_grad = updated->DotProduct(*grad);
  EXPECT_GT(change_dot_grad, 0.0);
  EXPECT_GT(updated->DotProduct(*updated), 0.0);
  // Learning rate 0: no update at all.
  std::unique_ptr<Conv> frozen(dynamic_cast<Conv *>(c->Copy()));
  frozen->SetActualLearningRate(0.0);
  c->Backprop("test", s.pi.get(), s.in, empty, r, nullptr, frozen.get(),
              nullptr);
  frozen->Add(-1.0, *c);
  EXPECT_EQ(frozen->DotProduct(*frozen), 0.0);
}

// ---- I/O and Info -----------------------------------------------------------

TEST(ConvolutionIo, ComponentRoundTrip) {
  std::unique_ptr<Conv> c = MakeConv(
      std::string(kPlain) + " use-natural-gradient=false rank-out=4 "
      "alpha-in=2.0 max-memory-mb=50 learning-rate-factor=0.5 max-change=0.75");
  testing::CheckIoRoundTrip(*c, [] { return new Conv(); });
  std::unique_ptr<Conv> d = MakeConv(kHeightSub);
  testing::CheckIoRoundTrip(*d, [] { return new Conv(); });
}

TEST(ConvolutionIo, KaldiReferenceSpans) {
  std::vector<std::string> spans =
      testing::ReferenceSpans("TimeHeightConvolutionComponent");
  ASSERT_GE(spans.size(), 3u);  // rand007's three layers
  for (const std::string &span : spans) {
    std::istringstream is(span);
    std::unique_ptr<Component> c(Component::ReadNew(is, false));
    EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c, false), span),
              "");
  }
}

TEST(ConvolutionIo, ModelWriteRead) {
  std::unique_ptr<Conv> c = MakeConv(kHeightSub);
  std::ostringstream os;
  c->Model().Write(os, false);
  EXPECT_EQ(os.str(),
            "<ConvolutionModel> <NumFiltersIn> 6 <NumFiltersOut> 7 "
            "<HeightIn> 10 <HeightOut> 5 <HeightSubsampleOut> 2 <Offsets> "
            "[ 0,-1 0,0 0,1 ]\n<RequiredTimeOffsets> [ 0 ]\n"
            "</ConvolutionModel> ");
  for (int b = 0; b < 2; b++) {
    std::ostringstream o1;
    c->Model().Write(o1, b == 1);
    ConvolutionModel m;
    std::istringstream is(o1.str());
    m.Read(is, b == 1);
    EXPECT_TRUE(m == c->Model());
  }
  // An inconsistent model in a file is an error, not a crash.
  std::istringstream bad(
      "<ConvolutionModel> <NumFiltersIn> 1 <NumFiltersOut> 1 <HeightIn> 2 "
      "<HeightOut> 9 <HeightSubsampleOut> 1 <Offsets> [ 0,0 ] "
      "<RequiredTimeOffsets> [ 0 ] </ConvolutionModel>");
  ConvolutionModel m;
  EXPECT_THROW(m.Read(bad, false), UserError);
}

TEST(ConvolutionIo, ANaNAlphaInAModelIsAReadError) {
  // Kaldi's text form has no NaN; in binary form a float is a size byte
  // (4) and four bytes, so the first alpha after the token is patched.
  std::unique_ptr<Conv> c = MakeConv(kPlain);
  std::ostringstream os;
  c->Write(os, true);
  std::string bytes = os.str();
  const std::string token = "<AlphaInOut> ";
  size_t pos = bytes.find(token);
  ASSERT_NE(pos, std::string::npos);
  pos += token.size();
  ASSERT_EQ(bytes[pos], 4);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  bytes.replace(pos + 1, 4, reinterpret_cast<const char *>(&nan), 4);
  Conv d;
  std::istringstream is(bytes);
  try {
    d.Read(is, true);
    ADD_FAILURE() << "read a NaN alpha";
  } catch (const UserError &e) {
    EXPECT_NE(std::string(e.what()).find("alpha nan"), std::string::npos)
        << e.what();
  }
}

TEST(ConvolutionIo, PrecomputedIndexesRoundTrip) {
  std::unique_ptr<Conv> c = MakeConv(kPadded3x3);
  RandomSource rs(41);
  Frames frames = RandomFrames(*c, {0, 1}, Range(-1, 10), &rs);
  Step s;
  Prepare(*c, {0, 1}, Range(-1, 10), Range(0, 9, 2), frames, &s);
  for (int b = 0; b < 2; b++) {
    std::ostringstream os;
    s.pi->Write(os, b == 1);
    std::istringstream is(os.str());
    std::unique_ptr<ComponentPrecomputedIndexes> back(
        ComponentPrecomputedIndexes::ReadNew(is, b == 1));
    ASSERT_EQ(back->Type(), "TimeHeightConvolutionComponentPrecomputedIndexes");
    std::ostringstream os2;
    back->Write(os2, b == 1);
    EXPECT_EQ(os2.str(), os.str());
    // The read plan computes the same output.
    CuMatrix<BaseFloat> o1 = testing::NewMat(s.out_idx.size(), c->OutputDim()),
                        o2 = testing::NewMat(s.out_idx.size(), c->OutputDim());
    c->Propagate(s.pi.get(), s.in, &o1);
    c->Propagate(back.get(), s.in, &o2);
    EXPECT_TRUE(o1.Equal(o2));
  }
  std::ostringstream os;
  s.pi->Write(os, false);
  EXPECT_EQ(os.str().find("<TimeHeightConvolutionComponentPrecomputedIndexes> "
                          "<Computation> <ConvComputation> <NumFiltersInOut> 2 3 "
                          "<HeightInOut> 12 6 "),
            0u)
      << os.str();
}

TEST(ConvolutionInfo, MatchesKaldiLayout) {
  std::unique_ptr<Conv> c = MakeConv(
      "num-filters-in=1 num-filters-out=8 height-in=40 height-out=40 "
      "time-offsets=-1,0,2 height-offsets=-1,0,2 param-stddev=0 max-change=0.75");
  EXPECT_EQ(c->Info(),
            "TimeHeightConvolutionComponent, input-dim=40, output-dim=320, "
            "learning-rate=0.001, max-change=0.75 num-filters-in=1, "
            "num-filters-out=8, height-in=40, height-out=40, "
            "height-subsample-out=1, {time,height}-offsets=[-1,-1 -1,0 -1,2 "
            "0,-1 0,0 0,2 2,-1 2,0 2,2], required-time-offsets=[-1,0,2], "
            "input-dim=40, output-dim=320, filter-params-rms=0, "
            "bias-params-{mean,stddev}=0,0, num-params=80, max-memory-mb=200, "
            "use-natural-gradient=1, num-minibatches-history=4, rank-in=5, "
            "rank-out=4, alpha=4");
  std::unique_ptr<Conv> d = MakeConv(std::string(kPlain) +
                                     " use-natural-gradient=false");
  EXPECT_NE(d->Info().find("use-natural-gradient=0"), std::string::npos);
  EXPECT_EQ(d->Info().find("rank-in"), std::string::npos);
}

TEST(ConvolutionInit, OffsetsOptionAndInitUnit) {
  std::unique_ptr<Conv> a = MakeConv(
      "num-filters-in=2 num-filters-out=2 height-in=3 height-out=3 "
      "offsets=1,0;-1,0;0,-1;0,0;0,1 required-time-offsets=0 init-unit=true");
  const ConvolutionModel &m = a->Model();
  ASSERT_EQ(m.offsets.size(), 5u);
  EXPECT_EQ(m.offsets[0].time_offset, -1);
  EXPECT_EQ(m.offsets[4].time_offset, 1);
  EXPECT_EQ(m.time_offsets_modulus, 1);
  // init-unit: identity in the (0,0) block (offset index 2), zero elsewhere.
  for (int32 r = 0; r < 2; r++)
    for (int32 col = 0; col < 10; col++)
      EXPECT_EQ(a->LinearParams().GetElement(r, col),
                (col == 4 + r) ? 1.0 : 0.0);
}

TEST(ConvolutionConfig, ErrorsNameTheProblem) {
  const std::string type = "TimeHeightConvolutionComponent";
  auto one_line = [](const std::string &e) {
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    return e;
  };
  // height-out too large for the offsets: the top outputs read nothing.
  std::string e = one_line(ConfigError(
      type, "num-filters-in=1 num-filters-out=1 height-in=4 height-out=7 "
            "height-offsets=-1,0,1 time-offsets=0"));
  EXPECT_NE(e.find("height-out=7"), std::string::npos) << e;
  e = one_line(ConfigError(
      type, "num-filters-out=1 height-in=4 height-out=4 "
            "height-offsets=0 time-offsets=0"));
  EXPECT_NE(e.find("num-filters-in"), std::string::npos) << e;
  e = one_line(ConfigError(
      type, "num-filters-in=1 num-filters-out=1 height-in=4 height-out=4 "
            "height-offsets=0 time-offsets=1,0"));
  EXPECT_NE(e.find("time-offsets=1,0"), std::string::npos) << e;
  e = one_line(ConfigError(
      type, "num-filters-in=1 num-filters-out=1 height-in=4 height-out=4 "
            "height-offsets=0 time-offsets=0,1 required-time-offsets=2"));
  EXPECT_NE(e.find("required time offset 2"), std::string::npos) << e;
  e = one_line(ConfigError(
      type, "num-filters-in=1 num-filters-out=1 height-in=4 height-out=4 "
            "height-offsets=0"));
  EXPECT_NE(e.find("time-offsets"), std::string::npos) << e;
  e = one_line(ConfigError(
      type, "num-filters-in=1 num-filters-out=1 height-in=4 height-out=4 "
            "offsets=0,0;0"));
  EXPECT_NE(e.find("offsets=0,0;0"), std::string::npos) << e;
  e = one_line(ConfigError(
      type, "num-filters-in=1 num-filters-out=1 height-in=4 height-out=4 "
            "height-offsets=0 time-offsets=0 max-memory-mb=0"));
  EXPECT_NE(e.find("max-memory-mb"), std::string::npos) << e;
  e = one_line(ConfigError(
      type, "num-filters-in=1 num-filters-out=2 height-in=4 height-out=4 "
            "height-offsets=0 time-offsets=0 init-unit=true"));
  EXPECT_NE(e.find("init-unit"), std::string::npos) << e;
  e = one_line(ConfigError(
      type, "num-filters-in=1 num-filters-out=1 height-in=4 height-out=4 "
            "height-offsets=0 time-offsets=0 bogus=3"));
  EXPECT_NE(e.find("bogus"), std::string::npos) << e;
  // A NaN or negative alpha is an error, not a failed assertion in the
  // preconditioner (found by the nnet-config fuzz target).
  for (const char *alpha : {"alpha-out=nan", "alpha-in=-1", "alpha-in=nan"}) {
    e = one_line(ConfigError(
        type, std::string("num-filters-in=1 num-filters-out=1 height-in=4 "
                          "height-out=4 height-offsets=0 time-offsets=0 ") +
                  alpha));
    EXPECT_NE(e.find("alpha-in="), std::string::npos) << e;
  }
}

TEST(ConvolutionIndexes, ComputabilityFollowsRequiredOffsets) {
  std::unique_ptr<Conv> c =
      MakeConv(std::string(kPadded3x3) + " required-time-offsets=0");
  MiscComputationInfo misc;
  std::vector<Index> want;
  c->GetInputIndexes(misc, Index(1, 5, 0), &want);
  ASSERT_EQ(want.size(), 3u);
  EXPECT_EQ(want[0], Index(1, 4, 0));
  EXPECT_EQ(want[2], Index(1, 6, 0));
  struct Set : public IndexSet {
    std::set<int32> ts;
    bool operator()(const Index &i) const override { return ts.count(i.t) > 0; }
  } set;
  set.ts = {5, 6};
  std::vector<Index> used;
  EXPECT_TRUE(c->IsComputable(misc, Index(0, 5, 0), set, &used));
  EXPECT_EQ(used.size(), 2u);
  set.ts = {4, 6};
  EXPECT_FALSE(c->IsComputable(misc, Index(0, 5, 0), set, &used));
  EXPECT_TRUE(used.empty());
  // Indexes PrecomputeIndexes was not meant for are refused.
  std::vector<Index> in = {Index(0, 0), Index(0, 1)}, out = {Index(0, 1),
                                                            Index(0, 0)};
  EXPECT_THROW(delete c->PrecomputeIndexes(misc, in, out, false), UserError);
}

}  // namespace
}  // namespace nnet3
