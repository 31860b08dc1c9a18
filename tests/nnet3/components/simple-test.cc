// tests/nnet3/components/simple-test.cc
// NoOp, ClipGradient, Pnorm, SumGroup, SumBlock, ElementwiseProduct,
// Permute, FixedScale and FixedBias components: forward pass against naive
// loops, input derivatives against finite differences (or, for the
// components whose backprop is deliberately not the derivative, against
// naive re-computations), property flags, I/O round trips and Kaldi's
// reference spans (text and binary, byte for byte), nnet3-info lines,
// config handling.
#include "nnet3/components/simple.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "common/testing.h"
#include "nnet3/components/component-test-util.h"

namespace nnet3 {
namespace {

using testing::ConfigError;
using testing::Contig;
using testing::FromConfig;
using testing::ReadFile;
using testing::NewMat;
using testing::RandMat;

const char *kTypes[] = {"NoOpComponent", "ClipGradientComponent",
                        "PnormComponent", "SumGroupComponent",
                        "SumBlockComponent", "ElementwiseProductComponent",
                        "PermuteComponent", "FixedScaleComponent",
                        "FixedBiasComponent"};

// One instance of each type, as configured in tests below.
std::vector<std::unique_ptr<Component> > Examples() {
  std::vector<std::unique_ptr<Component> > cs;
  cs.push_back(FromConfig("NoOpComponent", "dim=6"));
  cs.push_back(FromConfig("ClipGradientComponent",
                          "dim=6 clipping-threshold=1e6 norm-based-clipping=true"));
  cs.push_back(FromConfig("PnormComponent", "input-dim=12 output-dim=4"));
  cs.push_back(FromConfig("SumGroupComponent", "sizes=1,3,2"));
  cs.push_back(FromConfig("SumBlockComponent",
                          "input-dim=12 output-dim=4 scale=0.5"));
  cs.push_back(FromConfig("ElementwiseProductComponent",
                          "input-dim=12 output-dim=4"));
  cs.push_back(FromConfig("PermuteComponent", "column-map=2,0,1,5,3,4"));
  cs.push_back(FromConfig("FixedScaleComponent", "dim=6"));
  cs.push_back(FromConfig("FixedBiasComponent", "dim=6"));
  return cs;
}

TEST(SimpleTest, PropagateMatchesNaiveLoops) {
  RandomSource rs(1);
  auto cs = Examples();
  for (auto &c : cs) {
    std::string t = c->Type();
    CuMatrix<BaseFloat> in_cu = RandMat(3, c->InputDim(), &rs);
    Matrix<BaseFloat> in = ToHost(in_cu);
    Matrix<BaseFloat> out = ToHost(testing::Forward(*c, in_cu));
    ASSERT_EQ(out.NumCols(), c->OutputDim());
    for (int32 r = 0; r < 3; r++)
      for (int32 j = 0; j < c->OutputDim(); j++) {
        double ref = 0;
        if (t == "NoOpComponent" || t == "ClipGradientComponent") {
          ref = in(r, j);
        } else if (t == "PnormComponent") {
          for (int32 k = 0; k < 3; k++) ref += in(r, 3 * j + k) * in(r, 3 * j + k);
          ref = std::sqrt(ref);
        } else if (t == "SumGroupComponent") {
          const int32 start[] = {0, 1, 4, 6};
          for (int32 k = start[j]; k < start[j + 1]; k++) ref += in(r, k);
        } else if (t == "SumBlockComponent") {
          for (int32 b = 0; b < 3; b++) ref += 0.5 * in(r, 4 * b + j);
        } else if (t == "ElementwiseProductComponent") {
          ref = double(in(r, j)) * in(r, 4 + j) * in(r, 8 + j);
        } else if (t == "PermuteComponent") {
          const int32 map[] = {2, 0, 1, 5, 3, 4};
          ref = in(r, map[j]);
        } else if (t == "FixedScaleComponent") {
          ref = in(r, j) *
                dynamic_cast<FixedScaleComponent &>(*c).Scales().GetElement(j);
        } else if (t == "FixedBiasComponent") {
          ref = in(r, j) +
                dynamic_cast<FixedBiasComponent &>(*c).Bias().GetElement(j);
        }
        EXPECT_NEAR(out(r, j), ref, 1e-5) << t;
      }
  }
}

TEST(SimpleTest, DerivativesAndFlags) {
  RandomSource rs(2);
  auto cs = Examples();
  for (auto &c : cs) {
    testing::CheckDerivatives(*c, 4, &rs);
    testing::CheckPropertyFlags(*c, 4, &rs);
  }
  std::unique_ptr<Component> noop =
      FromConfig("NoOpComponent", "dim=3 backprop-scale=0.5");
  testing::CheckPropertyFlags(*noop, 3, &rs);
  CuMatrix<BaseFloat> od = RandMat(2, 3, &rs), d = NewMat(2, 3);
  noop->Backprop("", nullptr, CuMatrix<BaseFloat>(), CuMatrix<BaseFloat>(), od,
                 nullptr, nullptr, &d);
  for (int32 r = 0; r < 2; r++)
    for (int32 j = 0; j < 3; j++)
      EXPECT_FLOAT_EQ(d.GetElement(r, j), 0.5f * od.GetElement(r, j));
  // Kaldi's property flags.
  const int32 expected[] = {0x105, 0x145, 0xc1, 0x1, 0x29, 0x41, 0x1, 0x105,
                            0x105};
  for (size_t i = 0; i < cs.size(); i++)
    EXPECT_EQ(cs[i]->Properties(), expected[i]) << cs[i]->Type();
}

TEST(SimpleTest, ClipGradientBackprop) {
  RandomSource rs(3);
  // Norm-based: rows with norm > 2 are scaled to norm 2; counts updated.
  std::unique_ptr<Component> c = FromConfig(
      "ClipGradientComponent",
      "dim=3 clipping-threshold=2 norm-based-clipping=true self-repair-scale=0");
  CuMatrix<BaseFloat> in = RandMat(4, 3, &rs), od_cu = RandMat(4, 3, &rs);
  od_cu.Row(0).Scale(10.0);
  od_cu.Row(2).Scale(0.01);
  const Matrix<BaseFloat> od = ToHost(od_cu);
  CuMatrix<BaseFloat> d = NewMat(4, 3);
  c->Backprop("", nullptr, in, CuMatrix<BaseFloat>(), od_cu, nullptr, c.get(),
              &d);
  int32 clipped = 0;
  for (int32 r = 0; r < 4; r++) {
    double norm = 0;
    for (int32 j = 0; j < 3; j++) norm += double(od(r, j)) * od(r, j);
    norm = std::sqrt(norm);
    double scale = (norm > 2.0 ? 2.0 / norm : 1.0);
    if (norm > 2.0) clipped++;
    for (int32 j = 0; j < 3; j++)
      EXPECT_NEAR(d.GetElement(r, j), od(r, j) * scale, 1e-5);
  }
  auto *cg = dynamic_cast<ClipGradientComponent *>(c.get());
  EXPECT_EQ(cg->NumClipped(), clipped);
  EXPECT_EQ(cg->Count(), 4);
  EXPECT_EQ(cg->NumBackpropped(), 1);
  // Element-wise: values clipped to [-0.5, 0.5].
  c = FromConfig("ClipGradientComponent", "dim=3 clipping-threshold=0.5");
  c->Backprop("", nullptr, in, CuMatrix<BaseFloat>(), od_cu, nullptr, nullptr,
              &d);
  for (int32 r = 0; r < 4; r++)
    for (int32 j = 0; j < 3; j++)
      EXPECT_EQ(d.GetElement(r, j), std::max(-0.5f, std::min(0.5f, od(r, j))));
  // Threshold 0 zeroes the derivative.
  c = FromConfig("ClipGradientComponent", "dim=3 clipping-threshold=0");
  c->Backprop("", nullptr, in, CuMatrix<BaseFloat>(), od_cu, nullptr, nullptr,
              &d);
  EXPECT_EQ(d.FrobeniusNorm(), 0.0);
}

TEST(SimpleTest, IoRoundTrip) {
  auto cs = Examples();
  for (auto &c : cs) {
    std::string type = c->Type();
    testing::CheckIoRoundTrip(*c, [type] { return Component::NewComponentOfType(type); });
  }
}

TEST(SimpleTest, KaldiTextSpansRoundTrip) {
  int32 count = 0;
  for (const char *type : kTypes) {
    std::vector<std::string> spans = testing::ReferenceSpans(type);
    EXPECT_FALSE(spans.empty()) << type;
    for (const std::string &span : spans) {
      std::unique_ptr<Component> c(Component::NewComponentOfType(type));
      std::istringstream is(span);
      c->Read(is, false);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c, false), span), "")
          << type;
      std::string bin = testing::WriteToString(*c, true);
      std::unique_ptr<Component> c2(Component::NewComponentOfType(type));
      std::istringstream bis(bin);
      c2->Read(bis, true);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c2, false), span), "")
          << type;
      count++;
    }
  }
  EXPECT_GE(count, 9);
}

