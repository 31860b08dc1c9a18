// tests/base/io-limits-test.cc: sizes declared by untrusted input never
// allocate more than the input can hold (seekable streams) or than the
// documented limit (streams of unknown length), and valid data still reads.
// Allocation is checked by running the reader in a child process whose
// address space may grow by only 64 MiB.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>

#include "base/io.h"
#include "common/memory-limit.h"
#include "common/sanitizers.h"

namespace nnet3 {
namespace {

using testing::LimitedRun;
using testing::RunWithMemoryLimit;
using testing::UnsizedIstream;

const size_t kLimit = size_t(64) << 20;

std::string Int32Bytes(int32 n) {
  std::string s(4, '\0');
  std::memcpy(&s[0], &n, 4);
  return s;
}

// Binary integer-vector header: element size byte, then the int32 count.
std::string VectorHeader(int size_byte, int32 count) {
  return std::string(1, static_cast<char>(size_byte)) + Int32Bytes(count);
}

// Runs fn under the memory limit and expects a UserError containing "what".
void ExpectBoundedError(const std::function<void()> &fn,
                        const std::string &what) {
  LimitedRun run = RunWithMemoryLimit(kLimit, fn);
  ASSERT_EQ(run.outcome, LimitedRun::kUserError) << Describe(run);
  EXPECT_NE(run.message.find(what), std::string::npos) << run.message;
  EXPECT_EQ(run.message.find('\n'), std::string::npos) << run.message;
}

TEST(IoLimits, TheMemoryGuardCatchesBigAllocations) {
  // Under ASan an allocation refused by RLIMIT_AS ends the child with ASan's
  // own out-of-memory report, not std::bad_alloc. (The readers' tests still
  // run: they must fail before allocating, which holds either way.)
  if (testing::kAddressSanitizer)
    GTEST_SKIP() << "the RLIMIT_AS guard reports differently under ASan";
  LimitedRun big = RunWithMemoryLimit(kLimit, [] {
    std::vector<char> v(size_t(1) << 30);
    v[12345] = 1;
  });
  EXPECT_EQ(big.outcome, LimitedRun::kOutOfMemory) << Describe(big);
  LimitedRun small = RunWithMemoryLimit(kLimit, [] {
    std::vector<char> v(size_t(4) << 20);
  });
  EXPECT_EQ(small.outcome, LimitedRun::kReturned) << Describe(small);
}

TEST(IoLimits, StreamBytesLeft) {
  std::istringstream is("abcdefgh");
  is.get();
  is.get();
  EXPECT_EQ(StreamBytesLeft(is), 6);
  EXPECT_EQ(is.get(), 'c');  // position unchanged
  UnsizedIstream us("abcdefgh");
  EXPECT_EQ(StreamBytesLeft(us), -1);
  EXPECT_EQ(us.get(), 'a');
}

TEST(IoLimits, CheckDeclaredSizeSeekable) {
  std::string data(100, 'x');
  std::istringstream is(data);
  EXPECT_TRUE(CheckDeclaredSize(is, 25, 4, "field"));
  EXPECT_THROW(CheckDeclaredSize(is, -1, 4, "field"), UserError);
  try {
    CheckDeclaredSize(is, int64(1) << 40, 4, "MyReader: the frame count");
    FAIL() << "no error";
  } catch (const UserError &e) {
    std::string m = e.message();
    EXPECT_NE(m.find("MyReader: the frame count 1099511627776"),
              std::string::npos) << m;
    EXPECT_NE(m.find("100 are left"), std::string::npos) << m;
  }
  // A count whose byte size overflows int64 is an error, not a wrap-around.
  EXPECT_THROW(CheckDeclaredSize(is, int64(1) << 62, 8, "field"), UserError);
}

TEST(IoLimits, CheckDeclaredSizeUnsized) {
  UnsizedIstream is("abc");
  // Small counts pass (their reads catch the truncation); large ones pass
  // only under the limit.
  EXPECT_FALSE(CheckDeclaredSize(is, 1000, 4, "field"));
  int64 old = SetMaxDeclaredBytes(int64(1) << 30);
  EXPECT_FALSE(CheckDeclaredSize(is, int64(1) << 20, 4, "field"));
  try {
    CheckDeclaredSize(is, int64(1) << 29, 4, "Reader: the count");
    FAIL() << "no error";
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("Reader: the count 536870912"),
              std::string::npos) << e.message();
    EXPECT_NE(e.message().find("limit of 1073741824"), std::string::npos)
        << e.message();
  }
  SetMaxDeclaredBytes(old);
  EXPECT_EQ(MaxDeclaredBytes(), old);
}

TEST(IoLimits, SevenByteIntegerVectorSeekable) {
  // The example: 7 bytes that declare 2^31-1 int32 values (8 GiB).
  std::string data = VectorHeader(4, 0x7fffffff) + "ab";
  ExpectBoundedError([&] {
    std::istringstream is(data);
    std::vector<int32> v;
    ReadIntegerVector(is, true, &v);
  }, "ReadIntegerVector: the element count 2147483647");
}

TEST(IoLimits, IntegerVectorUnsized) {
  std::string data = VectorHeader(4, 0x7fffffff) + "ab";
  // Just under 8 GiB declared: within the default limit, so the chunked
  // read must fail on the missing data without allocating for it.
  ExpectBoundedError([&] {
    UnsizedIstream is(data);
    std::vector<int32> v;
    ReadIntegerVector(is, true, &v);
  }, "ReadIntegerVector: the element count 2147483647");
  // int64 elements: 16 GiB declared, over the limit.
  std::string data64 = VectorHeader(8, 0x7fffffff) + "ab";
  ExpectBoundedError([&] {
    UnsizedIstream is(data64);
    std::vector<int64> v;
    ReadIntegerVector(is, true, &v);
  }, "limit of");
  // 100 MB declared, 3 MB present: fails on the truncation, having
  // allocated only about what arrived.
  std::string data3 = VectorHeader(4, 25 << 20) + std::string(3 << 20, '\1');
  ExpectBoundedError([&] {
    UnsizedIstream is(data3);
    std::vector<int32> v;
    ReadIntegerVector(is, true, &v);
  }, "input ends after 3145728");
}

TEST(IoLimits, IntegerPairVector) {
  std::string data = VectorHeader(4, 0x7fffffff) + "abc";
  ExpectBoundedError([&] {
    std::istringstream is(data);
    std::vector<std::pair<int32, int32> > v;
    ReadIntegerPairVector(is, true, &v);
  }, "ReadIntegerPairVector: the pair count 2147483647");
  ExpectBoundedError([&] {
    UnsizedIstream is(data);
    std::vector<std::pair<int32, int32> > v;
    ReadIntegerPairVector(is, true, &v);
  }, "ReadIntegerPairVector: the pair count 2147483647");
}

TEST(IoLimits, ValidVectorsReadExactlyFromAnyStream) {
  // Larger than one read piece, so the chunked path is exercised.
  std::vector<int32> v(3 << 18);
  for (size_t i = 0; i < v.size(); i++) v[i] = static_cast<int32>(i * 7 - 5);
  std::vector<std::pair<int16, int16> > p(300000);
  for (size_t i = 0; i < p.size(); i++)
    p[i] = {static_cast<int16>(i), static_cast<int16>(-static_cast<int>(i))};
  std::ostringstream os;
  WriteIntegerVector(os, true, v);
  WriteIntegerPairVector(os, true, p);
  for (int unsized = 0; unsized < 2; unsized++) {
    std::istringstream ss(os.str());
    UnsizedIstream us(os.str());
    std::istream &is = unsized ? static_cast<std::istream &>(us) : ss;
    std::vector<int32> rv;
    std::vector<std::pair<int16, int16> > rp;
    ReadIntegerVector(is, true, &rv);
    ReadIntegerPairVector(is, true, &rp);
    EXPECT_EQ(rv, v);
    EXPECT_EQ(rp, p);
    EXPECT_EQ(is.peek(), EOF);
  }
}

TEST(IoLimits, ReadRawArrayTruncatedSmall) {
  std::string data(10, 'x');
  std::istringstream is(data);
  std::vector<int32> v;
  try {
    ReadRawArray(is, 3, &v, "Thing: the size");
    FAIL() << "no error";
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("Thing: the size 3"), std::string::npos)
        << e.message();
  }
}

}  // namespace
}  // namespace nnet3
