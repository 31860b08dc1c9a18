// Tests of base/profile.h: exclusive charging of nested scopes, call
// counts, no recording without an active profiler, activation nesting,
// and the table's shares.
#include "base/profile.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>
#include <string>
#include <thread>

namespace nnet3 {
namespace {

void SleepMs(int ms) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

TEST(Profiler, NestedScopesAreChargedExclusively) {
  Profiler p;
  auto start = std::chrono::steady_clock::now();
  {
    ProfilerActivation active(&p);
    ProfileScope outer("outer");
    SleepMs(30);
    for (int i = 0; i < 2; i++) {
      ProfileScope inner(std::string("inner"));
      SleepMs(40);
    }
  }
  double wall = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start).count();
  const auto &e = p.Entries();
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e.at("outer").calls, 1);
  EXPECT_EQ(e.at("inner").calls, 2);
  // Sleeps are lower bounds. Charged inclusively, "outer" would be the
  // whole wall time; exclusively it is at most the wall time less "inner".
  EXPECT_GE(e.at("inner").seconds, 0.080);
  EXPECT_GE(e.at("outer").seconds, 0.030);
  EXPECT_LE(e.at("outer").seconds, wall - e.at("inner").seconds + 1e-6);
  EXPECT_NEAR(p.TotalSeconds(), e.at("inner").seconds + e.at("outer").seconds,
              1e-12);
}

TEST(Profiler, AScopeInsideItsParentCategoryIsChargedToTheNestedName) {
  Profiler p;
  {
    ProfilerActivation active(&p);
    { ProfileScope gemm("GEMM", "natural gradient", "GEMM in NG"); }
    {
      ProfileScope ng(std::string("natural gradient"));  // not a literal
      ProfileScope gemm("GEMM", "natural gradient", "GEMM in NG");
    }
    {
      // The text decides, not the address of the literal.
      std::string parent = "natural gradient";
      ProfileScope ng("natural gradient");
      ProfileScope gemm("GEMM", parent.c_str(), "GEMM in NG");
      ProfileScope deeper("GEMM", parent.c_str(), "GEMM in NG");
    }
  }
  const auto &e = p.Entries();
  // The first GEMM has no parent; the second's parent was opened from a
  // std::string, which this rule does not see; the third is inside; the
  // fourth's innermost scope is that GEMM, not the natural gradient.
  EXPECT_EQ(e.at("GEMM").calls, 3);
  EXPECT_EQ(e.at("GEMM in NG").calls, 1);
  EXPECT_EQ(e.at("natural gradient").calls, 2);
}

TEST(Profiler, NothingIsRecordedWithoutActivation) {
  Profiler p;
  { ProfileScope s("x"); }
  EXPECT_TRUE(p.Entries().empty());
  EXPECT_EQ(ActiveProfiler(), nullptr);
  {
    ProfilerActivation a(&p);
    EXPECT_EQ(ActiveProfiler(), &p);
    Profiler q;
    {
      ProfilerActivation b(&q);
      ProfileScope s("in q");
    }
    EXPECT_EQ(ActiveProfiler(), &p);
    EXPECT_EQ(q.Entries().count("in q"), 1u);
  }
  EXPECT_EQ(ActiveProfiler(), nullptr);
  EXPECT_TRUE(p.Entries().empty());
}

TEST(Profiler, OtherThreadsAreNotProfiled) {
  Profiler p;
  ProfilerActivation a(&p);
  std::thread t([] { ProfileScope s("other thread"); });
  t.join();
  EXPECT_TRUE(p.Entries().empty());
}

TEST(Profiler, TableListsCategoriesByTimeWithShares) {
  Profiler p;
  {
    ProfilerActivation a(&p);
    { ProfileScope s("small"); SleepMs(5); }
    { ProfileScope s("large"); SleepMs(40); }
  }
  std::ostringstream os;
  p.PrintTable(os, "title");
  std::string t = os.str();
  EXPECT_EQ(t.rfind("title\n", 0), 0u) << t;
  EXPECT_LT(t.find("large"), t.find("small")) << t;
  EXPECT_NE(t.find("total"), std::string::npos) << t;
  EXPECT_NE(t.find("100.0%"), std::string::npos) << t;
}

}  // namespace
}  // namespace nnet3