const char *kModelFiles[] = {
    "components_a", "components_b", "components_c", "descriptors", "rnn",
    "seed", "tdnn", "tdnn_real", "rand002", "rand003", "rand004", "rand005",
    "rand006", "rand007", "rand008", "rand009", "rand010", "rand011",
    "rand012", "rand013", "rand014", "rand015", "rand016", "rand017",
    "rand018", "rand019", "rand020", "rand021"};

TEST(SimpleTest, KaldiBinarySpansAndInfo) {
  int32 spans = 0, infos = 0;
  std::map<std::string, int32> seen;
  for (const char *f : kModelFiles) {
    std::string raw = ReadFile(testing::ModelsDir() + f + ".raw");
    std::string info = ReadFile(testing::ModelsDir() + f + ".info");
    if (raw.empty()) continue;
    std::map<std::string, std::string> lines;
    std::istringstream info_is(info);
    std::string line;
    while (std::getline(info_is, line)) {
      if (line.compare(0, 15, "component name=") != 0) continue;
      size_t sp = line.find(' ', 15);
      lines[line.substr(15, sp - 15)] = line.substr(sp + 6);
    }
    size_t pos = 0;
    const std::string key = "<ComponentName> ";
    while ((pos = raw.find(key, pos)) != std::string::npos) {
      size_t name_end = raw.find(' ', pos + key.size());
      std::string name = raw.substr(pos + key.size(), name_end - pos - key.size());
      size_t type_end = raw.find(' ', name_end + 1);
      std::string tag = raw.substr(name_end + 1, type_end - name_end - 1);
      pos = type_end;
      if (tag.size() < 3) continue;
      std::string type = tag.substr(1, tag.size() - 2);
      std::unique_ptr<Component> c(Component::NewComponentOfType(type));
      if (!c) continue;
      std::string close = "</" + type + "> ";
      size_t end = raw.find(close, name_end);
      ASSERT_NE(end, std::string::npos);
      std::string span = raw.substr(name_end + 1, end + close.size() - name_end - 1);
      std::istringstream is(span);
      c->Read(is, true);
      EXPECT_EQ(testing::FirstDifference(testing::WriteToString(*c, true), span), "")
          << f << " " << name;
      spans++;
      seen[type]++;
      if (lines.count(name)) {
        EXPECT_EQ(c->Info(), lines[name]) << f << " " << name;
        infos++;
      }
    }
  }
  for (const char *type : kTypes) EXPECT_GT(seen[type], 0) << type;
  EXPECT_GE(spans, 9);
  EXPECT_GE(infos, 9);
}

