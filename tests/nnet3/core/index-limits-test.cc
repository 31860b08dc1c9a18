// tests/nnet3/core/index-limits-test.cc: the "<I1V>" readers given a lying
// element count fail with one clear error before allocating for it, on
// seekable input and on input of unknown length, and still read valid data.
// Allocation is bounded by running the reader in a child process whose
// address space may grow by only 64 MiB.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "common/memory-limit.h"
#include "nnet3/core/index.h"

namespace nnet3 {
namespace {

using testing::LimitedRun;
using testing::RunWithMemoryLimit;
using testing::UnsizedIstream;

std::string HugeI1V() {
  int32 n = 0x7fffffff;  // 2^31-1 Indexes: about 26 GB as a vector
  std::string s = "<I1V> ";
  s += static_cast<char>(4);
  s.append(reinterpret_cast<const char *>(&n), 4);
  s += std::string(3, '\0');  // three small-delta elements, then the end
  return s;
}

void ExpectBounded(const std::function<void()> &fn, const std::string &what) {
  LimitedRun run = RunWithMemoryLimit(size_t(64) << 20, fn);
  ASSERT_EQ(run.outcome, LimitedRun::kUserError) << Describe(run);
  EXPECT_NE(run.message.find(what), std::string::npos) << run.message;
}

TEST(IndexLimits, IndexVectorHugeCountSeekable) {
  std::string data = HugeI1V();
  ExpectBounded([&] {
    std::istringstream is(data);
    std::vector<Index> v;
    ReadIndexVector(is, true, &v);
  }, "ReadIndexVector (<I1V>): the element count 2147483647");
}

TEST(IndexLimits, IndexVectorHugeCountUnsized) {
  std::string data = HugeI1V();
  ExpectBounded([&] {
    UnsizedIstream is(data);
    std::vector<Index> v;
    ReadIndexVector(is, true, &v);
  }, "ReadIndexVector (<I1V>): unexpected end of file at element 3");
}

TEST(IndexLimits, CindexVectorHugeCount) {
  std::string data = HugeI1V();
  ExpectBounded([&] {
    std::istringstream is(data);
    std::vector<Cindex> v;
    ReadCindexVector(is, true, &v);
  }, "ReadCindexVector (<I1V>): the element count 2147483647");
  ExpectBounded([&] {
    UnsizedIstream is(data);
    std::vector<Cindex> v;
    ReadCindexVector(is, true, &v);
  }, "ReadCindexVector");
}

TEST(IndexLimits, TextHugeCount) {
  std::string data = "<I1V> 2147483647 <I1> 0 3 0 ";
  ExpectBounded([&] {
    std::istringstream is(data);
    std::vector<Index> v;
    ReadIndexVector(is, false, &v);
  }, "the element count 2147483647");
  ExpectBounded([&] {
    UnsizedIstream is(data);
    std::vector<Index> v;
    ReadIndexVector(is, false, &v);
  }, "");
}

TEST(IndexLimits, ValidVectorsStillRead) {
  std::vector<Index> v;
  for (int i = 0; i < 200000; i++) v.push_back(Index(i % 3, i - 50, i % 2));
  for (int binary = 0; binary < 2; binary++) {
    std::ostringstream os;
    WriteIndexVector(os, binary, v);
    std::istringstream ss(os.str());
    UnsizedIstream us(os.str());
    std::vector<Index> a, b;
    ReadIndexVector(ss, binary, &a);
    ReadIndexVector(us, binary, &b);
    EXPECT_EQ(a, v);
    EXPECT_EQ(b, v);
  }
}

}  // namespace
}  // namespace nnet3
