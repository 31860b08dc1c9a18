// tests/nnet3/core/index-test.cc: Index ordering, printing, and Kaldi's
// compact "<I1V>" encoding checked against hand-written bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "nnet3/core/index.h"

namespace nnet3 {
namespace {

TEST(Index, OrderIsTThenXThenN) {
  // Kaldi's order: t first, then x, then n (n varies fastest).
  std::vector<Index> v = {Index(1, 0), Index(0, 5), Index(0, -1, 2),
                          Index(0, -1, 1), Index(0, 3), Index(0, 0),
                          Index(2, -1, 1)};
  std::sort(v.begin(), v.end());
  std::vector<Index> want = {Index(0, -1, 1), Index(2, -1, 1),
                             Index(0, -1, 2), Index(0, 0),
                             Index(1, 0),     Index(0, 3),
                             Index(0, 5)};
  EXPECT_EQ(v, want);
  EXPECT_NE(IndexHasher()(Index(0, 1)), IndexHasher()(Index(1, 0)));
}

TEST(Index, CompactPrinting) {
  std::vector<Index> v = {Index(0, -1), Index(0, 0), Index(0, 1),
                          Index(1, -1), Index(1, 0), Index(1, 1),
                          Index(1, 3), Index(2, 0, 4)};
  EXPECT_EQ(IndexesToString(v),
            "[ (0, -1:1) (1, -1:1) (1, 3) (2, 0, 4) ]");
  std::ostringstream os;
  os << Index(2, 5) << Cindex(3, Index(0, -2, 1));
  EXPECT_EQ(os.str(), "(2, 5)3(0, -2, 1)");
}

std::string Int32Bytes(int32 v) {
  std::string s(1, '\x04');
  s.append(reinterpret_cast<const char *>(&v), 4);
  return s;
}

TEST(Index, BinaryVectorEncoding) {
  std::vector<Index> v = {Index(0, -2), Index(0, -1), Index(0, 1),
                          Index(1, 1), Index(1, 200)};
  std::ostringstream os;
  WriteIndexVector(os, true, v);
  std::string want = "<I1V> " + Int32Bytes(5);
  want += static_cast<char>(-2);  // first: n=0, x=0, small t
  want += static_cast<char>(1);   // t+1
  want += static_cast<char>(2);   // t+2
  want += static_cast<char>(127) + Int32Bytes(1) + Int32Bytes(1) + Int32Bytes(0);
  want += static_cast<char>(127) + Int32Bytes(1) + Int32Bytes(200) + Int32Bytes(0);
  EXPECT_EQ(os.str(), want);
  std::istringstream is(os.str());
  std::vector<Index> back;
  ReadIndexVector(is, true, &back);
  EXPECT_EQ(back, v);
}

TEST(Index, TextVectorEncodingRoundTrips) {
  std::vector<Index> v = {Index(0, 3), Index(2, -7, 1)};
  std::ostringstream os;
  WriteIndexVector(os, false, v);
  EXPECT_EQ(os.str(), "<I1V> 2 <I1> 0 3 0 <I1> 2 -7 1 ");
  std::istringstream is(os.str());
  std::vector<Index> back;
  ReadIndexVector(is, false, &back);
  EXPECT_EQ(back, v);
}

TEST(Index, TruncatedVectorIsAnError) {
  std::vector<Index> v = {Index(0, 1), Index(5, 1)};
  std::ostringstream os;
  WriteIndexVector(os, true, v);
  std::string s = os.str();
  std::istringstream is(s.substr(0, s.size() - 3));
  std::vector<Index> back;
  EXPECT_THROW(ReadIndexVector(is, true, &back), UserError);
}

// Writes v in binary with 'write', reads it back with 'read' and expects
// the same vector.
template <typename T, typename Write, typename Read>
void ExpectBinaryRoundTrip(const std::vector<T> &v, Write write, Read read) {
  std::ostringstream os;
  write(os, v);
  std::istringstream is(os.str());
  std::vector<T> back;
  read(is, &back);
  EXPECT_EQ(back, v);
}

// Expects 'read' to refuse 'bytes' with the int32 range error.
template <typename Read>
void ExpectOutOfInt32Range(const std::string &bytes, Read read,
                           const std::string &what) {
  std::istringstream bad(bytes);
  try {
    read(bad);
    FAIL() << what;
  } catch (const UserError &e) {
    EXPECT_NE(e.message().find("outside the int32 range"), std::string::npos)
        << what << ": " << e.message();
  }
}

// Found by UndefinedBehaviorSanitizer: the differences of extreme t values
// (kNoTime next to an ordinary t) overflowed int32 when written, and a
// one-byte step past INT32_MAX overflowed when read.
TEST(Index, ExtremeTimesRoundTripAndOverflowingStepsAreErrors) {
  std::vector<Index> v = {Index(0, kNoTime), Index(0, 2), Index(0, kNoTime),
                          Index(0, std::numeric_limits<int32>::max()),
                          Index(0, std::numeric_limits<int32>::max() - 1)};
  ExpectBinaryRoundTrip(
      v, [](std::ostream &os, const std::vector<Index> &x) {
        WriteIndexVector(os, true, x);
      },
      [](std::istream &is, std::vector<Index> *x) {
        ReadIndexVector(is, true, x);
      });

  std::string overflow = "<I1V> " + Int32Bytes(2);
  overflow += static_cast<char>(127) + Int32Bytes(0) +
              Int32Bytes(std::numeric_limits<int32>::max()) + Int32Bytes(0);
  overflow += static_cast<char>(1);
  std::vector<Index> back;
  ExpectOutOfInt32Range(
      overflow, [&](std::istream &is) { ReadIndexVector(is, true, &back); },
      "t step past INT32_MAX");
}

// Found by fuzzing (tests/data/fuzz/computation-cache): a Cindex vector's
// one-byte steps past INT32_MAX in n or t overflowed int32 when read.
TEST(Index, CindexStepsPastTheInt32RangeAreErrors) {
  const int32 kMax = std::numeric_limits<int32>::max();
  std::vector<Cindex> v = {Cindex(3, Index(kMax - 1, kMax - 1, 0)),
                           Cindex(3, Index(kMax, kMax - 1, 0)),
                           Cindex(3, Index(kMax, kMax, 0))};
  ExpectBinaryRoundTrip(
      v, [](std::ostream &os, const std::vector<Cindex> &x) {
        WriteCindexVector(os, true, x);
      },
      [](std::istream &is, std::vector<Cindex> *x) {
        ReadCindexVector(is, true, x);
      });

  // Element 0 written in full (n = t = INT32_MAX), then one step each.
  std::string head = "<I1V> " + Int32Bytes(2) + "|" + Int32Bytes(3) +
                     static_cast<char>(127) + Int32Bytes(kMax) +
                     Int32Bytes(kMax) + Int32Bytes(0);
  std::vector<Cindex> back;
  for (char step : {static_cast<char>(126), static_cast<char>(1)})
    ExpectOutOfInt32Range(
        head + step,
        [&](std::istream &is) { ReadCindexVector(is, true, &back); },
        "step " + std::to_string(int(step)));
}

}  // namespace
}  // namespace nnet3
