// tests/util/holders-test.cc
#include "util/holders.h"

#include <sstream>

#include <gtest/gtest.h>

#include "util-test-util.h"

// A type with a range hook next to it, found by argument-dependent lookup.
namespace rangetest {
struct Seq {
  std::vector<nnet3::int32> v;
  void Write(std::ostream &os, bool binary) const {
    nnet3::WriteIntegerVector(os, binary, v);
  }
  void Read(std::istream &is, bool binary) {
    nnet3::ReadIntegerVector(is, binary, &v);
  }
};
// "a:b" keeps elements a..b (inclusive).
bool ExtractObjectRange(const Seq &in, const std::string &range, Seq *out) {
  size_t colon = range.find(':');
  if (colon == std::string::npos) return false;
  int a = std::stoi(range.substr(0, colon));
  int b = std::stoi(range.substr(colon + 1));
  if (a < 0 || b >= static_cast<int>(in.v.size()) || a > b) return false;
  out->v.assign(in.v.begin() + a, in.v.begin() + b + 1);
  return true;
}
}  // namespace rangetest

namespace nnet3 {
namespace {

using test::Int32Bytes;

template <class H>
std::string Write(const typename H::T &t, bool binary) {
  std::ostringstream os;
  EXPECT_TRUE(H::Write(os, binary, t));
  return os.str();
}

template <class H>
typename H::T Read(const std::string &bytes) {
  std::istringstream is(bytes);
  H h;
  EXPECT_TRUE(h.Read(is));
  return h.Value();
}

const std::string kB("\0B", 2);

TEST(HoldersTest, BasicHolderFormats) {
  typedef BasicHolder<int32> IH;
  EXPECT_EQ(Write<IH>(5, true), kB + Int32Bytes(5));
  EXPECT_EQ(Write<IH>(-2, false), "-2 \n");
  EXPECT_EQ(Read<IH>(kB + Int32Bytes(-7)), -7);
  EXPECT_EQ(Read<IH>("  7  \n"), 7);
  EXPECT_EQ(Read<IH>("8"), 8);  // The end of the stream ends the line.
  typedef BasicHolder<float> FH;
  EXPECT_EQ(Write<FH>(0.5f, true), kB + std::string("\x04\0\0\0\x3f", 5));
  EXPECT_EQ(Write<FH>(0.5f, false), "0.5 \n");
  EXPECT_EQ(Read<FH>("0.25\n"), 0.25f);
  typedef BasicHolder<double> DH;
  EXPECT_EQ(Write<DH>(1.0, true),
            kB + std::string("\x08\0\0\0\0\0\0\xf0\x3f", 9));
  EXPECT_EQ(Read<DH>(kB + std::string("\x04\0\0\0\x3f", 5)), 0.5);
  typedef BasicHolder<bool> BH;
  EXPECT_EQ(Write<BH>(true, true), kB + "T");
  EXPECT_EQ(Write<BH>(false, false), "F \n");
  EXPECT_EQ(Read<BH>("T\n"), true);
  EXPECT_EQ(Read<BH>(kB + "F"), false);
}

TEST(HoldersTest, BasicHolderErrors) {
  typedef BasicHolder<int32> IH;
  std::string err = test::UserErrorOf([] { Read<IH>("\n5\n"); });
  EXPECT_NE(err.find("newline"), std::string::npos) << err;
  err = test::UserErrorOf([] { Read<IH>("7 x\n"); });
  EXPECT_NE(err.find("expected a newline"), std::string::npos) << err;
  err = test::UserErrorOf([] { Read<IH>(kB + "\x04\x01"); });
  EXPECT_NE(err, "");
  err = test::UserErrorOf([] { Read<IH>(std::string("\0X", 2)); });
  EXPECT_NE(err.find("corrupt binary header"), std::string::npos) << err;
}

TEST(HoldersTest, BasicVectorHolderFormats) {
  typedef BasicVectorHolder<int32> VH;
  std::vector<int32> v = {76, 147};
  EXPECT_EQ(Write<VH>(v, true),
            std::string("\0B\x04\x02\0\0\0\x04L\0\0\0\x04\x93\0\0\0", 17));
  EXPECT_EQ(Write<VH>(v, false), "76 147 \n");
  EXPECT_EQ(Write<VH>({}, false), "\n");
  EXPECT_EQ(Write<VH>({}, true), kB + Int32Bytes(0));
  EXPECT_EQ(Read<VH>(std::string("\0B\x04\x02\0\0\0\x04L\0\0\0\x04\x93\0\0\0",
                                 17)),
            v);
  EXPECT_EQ(Read<VH>(" 76\t147 \nrest"), v);
  EXPECT_EQ(Read<VH>("\n"), std::vector<int32>());
  std::string err = test::UserErrorOf([] { Read<VH>("1 2 x\n"); });
  EXPECT_NE(err.find("1 2 x"), std::string::npos) << err;
  err = test::UserErrorOf(
      [] { Read<VH>(kB + Int32Bytes(3) + Int32Bytes(1)); });  // Truncated.
  EXPECT_NE(err, "");
  err = test::UserErrorOf([] { Read<VH>(kB + Int32Bytes(-3)); });
  EXPECT_NE(err.find("negative"), std::string::npos) << err;
  // A corrupt huge size fails at the end of the data, without allocating it.
  err = test::UserErrorOf([] { Read<VH>(kB + Int32Bytes(2000000000)); });
  EXPECT_NE(err, "");
}

TEST(HoldersTest, BasicVectorVectorHolderFormats) {
  typedef BasicVectorVectorHolder<int32> VVH;
  std::vector<std::vector<int32> > v = {{1, 2}, {}, {3}};
  EXPECT_EQ(Write<VVH>(v, false), "1 2 ; ; 3 ; \n");
  EXPECT_EQ(Write<VVH>(v, true),
            kB + Int32Bytes(3) + Int32Bytes(2) + Int32Bytes(1) +
                Int32Bytes(2) + Int32Bytes(0) + Int32Bytes(1) +
                Int32Bytes(3));
  EXPECT_EQ(Read<VVH>("1 2 ; ; 3 ;\n"), v);
  EXPECT_EQ(Read<VVH>(Write<VVH>(v, true)), v);
  EXPECT_EQ(Read<VVH>("\n"), (std::vector<std::vector<int32> >()));
  std::string err = test::UserErrorOf([] { Read<VVH>("1 2 ; 3\n"); });
  EXPECT_NE(err.find("does not end with ';'"), std::string::npos) << err;
}

TEST(HoldersTest, BasicPairVectorHolderFormats) {
  typedef BasicPairVectorHolder<int32> PH;
  std::vector<std::pair<int32, int32> > v = {{1, 2}, {3, 4}};
  EXPECT_EQ(Write<PH>(v, false), "1 2 ; 3 4 \n");
  EXPECT_EQ(Write<PH>(v, true), kB + Int32Bytes(2) + Int32Bytes(1) +
                                    Int32Bytes(2) + Int32Bytes(3) +
                                    Int32Bytes(4));
  EXPECT_EQ(Read<PH>("1 2 ; 3 4\n"), v);
  EXPECT_EQ(Read<PH>(Write<PH>(v, true)), v);
  std::string err = test::UserErrorOf([] { Read<PH>("1 2 3\n"); });
  EXPECT_NE(err, "");
  err = test::UserErrorOf([] { Read<PH>("1 2 ; 3\n"); });
  EXPECT_NE(err.find("odd number"), std::string::npos) << err;
  typedef BasicPairVectorHolder<float> FPH;
  EXPECT_EQ(Write<FPH>({{0.5f, 1.0f}}, false), "0.5 1 \n");
}

TEST(HoldersTest, TokenHolders) {
  EXPECT_EQ(Write<TokenHolder>("abc", true), "abc\n");
  EXPECT_EQ(Write<TokenHolder>("abc", false), "abc\n");
  EXPECT_EQ(Read<TokenHolder>("abc  \n"), "abc");
  std::string err = test::UserErrorOf([] { Write<TokenHolder>("a b", true); });
  EXPECT_NE(err.find("invalid token"), std::string::npos) << err;
  err = test::UserErrorOf([] { Read<TokenHolder>("abc def\n"); });
  EXPECT_NE(err.find("expected a newline"), std::string::npos) << err;
  EXPECT_FALSE(TokenHolder::IsReadInBinary());

  std::vector<std::string> v = {"a", "b"};
  EXPECT_EQ(Write<TokenVectorHolder>(v, true), "a b \n");
  EXPECT_EQ(Read<TokenVectorHolder>("  a   b\tc \nd"),
            (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(Read<TokenVectorHolder>("\n"), std::vector<std::string>());
  err = test::UserErrorOf([] { Write<TokenVectorHolder>({"a", ""}, true); });
  EXPECT_NE(err.find("invalid token"), std::string::npos) << err;
}

TEST(HoldersTest, KaldiObjectHolderAndRanges) {
  typedef KaldiObjectHolder<rangetest::Seq> SH;
  rangetest::Seq s;
  s.v = {4, 5, 6, 7};
  std::string bytes = Write<SH>(s, true);
  EXPECT_EQ(bytes, kB + std::string("\x04\x04\0\0\0\x04\0\0\0\x05\0\0\0"
                                    "\x06\0\0\0\x07\0\0\0", 21));
  EXPECT_EQ(Write<SH>(s, false), "[ 4 5 6 7 ]\n");
  std::istringstream is(bytes);
  SH full;
  ASSERT_TRUE(full.Read(is));
  EXPECT_EQ(full.Value().v, s.v);
  SH part;
  ASSERT_TRUE(part.ExtractRange(full, "1:2"));
  EXPECT_EQ(part.Value().v, (std::vector<int32>{5, 6}));
  EXPECT_FALSE(part.ExtractRange(full, "2:9"));
  // Swap and Clear.
  SH other;
  other.Swap(&part);
  EXPECT_EQ(other.Value().v, (std::vector<int32>{5, 6}));
  other.Clear();
}

// A type without a range hook gets the generic fallback.
struct NoRanges {
  void Write(std::ostream &, bool) const {}
  void Read(std::istream &, bool) {}
};

TEST(HoldersTest, RangesUnsupportedByDefault) {
  KaldiObjectHolder<NoRanges> a, b;
  std::istringstream is("");
  a.Read(is);
  std::string err = test::UserErrorOf([&] { b.ExtractRange(a, "0:1"); });
  EXPECT_NE(err.find("range specifiers (here [0:1]) are not supported"),
            std::string::npos) << err;
  BasicVectorHolder<int32> c, d;
  err = test::UserErrorOf([&] { d.ExtractRange(c, "0:1"); });
  EXPECT_NE(err.find("not supported for BasicVectorHolder"),
            std::string::npos) << err;
}

}  // namespace
}  // namespace nnet3