TEST(SimpleTest, ConfigFromFilesAndDefaults) {
  // Run from the models folder, as the Kaldi configs name the files.
  std::unique_ptr<Component> s = FromConfig(
      "FixedScaleComponent",
      "scales=" + testing::ModelsDir() + "components_b.scales.vec");
  EXPECT_EQ(s->InputDim(), 12);
  EXPECT_FLOAT_EQ(
      dynamic_cast<FixedScaleComponent &>(*s).Scales().GetElement(0), 0.9446f);
  std::unique_ptr<Component> b = FromConfig(
      "FixedBiasComponent", "bias=" + testing::ModelsDir() + "components_b.bias.vec");
  EXPECT_FLOAT_EQ(
      dynamic_cast<FixedBiasComponent &>(*b).Bias().GetElement(2), -0.4277f);
  s = FromConfig("FixedScaleComponent", "dim=3 scale=2.5");
  EXPECT_EQ(dynamic_cast<FixedScaleComponent &>(*s).Scales().GetElement(2),
            2.5f);
  std::unique_ptr<Component> c = FromConfig("ClipGradientComponent", "dim=4");
  EXPECT_EQ(c->Info(),
            "ClipGradientComponent, dim=4, norm-based-clipping=false, "
            "clipping-threshold=15, clipped-proportion=0, "
            "self-repair-clipped-proportion-threshold=0.01, "
            "self-repair-target=0, self-repair-scale=1");
  c = FromConfig("SumGroupComponent", "input-dim=6 output-dim=2");
  std::vector<int32> sizes;
  dynamic_cast<SumGroupComponent &>(*c).GetSizes(&sizes);
  EXPECT_EQ(sizes, std::vector<int32>({3, 3}));
  c = FromConfig("SumBlockComponent", "input-dim=6 output-dim=2");
  EXPECT_EQ(c->Info(), "SumBlockComponent, input-dim=6, output-dim=2, scale=1");
  c = FromConfig("NoOpComponent", "dim=5");
  EXPECT_EQ(c->Info(), "NoOpComponent, dim=5");
}

