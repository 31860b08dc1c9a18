// tests/matrix/matrix-limits-test.cc: Vector, Matrix and CompressedMatrix
// readers given a header that declares far more data than follows fail with
// one clear UserError before allocating for it, on seekable input and on
// input of unknown length; valid large data still reads exactly from both.
// Allocation is bounded by running the reader in a child process whose
// address space may grow by only 64 MiB.
#include <gtest/gtest.h>

#include <cstring>
#include <sstream>
#include <string>

#include "base/io.h"
#include "common/memory-limit.h"
#include "matrix/compressed.h"
#include "matrix/matrix.h"
#include "matrix/vector.h"

namespace nnet3 {
namespace {

using testing::LimitedRun;
using testing::RunWithMemoryLimit;
using testing::UnsizedIstream;

std::string Int32(int32 v) {
  std::string s(1, '\4');
  s.append(reinterpret_cast<const char *>(&v), 4);
  return s;
}

template <class Read>
void ExpectBounded(const std::string &data, const std::string &what,
                   Read read) {
  for (int unsized = 0; unsized < 2; unsized++) {
    LimitedRun run = RunWithMemoryLimit(size_t(64) << 20, [&] {
      if (unsized) {
        UnsizedIstream is(data);
        read(is);
      } else {
        std::istringstream is(data);
        read(is);
      }
    });
    ASSERT_EQ(run.outcome, LimitedRun::kUserError)
        << (unsized ? "unsized: " : "seekable: ") << Describe(run);
    EXPECT_NE(run.message.find(what), std::string::npos) << run.message;
  }
}

TEST(MatrixLimits, HugeMatrixHeader) {
  // 50000 x 50000 floats (10 GB) declared, 8 bytes present.
  std::string data = "FM " + Int32(50000) + Int32(50000) + "12345678";
  ExpectBounded(data, "50000x50000", [](std::istream &is) {
    Matrix<float> m;
    m.Read(is, true);
  });
  // Under the default limit for unknown lengths (40000 x 40000 floats,
  // 6.4 GB), still no allocation ahead of the data.
  std::string data2 = "FM " + Int32(40000) + Int32(40000) + "12345678";
  ExpectBounded(data2, "40000x40000", [](std::istream &is) {
    Matrix<float> m;
    m.Read(is, true);
  });
}

TEST(MatrixLimits, HugeVectorHeader) {
  std::string data = "DV " + Int32(0x7fffffff) + "12345678";
  ExpectBounded(data, "the dimension 2147483647", [](std::istream &is) {
    Vector<double> v;
    v.Read(is, true);
  });
}

TEST(MatrixLimits, HugeCompressedMatrixHeader) {
  // CM2 header: min, range (floats), rows, cols (int32), then data.
  float min = 0, range = 1;
  int32 rows = 60000, cols = 60000;
  std::string data = "CM2 ";
  data.append(reinterpret_cast<const char *>(&min), 4);
  data.append(reinterpret_cast<const char *>(&range), 4);
  data.append(reinterpret_cast<const char *>(&rows), 4);
  data.append(reinterpret_cast<const char *>(&cols), 4);
  data += "abcd";
  ExpectBounded(data, "60000x60000", [](std::istream &is) {
    CompressedMatrix m;
    m.Read(is, true);
  });
}

TEST(MatrixLimits, ValidLargeDataReadsFromAnyStream) {
  Matrix<float> m(700, 513);
  for (int r = 0; r < m.NumRows(); r++)
    for (int c = 0; c < m.NumCols(); c++) m(r, c) = r * 0.5f - c;
  Vector<double> v(300000);
  for (int i = 0; i < v.Dim(); i++) v(i) = i * 0.25;
  CompressedMatrix cm(m);
  std::ostringstream os;
  m.Write(os, true);
  v.Write(os, true);
  cm.Write(os, true);
  for (int unsized = 0; unsized < 2; unsized++) {
    std::istringstream ss(os.str());
    UnsizedIstream us(os.str());
    std::istream &is = unsized ? static_cast<std::istream &>(us) : ss;
    Matrix<float> m2;
    Vector<double> v2;
    CompressedMatrix cm2;
    m2.Read(is, true);
    v2.Read(is, true);
    cm2.Read(is, true);
    ASSERT_EQ(m2.NumRows(), 700);
    ASSERT_EQ(m2.NumCols(), 513);
    for (int r = 0; r < m.NumRows(); r++)
      for (int c = 0; c < m.NumCols(); c++) ASSERT_EQ(m2(r, c), m(r, c));
    ASSERT_EQ(v2.Dim(), v.Dim());
    for (int i = 0; i < v.Dim(); i++) ASSERT_EQ(v2(i), v(i));
    std::ostringstream a, b;
    cm.Write(a, true);
    cm2.Write(b, true);
    EXPECT_EQ(a.str(), b.str());
  }
}

}  // namespace
}  // namespace nnet3
