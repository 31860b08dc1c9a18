// tests/cli/vector-sum-cli-test.cc
// vector-sum in its three forms, as Kaldi's scripts call it (the prior
// computation of steps/libs/nnet3/train/common.py: "matrix-sum-rows ark:-
// ark:- | vector-sum ark:- post.JOB.vec", then "vector-sum post.*.vec
// post.vec"), with sums worked out here from the text inputs; the warnings
// and exit status of the table form; and the error paths.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "common/testing.h"

namespace nnet3 {
namespace testing {
namespace {

class VectorSumCli : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.File("a.txt"), "u1 [ 1 2 3 ]\nu2 [ 0.5 0 -1 ]\n");
    WriteFile(dir_.File("b.txt"), "u1 [ 10 20 30 ]\nu2 [ 1 1 1 ]\n");
    WriteFile(dir_.File("c.txt"), "u2 [ 100 100 100 ]\n");
    WriteFile(dir_.File("bad.txt"), "u1 [ 1 2 ]\nu2 [ 1 2 3 ]\n");
    WriteFile(dir_.File("m.txt"),
              "x  [\n  1 2\n  3 4 ]\ny  [\n  0.25 0.5 ]\n");
  }
  CommandResult Run(const std::string &command) {
    CommandResult r = RunCommand(command, dir_.path());
    EXPECT_EQ(r.exit_status, 0) << command << "\n" << r.err;
    return r;
  }
  void ExpectError(const std::string &command, const std::string &fragment) {
    CommandResult r = RunCommand(command, dir_.path());
    EXPECT_EQ(r.exit_status, 1) << command << "\n" << r.err;
    std::string last = LastLine(r.err);
    EXPECT_EQ(last.rfind("ERROR (", 0), 0u) << r.err;
    EXPECT_NE(last.find(fragment), std::string::npos) << r.err;
  }
  TempDir dir_;
};

TEST_F(VectorSumCli, TablesToTable) {
  CommandResult r = Run("vector-sum ark:a.txt ark:b.txt ark,t:-");
  EXPECT_EQ(r.out, "u1  [ 11 22 33 ]\nu2  [ 1.5 1 0 ]\n");
  // u1 is missing from c.txt: a warning, the sum of what there is, and
  // (Kaldi's rule: the missing vectors must be fewer than the keys minus
  // the missing vectors) exit status 1 for one missing of two keys.
  r = RunCommand("vector-sum ark:a.txt ark:b.txt ark:c.txt ark,t:-",
                 dir_.path());
  EXPECT_EQ(r.exit_status, 1) << r.err;
  EXPECT_EQ(r.out, "u1  [ 11 22 33 ]\nu2  [ 101.5 101 100 ]\n");
  EXPECT_NE(r.err.find("WARNING"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 total missing vectors"), std::string::npos) << r.err;
  // A dimension mismatch is skipped with a warning.
  r = Run("vector-sum ark:a.txt ark:bad.txt ark,t:-");
  EXPECT_EQ(r.out, "u1  [ 1 2 3 ]\nu2  [ 1.5 2 2 ]\n");
}

TEST_F(VectorSumCli, PriorComputationPipeline) {
  // As compute_average_posterior: row sums of each matrix, then one sum.
  Run("copy-matrix ark:m.txt ark:- | matrix-sum-rows ark:- ark:- | "
      "vector-sum ark:- post.1.vec");
  Run("copy-matrix ark:m.txt ark:- | matrix-sum-rows ark:- ark:- | "
      "vector-sum --binary=false ark:- post.2.vec");
  EXPECT_EQ(ReadFile(dir_.File("post.2.vec")), " [ 4.25 6.5 ]\n");
  EXPECT_EQ(ReadFile(dir_.File("post.1.vec")).substr(0, 2),
            std::string("\0B", 2));
  // Single files, binary and text mixed, to one file (the shell expands
  // post.*.vec as the script does).
  Run("vector-sum --binary=false post.*.vec post.vec");
  EXPECT_EQ(ReadFile(dir_.File("post.vec")), " [ 8.5 13 ]\n");
  // An empty table gives status 1.
  CommandResult r = RunCommand("vector-sum ark:/dev/null sum.vec", dir_.path());
  EXPECT_EQ(r.exit_status, 1);
}

TEST_F(VectorSumCli, Errors) {
  Run("vector-sum --binary=false ark:a.txt a.vec");
  WriteFile(dir_.File("two.vec"), " [ 1 2 ]\n");
  ExpectError("vector-sum a.vec two.vec out.vec", "two.vec");
  ExpectError("vector-sum a.vec no-such.vec out.vec", "no-such.vec");
  ExpectError("vector-sum a.vec ark:b.txt out.vec", "ark:b.txt");
  CommandResult r_ = RunCommand("vector-sum a.vec", dir_.path());
  EXPECT_EQ(r_.exit_status, 1);
  EXPECT_NE(r_.err.find("vector-sum [options]"), std::string::npos) << r_.err;
}

}  // namespace
}  // namespace testing
}  // namespace nnet3