TEST(SimpleTest, ConfigErrors) {
  std::string e = ConfigError("NoOpComponent", "dim=3 bogus=1");
  EXPECT_NE(e.find("bogus"), std::string::npos) << e;
  e = ConfigError("NoOpComponent", "backprop-scale=2");
  EXPECT_NE(e.find("dim"), std::string::npos) << e;
  e = ConfigError("ClipGradientComponent", "dim=3 clip=1");
  EXPECT_NE(e.find("clip=1"), std::string::npos) << e;
  e = ConfigError("ClipGradientComponent", "clipping-threshold=1");
  EXPECT_NE(e.find("dim"), std::string::npos) << e;
  e = ConfigError("PnormComponent", "input-dim=10 output-dim=3");
  EXPECT_NE(e.find("output-dim=3"), std::string::npos) << e;
  e = ConfigError("PnormComponent", "input-dim=10");
  EXPECT_NE(e.find("output-dim"), std::string::npos) << e;
  e = ConfigError("SumGroupComponent", "sizes=1,0,2");
  EXPECT_NE(e.find("size"), std::string::npos) << e;
  e = ConfigError("SumGroupComponent", "input-dim=4");
  EXPECT_NE(e.find("sizes"), std::string::npos) << e;
  e = ConfigError("SumBlockComponent", "input-dim=4 output-dim=2 scales=1");
  EXPECT_NE(e.find("scales=1"), std::string::npos) << e;
  e = ConfigError("ElementwiseProductComponent", "input-dim=4 output-dim=4");
  EXPECT_NE(e.find("input-dim=4"), std::string::npos) << e;
  e = ConfigError("PermuteComponent", "column-map=0,1,1");
  EXPECT_NE(e.find("permutation"), std::string::npos) << e;
  e = ConfigError("PermuteComponent", "dim=3");
  EXPECT_NE(e.find("column-map"), std::string::npos) << e;
  e = ConfigError("FixedScaleComponent", "scales=/nonexistent/file.vec");
  EXPECT_NE(e.find("scales=/nonexistent/file.vec"), std::string::npos) << e;
  e = ConfigError("FixedBiasComponent", "bias=x dim=3");
  EXPECT_NE(e.find("dim"), std::string::npos) << e;
  e = ConfigError("FixedBiasComponent", "scale=2");
  EXPECT_NE(e.find("dim"), std::string::npos) << e;
}

