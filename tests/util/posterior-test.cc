// tests/util/posterior-test.cc
#include "util/posterior.h"

#include <sstream>

#include <gtest/gtest.h>

#include "util-test-util.h"

namespace nnet3 {
namespace {

using test::Int32Bytes;

std::string WriteHolder(const Posterior &p, bool binary) {
  std::ostringstream os;
  PosteriorHolder::Write(os, binary, p);
  return os.str();
}

Posterior ReadHolder(const std::string &bytes) {
  std::istringstream is(bytes);
  PosteriorHolder h;
  h.Read(is);
  return h.Value();
}

TEST(PosteriorTest, TextFormat) {
  Posterior p = {{{76, 1.0f}}, {{76, 1.0f}}};
  EXPECT_EQ(WriteHolder(p, false), "[ 76 1 ] [ 76 1 ] \n");
  Posterior q = {{{1, 0.5f}, {2, 0.25f}}, {}};
  EXPECT_EQ(WriteHolder(q, false), "[ 1 0.5 2 0.25 ] [ ] \n");
  EXPECT_EQ(WriteHolder(Posterior(), false), "\n");
  EXPECT_EQ(ReadHolder("[ 76 1 ] [ 76 1 ] \n"), p);
  EXPECT_EQ(ReadHolder("[ 1 0.5 2 0.25 ] [ ]\n"), q);
  EXPECT_EQ(ReadHolder("\n"), Posterior());
  // Exactly one line is consumed.
  std::istringstream is("[ 3 1 ] \nnext");
  PosteriorHolder h;
  h.Read(is);
  EXPECT_EQ(is.peek(), 'n');
}

TEST(PosteriorTest, BinaryFormat) {
  Posterior p = {{{76, 1.0f}}, {}};
  std::string expected = std::string("\0B", 2) + Int32Bytes(2) +
                         Int32Bytes(1) + Int32Bytes(76) +
                         std::string("\x04\x00\x00\x80\x3f", 5) +
                         Int32Bytes(0);
  EXPECT_EQ(WriteHolder(p, true), expected);
  EXPECT_EQ(ReadHolder(expected), p);
  EXPECT_EQ(WriteHolder(Posterior(), true),
            std::string("\0B", 2) + Int32Bytes(0));
}

TEST(PosteriorTest, BadInputIsAnError) {
  std::string err = test::UserErrorOf([] { ReadHolder("76 1\n"); });
  EXPECT_NE(err.find("expected '['"), std::string::npos) << err;
  err = test::UserErrorOf([] { ReadHolder("[ 1 ]\n"); });
  EXPECT_NE(err.find("Posterior"), std::string::npos) << err;
  err = test::UserErrorOf([] { ReadHolder("[ 1 0.5\n"); });
  EXPECT_NE(err, "");
  std::string truncated = std::string("\0B", 2) + Int32Bytes(2) +
                          Int32Bytes(1) + Int32Bytes(76);
  err = test::UserErrorOf([&] { ReadHolder(truncated); });
  EXPECT_NE(err, "");
  err = test::UserErrorOf(
      [&] { ReadHolder(std::string("\0B", 2) + Int32Bytes(-1)); });
  EXPECT_NE(err.find("negative"), std::string::npos) << err;
}

}  // namespace
}  // namespace nnet3
