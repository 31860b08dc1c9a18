// tests/nnet3/components/convolution-3d-test.cc
// The old ConvolutionComponent and MaxpoolingComponent. Kaldi's conformance
// set has no vectors for them, so the oracle is a direct evaluation of the
// 3-D convolution / max-pooling sums over (x, y, z) written here with plain
// loops, plus finite differences, byte round trips, exact Info() lines and
// config errors.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "component-test-util.h"
#include "nnet3/components/convolution-3d.h"

namespace nnet3 {
namespace testing {
namespace {

bool Contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

struct Geometry {
  int32 X, Y, Z, fx, fy, sx, sy;
  bool zyx;
};

// Input column of tensor element (x, y, z), from the vectorization rule.
int32 Col(const Geometry &g, int32 x, int32 y, int32 z) {
  return g.zyx ? (x * g.Y + y) * g.Z + z : (x * g.Z + z) * g.Y + y;
}

// out(r, (i * ny + j) * F + f) = b(f) + sum_{dx, dy, z}
//   W(f, (dx * fy + dy) * Z + z) * in(r, Col(i * sx + dx, j * sy + dy, z)).
Matrix<BaseFloat> NaiveConvolution(const Geometry &g,
                                   const MatrixBase<BaseFloat> &W,
                                   const VectorBase<BaseFloat> &b,
                                   const MatrixBase<BaseFloat> &in) {
  const int32 nx = (g.X - g.fx) / g.sx + 1, ny = (g.Y - g.fy) / g.sy + 1,
              F = W.NumRows();
  Matrix<BaseFloat> out(in.NumRows(), nx * ny * F);
  for (int32 r = 0; r < in.NumRows(); r++)
    for (int32 i = 0; i < nx; i++)
      for (int32 j = 0; j < ny; j++)
        for (int32 f = 0; f < F; f++) {
          double sum = b(f);
          for (int32 dx = 0; dx < g.fx; dx++)
            for (int32 dy = 0; dy < g.fy; dy++)
              for (int32 z = 0; z < g.Z; z++)
                sum += double(W(f, (dx * g.fy + dy) * g.Z + z)) *
                       in(r, Col(g, i * g.sx + dx, j * g.sy + dy, z));
          out(r, (i * ny + j) * F + f) = sum;
        }
  return out;
}

std::string ConvLine(const Geometry &g, int32 num_filters) {
  return "input-x-dim=" + std::to_string(g.X) +
         " input-y-dim=" + std::to_string(g.Y) +
         " input-z-dim=" + std::to_string(g.Z) +
         " filt-x-dim=" + std::to_string(g.fx) +
         " filt-y-dim=" + std::to_string(g.fy) +
         " filt-x-step=" + std::to_string(g.sx) +
         " filt-y-step=" + std::to_string(g.sy) +
         " num-filters=" + std::to_string(num_filters) +
         " input-vectorization-order=" + (g.zyx ? "zyx" : "yzx");
}

TEST(Convolution, PropagateMatchesTheConvolutionSum) {
  const Geometry geometries[] = {{5, 6, 2, 3, 2, 1, 2, true},
                                 {5, 6, 2, 3, 2, 2, 1, false},
                                 {4, 3, 3, 4, 3, 1, 1, true},
                                 {3, 7, 1, 1, 3, 1, 2, false}};
  for (const Geometry &g : geometries) {
    auto c = FromConfig("ConvolutionComponent", ConvLine(g, 3));
    const auto &cc = dynamic_cast<const ConvolutionComponent &>(*c);
    EXPECT_EQ(c->InputDim(), g.X * g.Y * g.Z);
    EXPECT_EQ(cc.FilterDim(), g.fx * g.fy * g.Z);
    RandomSource rs(11);
    CuMatrix<BaseFloat> in = RandMat(4, c->InputDim(), &rs);
    Matrix<BaseFloat> expected =
        NaiveConvolution(g, ToHost(cc.FilterParams()),
                         ToHost(cc.BiasParams()), ToHost(in));
    ASSERT_EQ(c->OutputDim(), expected.NumCols());
    EXPECT_TRUE(ToHost(Forward(*c, in)).ApproxEqual(expected, 1e-5))
        << ConvLine(g, 3);
    CheckDerivatives(*c, 3, &rs);
    CheckPropertyFlags(*c, 3, &rs);
  }
}

TEST(Convolution, UpdateIsPlainSgdOnTheGradient) {
  Geometry g = {4, 4, 2, 2, 3, 2, 1, true};
  auto c = FromConfig("ConvolutionComponent", ConvLine(g, 2));
  auto &uc = dynamic_cast<UpdatableComponent &>(*c);
  uc.SetActualLearningRate(0.1);
  RandomSource rs(12);
  CuMatrix<BaseFloat> in = RandMat(5, c->InputDim(), &rs),
                      od = RandMat(5, c->OutputDim(), &rs);
  std::unique_ptr<Component> grad(c->Copy());
  auto &ug = dynamic_cast<UpdatableComponent &>(*grad);
  ug.Scale(0.0);
  ug.SetAsGradient();
  CuMatrix<BaseFloat> none;
  c->Backprop("", nullptr, in, none, od, nullptr, grad.get(), nullptr);
  const int32 n = uc.NumParameters();
  Vector<BaseFloat> before(n), after(n), gvec(n);
  uc.Vectorize(&before);
  ug.Vectorize(&gvec);
  c->Backprop("", nullptr, in, none, od, nullptr, c.get(), nullptr);
  uc.Vectorize(&after);
  after.AddVec(-1.0, before);
  gvec.Scale(0.1);
  EXPECT_TRUE(after.ApproxEqual(gvec, 1e-4));
}

TEST(Convolution, MatrixFileInitialization) {
  // 2 filters of dim 1 * 2 * 1 (+ bias column).
  std::string path = ::testing::TempDir() + "/conv3d-test.mat";
  {
    std::ofstream os(path);
    os << " [\n 1 2 0.5\n -1 3 -2 ]\n";
  }
  auto c = FromConfig("ConvolutionComponent",
                      "input-x-dim=2 input-y-dim=3 input-z-dim=1 filt-x-dim=1 "
                      "filt-y-dim=2 filt-x-step=1 filt-y-step=1 matrix=" +
                          path);
  const auto &cc = dynamic_cast<const ConvolutionComponent &>(*c);
  ASSERT_EQ(cc.FilterParams().NumRows(), 2);
  EXPECT_EQ(cc.FilterParams().GetElement(1, 1), 3.0);
  EXPECT_EQ(cc.BiasParams().GetElement(1), -2.0);
  EXPECT_EQ(c->OutputDim(), 2 * 2 * 2);
  EXPECT_TRUE(Contains(
      ConfigError("ConvolutionComponent",
                  "input-x-dim=2 input-y-dim=3 input-z-dim=2 filt-x-dim=1 "
                  "filt-y-dim=2 filt-x-step=1 filt-y-step=1 matrix=" + path),
      "matrix="));
  std::remove(path.c_str());
}

TEST(Convolution, IoAndInfo) {
  Geometry g = {3, 4, 2, 2, 2, 1, 2, false};
  auto c = FromConfig("ConvolutionComponent", ConvLine(g, 3));
  CheckIoRoundTrip(*c, [] { return new ConvolutionComponent(); });
  std::string text = WriteToString(*c, false);
  EXPECT_EQ(text.rfind("<ConvolutionComponent> <LearningRate> 0.001 "
                       "<InputXDim> 3 <InputYDim> 4 <InputZDim> 2 "
                       "<FiltXDim> 2 <FiltYDim> 2 <FiltXStep> 1 "
                       "<FiltYStep> 2 <InputVectorization> 0 <FilterParams>",
                       0),
            0u)
      << text;
  EXPECT_TRUE(Contains(text, "<IsGradient> F </ConvolutionComponent> "));
  std::string info = c->Info();
  EXPECT_EQ(info.rfind("ConvolutionComponent, input-dim=24, output-dim=12, "
                       "learning-rate=0.001, input-x-dim=3, input-y-dim=4, "
                       "input-z-dim=2, filt-x-dim=2, filt-y-dim=2, "
                       "filt-x-step=1, filt-y-step=2, input-vectorization=0, "
                       "num-filters=3, filter-params-rms=",
                       0),
            0u)
      << info;
  EXPECT_TRUE(Contains(info, ", bias-params-{mean,stddev}=")) << info;
}

TEST(Convolution, ConfigErrors) {
  const std::string base =
      "input-x-dim=4 input-y-dim=4 input-z-dim=2 filt-x-step=1 filt-y-step=1 "
      "num-filters=2 ";
  EXPECT_TRUE(Contains(ConfigError("ConvolutionComponent",
                                   base + "filt-x-dim=5 filt-y-dim=2"),
                       "filt-x-dim=5"));
  EXPECT_TRUE(Contains(
      ConfigError("ConvolutionComponent",
                  "input-x-dim=5 input-y-dim=4 input-z-dim=2 filt-x-dim=2 "
                  "filt-y-dim=2 filt-x-step=2 filt-y-step=1 num-filters=2"),
      "filt-x-step=2"));
  EXPECT_TRUE(Contains(
      ConfigError("ConvolutionComponent",
                  base + "filt-x-dim=2 filt-y-dim=2 "
                         "input-vectorization-order=xyz"),
      "xyz"));
  EXPECT_TRUE(Contains(
      ConfigError("ConvolutionComponent",
                  "input-x-dim=4 input-y-dim=4 input-z-dim=2 filt-x-dim=2 "
                  "filt-y-dim=2 filt-x-step=1 filt-y-step=1"),
      "num-filters"));
  EXPECT_TRUE(Contains(ConfigError("ConvolutionComponent",
                                   base + "filt-x-dim=2"),
                       "filt-y-dim"));
}

// ---- MaxpoolingComponent ------------------------------------------------------

struct Pools {
  int32 X, Y, Z, px, py, pz, sx, sy, sz;
  int32 Num(int32 in, int32 size, int32 step) const {
    return (in - size) / step + 1;
  }
};

std::string PoolLine(const Pools &p) {
  return "input-x-dim=" + std::to_string(p.X) +
         " input-y-dim=" + std::to_string(p.Y) +
         " input-z-dim=" + std::to_string(p.Z) +
         " pool-x-size=" + std::to_string(p.px) +
         " pool-y-size=" + std::to_string(p.py) +
         " pool-z-size=" + std::to_string(p.pz) +
         " pool-x-step=" + std::to_string(p.sx) +
         " pool-y-step=" + std::to_string(p.sy) +
         " pool-z-step=" + std::to_string(p.sz);
}

// For each output (row, pool): the max over the pool and the input columns
// holding it.
Matrix<BaseFloat> NaiveMaxpool(const Pools &p, const MatrixBase<BaseFloat> &in,
                               std::vector<std::vector<std::vector<int32> > >
                                   *argmax) {
  const int32 nx = p.Num(p.X, p.px, p.sx), ny = p.Num(p.Y, p.py, p.sy),
              nz = p.Num(p.Z, p.pz, p.sz);
  Matrix<BaseFloat> out(in.NumRows(), nx * ny * nz);
  argmax->assign(in.NumRows(),
                 std::vector<std::vector<int32> >(nx * ny * nz));
  for (int32 r = 0; r < in.NumRows(); r++)
    for (int32 i = 0; i < nx; i++)
      for (int32 j = 0; j < ny; j++)
        for (int32 k = 0; k < nz; k++) {
          int32 o = (i * ny + j) * nz + k;
          BaseFloat best = -1e30;
          for (int32 dx = 0; dx < p.px; dx++)
            for (int32 dy = 0; dy < p.py; dy++)
              for (int32 dz = 0; dz < p.pz; dz++) {
                int32 col = ((i * p.sx + dx) * p.Y + j * p.sy + dy) * p.Z +
                            k * p.sz + dz;
                if (in(r, col) > best) {
                  best = in(r, col);
                  (*argmax)[r][o].assign(1, col);
                } else if (in(r, col) == best) {
                  (*argmax)[r][o].push_back(col);
                }
              }
          out(r, o) = best;
        }
  return out;
}

// Distinct values far apart (a shuffled ramp), so that no two pool members
// are within the finite-difference step of each other.
CuMatrix<BaseFloat> DistinctInput(int32 rows, int32 cols, RandomSource *rs) {
  Matrix<BaseFloat> m(rows, cols);
  std::vector<int32> perm(rows * cols);
  for (size_t i = 0; i < perm.size(); i++) perm[i] = i;
  for (size_t i = perm.size(); i > 1; i--)
    std::swap(perm[i - 1], perm[rs->Int(0, static_cast<int32>(i) - 1)]);
  for (int32 r = 0; r < rows; r++)
    for (int32 c = 0; c < cols; c++) m(r, c) = 0.1 * perm[r * cols + c] - 3.0;
  return Contig(m);
}

TEST(Maxpooling, PropagateAndBackpropMatchTheMaxima) {
  const Pools cases[] = {{4, 5, 3, 2, 3, 1, 1, 2, 1},
                         {3, 3, 4, 1, 1, 2, 1, 1, 2},
                         {5, 2, 2, 3, 2, 2, 2, 1, 1}};
  for (const Pools &p : cases) {
    auto c = FromConfig("MaxpoolingComponent", PoolLine(p));
    RandomSource rs(13);
    CuMatrix<BaseFloat> in = DistinctInput(3, c->InputDim(), &rs);
    std::vector<std::vector<std::vector<int32> > > argmax;
    Matrix<BaseFloat> expected = NaiveMaxpool(p, ToHost(in), &argmax);
    ASSERT_EQ(c->OutputDim(), expected.NumCols()) << PoolLine(p);
    CuMatrix<BaseFloat> out = Forward(*c, in);
    EXPECT_TRUE(ToHost(out).Equal(expected)) << PoolLine(p);
    // Backprop adds each output derivative to the pool's maximum.
    CuMatrix<BaseFloat> od = RandMat(3, c->OutputDim(), &rs);
    CuMatrix<BaseFloat> init = RandMat(3, c->InputDim(), &rs);
    CuMatrix<BaseFloat> id = Contig(init);
    c->Backprop("", nullptr, in, out, od, nullptr, nullptr, &id);
    Matrix<BaseFloat> want = ToHost(init);
    const Matrix<BaseFloat> od_h = ToHost(od);
    for (int32 r = 0; r < 3; r++)
      for (int32 o = 0; o < c->OutputDim(); o++)
        for (int32 col : argmax[r][o]) want(r, col) += od_h(r, o);
    EXPECT_TRUE(ToHost(id).ApproxEqual(want, 1e-6)) << PoolLine(p);
    // Finite differences, away from ties.
    CuMatrix<BaseFloat> zero_start = NewMat(3, c->InputDim());
    c->Backprop("", nullptr, in, out, od, nullptr, nullptr, &zero_start);
    const BaseFloat eps = 1e-3;
    for (int32 t = 0; t < 3; t++) {
      CuMatrix<BaseFloat> dir = RandMat(3, c->InputDim(), &rs);
      CuMatrix<BaseFloat> plus = Contig(in), minus = Contig(in);
      plus.AddMat(eps, dir);
      minus.AddMat(-eps, dir);
      double numeric =
          (MatDot(Forward(*c, plus), od) - MatDot(Forward(*c, minus), od)) /
          (2 * eps);
      EXPECT_NEAR(numeric, MatDot(zero_start, dir),
                  1e-2 * (1.0 + std::fabs(numeric)));
    }
  }
}

TEST(Maxpooling, TiesAllReceiveTheDerivative) {
  auto c = FromConfig("MaxpoolingComponent",
                      "input-x-dim=1 input-y-dim=1 input-z-dim=4 "
                      "pool-x-size=1 pool-y-size=1 pool-z-size=2 "
                      "pool-x-step=1 pool-y-step=1 pool-z-step=2");
  CuMatrix<BaseFloat> in = NewMat(1, 4);
  in.SetElement(0, 0, 2);
  in.SetElement(0, 1, 2);
  in.SetElement(0, 2, -1);
  in.SetElement(0, 3, 5);
  CuMatrix<BaseFloat> out = Forward(*c, in);
  EXPECT_EQ(out.GetElement(0, 0), 2);
  EXPECT_EQ(out.GetElement(0, 1), 5);
  CuMatrix<BaseFloat> od = NewMat(1, 2), id = NewMat(1, 4);
  od.SetElement(0, 0, 1.5);
  od.SetElement(0, 1, -1);
  c->Backprop("", nullptr, in, out, od, nullptr, nullptr, &id);
  EXPECT_EQ(id.GetElement(0, 0), 1.5);
  EXPECT_EQ(id.GetElement(0, 1), 1.5);
  EXPECT_EQ(id.GetElement(0, 2), 0);
  EXPECT_EQ(id.GetElement(0, 3), -1);
}

TEST(Maxpooling, IoInfoAndConfigErrors) {
  Pools p = {4, 5, 3, 2, 3, 1, 1, 2, 1};
  auto c = FromConfig("MaxpoolingComponent", PoolLine(p));
  CheckIoRoundTrip(*c, [] { return new MaxpoolingComponent(); });
  EXPECT_EQ(WriteToString(*c, false),
            "<MaxpoolingComponent> <InputXDim> 4 <InputYDim> 5 <InputZDim> 3 "
            "<PoolXSize> 2 <PoolYSize> 3 <PoolZSize> 1 <PoolXStep> 1 "
            "<PoolYStep> 2 <PoolZStep> 1 </MaxpoolingComponent> ");
  EXPECT_EQ(c->Info(),
            "MaxpoolingComponent, input-x-dim=4, input-y-dim=5, "
            "input-z-dim=3, pool-x-size=2, pool-y-size=3, pool-z-size=1, "
            "pool-x-step=1, pool-y-step=2, pool-z-step=1");
  p.px = 5;  // pool larger than the input
  EXPECT_TRUE(Contains(ConfigError("MaxpoolingComponent", PoolLine(p)),
                       "pool-x-size=5"));
  p = {4, 5, 3, 2, 3, 1, 3, 2, 1};  // step > size
  EXPECT_TRUE(Contains(ConfigError("MaxpoolingComponent", PoolLine(p)),
                       "pool-x-step=3"));
  p = {4, 6, 3, 2, 3, 1, 1, 2, 1};  // (6 - 3) % 2 != 0
  EXPECT_TRUE(Contains(ConfigError("MaxpoolingComponent", PoolLine(p)),
                       "pool-y-step=2"));
  EXPECT_TRUE(Contains(ConfigError("MaxpoolingComponent",
                                   "input-x-dim=4 input-y-dim=5"),
                       "input-z-dim"));
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