// Sizes from a file whose sum overflows int32, or whose reverse index
// would be gigabytes, fail with one clear error before any allocation.
TEST(SimpleTest, SumGroupSizesThatOverflowAreErrors) {
  auto read_error = [](const std::string &text) {
    std::istringstream is(text);
    SumGroupComponent c;
    try {
      c.Read(is, false);
    } catch (const UserError &e) {
      return e.message();
    }
    return std::string("no error");
  };
  std::string m = read_error(
      "<SumGroupComponent> <Sizes> [ 2147483647 2147483647 1 ] "
      "</SumGroupComponent> ");
  EXPECT_NE(m.find("overflow int32"), std::string::npos) << m;
  EXPECT_NE(m.find("at group 1"), std::string::npos) << m;
  // One huge group: within int32, but its 8 GiB index is over the limit on
  // declared sizes (checked with a lowered limit to stay cheap).
  int64 old = SetMaxDeclaredBytes(int64(1) << 20);
  m = read_error(
      "<SumGroupComponent> <Sizes> [ 1000000 ] </SumGroupComponent> ");
  SetMaxDeclaredBytes(old);
  EXPECT_NE(m.find("limit of 1048576 bytes"), std::string::npos) << m;
  EXPECT_NE(read_error("<SumGroupComponent> <Sizes> [ 2 -1 ] "
                       "</SumGroupComponent> ").find("invalid group size"),
            std::string::npos);
  EXPECT_EQ(read_error("<SumGroupComponent> <Sizes> [ 2 5 ] "
                       "</SumGroupComponent> "), "no error");
}

// input-dim/output-dim on a config line are checked against the same limit
// before the group list is built (a huge output-dim used to allocate
// output-dim integers first).
TEST(SimpleTest, SumGroupHugeConfigDimsAreErrors) {
  int64 old = SetMaxDeclaredBytes(int64(1) << 20);
  std::string e = ConfigError("SumGroupComponent",
                              "input-dim=2000000000 output-dim=1000000000");
  SetMaxDeclaredBytes(old);
  EXPECT_NE(e.find("input-dim=2000000000"), std::string::npos) << e;
  EXPECT_NE(e.find("limit of 1048576 bytes"), std::string::npos) << e;
  // Within the limit the same form still works.
  std::unique_ptr<Component> c =
      FromConfig("SumGroupComponent", "input-dim=6 output-dim=3");
  EXPECT_EQ(c->InputDim(), 6);
  EXPECT_EQ(c->OutputDim(), 3);
}

TEST(SimpleTest, ReadsOldNoOpFormat) {
  // NoOpComponent once was a NonlinearComponent; Kaldi still reads that.
  std::istringstream is(
      "<NoOpComponent> <Dim> 3 <ValueAvg> [ ] <DerivAvg> [ ] <Count> 0 "
      "<OderivRms> [ ] <OderivCount> 0 <NumDimsSelfRepaired> 0 "
      "<NumDimsProcessed> 0 </NoOpComponent> ");
  NoOpComponent c;
  c.Read(is, false);
  EXPECT_EQ(c.InputDim(), 3);
  EXPECT_EQ(c.Info(), "NoOpComponent, dim=3");
}

}  // namespace
}  // namespace nnet3
