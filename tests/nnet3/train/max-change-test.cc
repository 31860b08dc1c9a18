// tests/nnet3/train/max-change-test.cc
// UpdateNnetWithMaxChange and the whole-network arithmetic, on a network
// whose parameter changes are set by hand so the limiting factors can be
// worked out on paper.
#include <gtest/gtest.h>

#include <cmath>

#include "nnet3/testing/random-nnet.h"
#include "nnet3/train/max-change.h"
#include "nnet3/train/nnet-arith.h"

namespace nnet3 {
namespace {

const char *kConfig =
    "input-node name=input dim=2\n"
    "component name=a type=AffineComponent input-dim=2 output-dim=2 "
    "max-change=0.5\n"
    "component-node name=a component=a input=input\n"
    "component name=r type=RectifiedLinearComponent dim=2\n"
    "component-node name=r component=r input=a\n"
    "component name=b type=AffineComponent input-dim=2 output-dim=2\n"
    "component-node name=b component=b input=r\n"
    "output-node name=output input=b\n";

UpdatableComponent *Upd(Nnet *nnet, const std::string &name) {
  return dynamic_cast<UpdatableComponent *>(
      nnet->GetComponent(nnet->GetComponentIndex(name)));
}

// Sets the parameters of component 'name' to v times a unit vector
// (all parameters equal), so its norm is |v|.
void SetNorm(Nnet *nnet, const std::string &name, BaseFloat norm) {
  UpdatableComponent *u = Upd(nnet, name);
  Vector<BaseFloat> p(u->NumParameters());
  p.Set(norm / std::sqrt(static_cast<BaseFloat>(p.Dim())));
  u->UnVectorize(p);
}

Vector<BaseFloat> Params(Nnet *nnet, const std::string &name) {
  UpdatableComponent *u = Upd(nnet, name);
  Vector<BaseFloat> p(u->NumParameters());
  u->Vectorize(&p);
  return p;
}

struct LogCapture {
  std::string text;
  LogHandler old;
  LogCapture() {
    old = SetLogHandler([this](int, const std::string &line) {
      text += line + "\n";
    });
  }
  ~LogCapture() { SetLogHandler(old); }
};

class MaxChangeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nnet_ = NnetFromConfigString(kConfig);
    delta_ = nnet_;
    ScaleNnet(0.0, &delta_);
    SetNorm(&delta_, "a", 2.0);  // over its max-change 0.5: factor 0.25
    SetNorm(&delta_, "b", 1.0);
  }
  // Expected parameters after nnet += fa * delta_a, fb * delta_b.
  void ExpectUpdated(BaseFloat fa, BaseFloat fb, Nnet *updated) {
    for (const char *name : {"a", "b"}) {
      Vector<BaseFloat> expected = Params(&nnet_, name);
      expected.AddVec(name[0] == 'a' ? fa : fb, Params(&delta_, name));
      Vector<BaseFloat> got = Params(updated, name);
      for (int32 i = 0; i < got.Dim(); i++)
        EXPECT_NEAR(got(i), expected(i), 1e-5) << name << " " << i;
    }
  }
  Nnet nnet_, delta_;
};

TEST_F(MaxChangeTest, PerComponentOnly) {
  Nnet updated(nnet_);
  std::vector<int32> per_comp;
  int32 global = 0;
  LogCapture log;
  ASSERT_TRUE(UpdateNnetWithMaxChange(delta_, 0.0, 1.0, 1.0, &updated,
                                      &per_comp, &global));
  ExpectUpdated(0.25, 1.0, &updated);
  ASSERT_EQ(per_comp.size(), 2u);
  EXPECT_EQ(per_comp[0], 1);
  EXPECT_EQ(per_comp[1], 0);
  EXPECT_EQ(global, 0);
  EXPECT_NE(log.text.find("Per-component max-change active on 1 / 2 "
                          "Updatable Components. (Smallest factor=0.25 on a "
                          "with max-change=0.5). Global max-change factor "
                          "was 0 with max-change=0."),
            std::string::npos)
      << log.text;
}

TEST_F(MaxChangeTest, GlobalAfterPerComponent) {
  Nnet updated(nnet_);
  std::vector<int32> per_comp;
  int32 global = 0;
  // After the per-component limit the change has norm
  // sqrt((0.25*2)^2 + 1^2) = sqrt(1.25); the global limit 0.5 scales by
  // 0.5 / sqrt(1.25).
  ASSERT_TRUE(UpdateNnetWithMaxChange(delta_, 0.5, 1.0, 1.0, &updated,
                                      &per_comp, &global));
  BaseFloat g = 0.5 / std::sqrt(1.25);
  ExpectUpdated(0.25 * g, g, &updated);
  EXPECT_EQ(global, 1);
}

