// Tests of the start-up choice of OpenBLAS kernels (matrix/blas-kernels.h):
// the ordering of kernel families, and that after start-up the process
// never computes with kernels older than the CPU's features allow (unless
// OPENBLAS_CORETYPE chose them), with the environment left as it was. The
// numbers the kernels compute are checked by the matrix tests against
// naive loops, whichever kernels run them.
#include "matrix/blas-kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "matrix/matrix.h"

namespace nnet3 {
namespace {

TEST(BlasKernels, OlderMeansAnEarlierInstructionSetLevel) {
  EXPECT_TRUE(BlasKernelIsOlder("Prescott", "SkylakeX"));
  EXPECT_TRUE(BlasKernelIsOlder("Prescott", "Haswell"));
  EXPECT_TRUE(BlasKernelIsOlder("Nehalem", "Haswell"));
  EXPECT_TRUE(BlasKernelIsOlder("Sandybridge", "Haswell"));
  EXPECT_TRUE(BlasKernelIsOlder("Haswell", "SkylakeX"));
  EXPECT_TRUE(BlasKernelIsOlder("zen", "SKYLAKEX"));  // case is ignored
  EXPECT_FALSE(BlasKernelIsOlder("SkylakeX", "Haswell"));
  EXPECT_FALSE(BlasKernelIsOlder("Cooperlake", "SkylakeX"));
  EXPECT_FALSE(BlasKernelIsOlder("SapphireRapids", "SkylakeX"));
  EXPECT_FALSE(BlasKernelIsOlder("Zen", "Haswell"));
  EXPECT_FALSE(BlasKernelIsOlder("Haswell", "Haswell"));
  // A name we do not know is never replaced, nor asked for.
  EXPECT_FALSE(BlasKernelIsOlder("SomeFutureCore", "SkylakeX"));
  EXPECT_FALSE(BlasKernelIsOlder("Prescott", "SomeFutureCore"));
  EXPECT_FALSE(BlasKernelIsOlder("", ""));
}

TEST(BlasKernels, StartUpLeavesNoOlderKernelsThanTheCpuAllows) {
  const std::string &selection = BlasKernelSelection();
  const std::string name = BlasKernelName();
  if (name.empty()) GTEST_SKIP() << "this BLAS does not report its kernels";
  if (selection.find("(OPENBLAS_CORETYPE)") != std::string::npos) {
    // The user's choice stands.
    EXPECT_NE(std::getenv("OPENBLAS_CORETYPE"), nullptr);
    return;
  }
  const std::string preferred = PreferredBlasKernel();
  EXPECT_FALSE(BlasKernelIsOlder(name, preferred))
      << "computing with " << name << " kernels on a CPU that can run "
      << preferred << " (start-up: " << selection << ")";
  // The selection names the kernels in use.
  EXPECT_NE(selection.find(name), std::string::npos) << selection;
  // The variable set for the switch is gone again.
  if (selection.find(" -> ") != std::string::npos) {
    EXPECT_EQ(std::getenv("OPENBLAS_CORETYPE"), nullptr);
  }
  // And the kernels compute: a product against a naive loop.
  Matrix<float> a(37, 53), b(53, 29), c(37, 29);
  a.SetRandn();
  b.SetRandn();
  c.AddMatMat(1.0, a, kNoTrans, b, kNoTrans, 0.0);
  for (int i = 0; i < 37; i++)
    for (int j = 0; j < 29; j++) {
      double sum = 0.0;
      for (int k = 0; k < 53; k++) sum += double(a(i, k)) * b(k, j);
      EXPECT_NEAR(c(i, j), sum, 1e-4 * (1.0 + std::abs(sum)));
    }
}

}  // namespace
}  // namespace nnet3