TEST_F(MaxChangeTest, ScaleCountsTowardsTheLimits) {
  // With scale 0.5 (momentum 0.5) component a's change is 1.0 > 0.5:
  // factor 0.5, applied on top of the scale: 0.25 in all.
  Nnet updated(nnet_);
  std::vector<int32> per_comp;
  int32 global = 0;
  ASSERT_TRUE(UpdateNnetWithMaxChange(delta_, 0.0, 1.0, 0.5, &updated,
                                      &per_comp, &global));
  ExpectUpdated(0.25, 0.5, &updated);
}

TEST_F(MaxChangeTest, NoLimitActiveAddsScaled) {
  SetNorm(&delta_, "a", 0.1);
  Nnet updated(nnet_);
  std::vector<int32> per_comp;
  int32 global = 0;
  LogCapture log;
  ASSERT_TRUE(UpdateNnetWithMaxChange(delta_, 2.0, 1.0, 0.7, &updated,
                                      &per_comp, &global));
  ExpectUpdated(0.7, 0.7, &updated);
  EXPECT_EQ(log.text.find("max-change"), std::string::npos) << log.text;
}

TEST_F(MaxChangeTest, InfiniteChangeRefused) {
  Vector<BaseFloat> p = Params(&delta_, "b");
  p(0) = std::numeric_limits<BaseFloat>::infinity();
  Upd(&delta_, "b")->UnVectorize(p);
  Nnet updated(nnet_);
  std::vector<int32> per_comp;
  int32 global = 0;
  EXPECT_FALSE(UpdateNnetWithMaxChange(delta_, 1.0, 1.0, 1.0, &updated,
                                       &per_comp, &global));
  ExpectUpdated(0.0, 0.0, &updated);
}

TEST(NnetArithTest, DotProductAddAndScale) {
  Nnet a = NnetFromConfigString(kConfig), b(a);
  SetNorm(&a, "a", 3.0);
  SetNorm(&a, "b", 4.0);
  EXPECT_NEAR(DotProduct(a, a), 25.0, 1e-4);
  Vector<BaseFloat> dots;
  ComponentDotProducts(a, a, &dots);
  ASSERT_EQ(dots.Dim(), 2);
  EXPECT_NEAR(dots(0), 9.0, 1e-4);
  EXPECT_NEAR(dots(1), 16.0, 1e-4);
  EXPECT_EQ(PrintVectorPerUpdatableComponent(a, dots), "[ a:9 b:16 ]");
  b = a;
  AddNnet(a, 1.0, &b);  // b = 2a
  EXPECT_NEAR(DotProduct(a, b), 50.0, 1e-3);
  ScaleNnet(0.5, &b);
  EXPECT_NEAR(DotProduct(b, b), 25.0, 1e-3);
  EXPECT_EQ(NumUpdatableComponents(a), 2);
  Nnet other = NnetFromConfigString(
      "input-node name=input dim=2\n"
      "component name=a type=AffineComponent input-dim=2 output-dim=2\n"
      "component-node name=a component=a input=input\n"
      "output-node name=output input=a\n");
  EXPECT_THROW(AddNnet(other, 1.0, &b), UserError);
}

TEST(NnetArithTest, L2RegularizationPullsTowardsZero) {
  Nnet nnet = NnetFromConfigString(
      "input-node name=input dim=2\n"
      "component name=a type=AffineComponent input-dim=2 output-dim=2 "
      "learning-rate=0.1 l2-regularize=0.5\n"
      "component-node name=a component=a input=input\n"
      "output-node name=output input=a\n");
  SetNorm(&nnet, "a", 2.0);
  Nnet delta(nnet);
  ScaleNnet(0.0, &delta);
  ApplyL2Regularization(nnet, 4.0, &delta);
  // delta = -2 * 4 * 0.1 * 0.5 * params = -0.4 * params.
  Vector<BaseFloat> p = Params(&nnet, "a"), d = Params(&delta, "a");
  for (int32 i = 0; i < p.Dim(); i++) EXPECT_NEAR(d(i), -0.4 * p(i), 1e-6);
}

}  // namespace
}  // namespace nnet3
