// Tests of the start-up choice of OpenBLAS kernels (matrix/blas-kernels.h):
// the instruction-set levels of kernel families, and that after start-up
// the process computes with kernels of the level the CPU calls for (unless
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

TEST(BlasKernels, SwitchesBetweenInstructionSetLevels) {
  // Older kernels than the CPU allows are replaced.
  EXPECT_TRUE(BlasKernelShouldSwitch("Prescott", "SkylakeX"));
  EXPECT_TRUE(BlasKernelShouldSwitch("Prescott", "Haswell"));
  EXPECT_TRUE(BlasKernelShouldSwitch("Nehalem", "Haswell"));
  EXPECT_TRUE(BlasKernelShouldSwitch("Sandybridge", "Haswell"));
  EXPECT_TRUE(BlasKernelShouldSwitch("Haswell", "SkylakeX"));
  EXPECT_TRUE(BlasKernelShouldSwitch("zen", "SKYLAKEX"));  // case is ignored
  // AVX-512 kernels where AVX2 ones are asked for (half-width AVX-512).
  EXPECT_TRUE(BlasKernelShouldSwitch("Cooperlake", "Haswell"));
  EXPECT_TRUE(BlasKernelShouldSwitch("SkylakeX", "Haswell"));
  // Families of the same level stay.
  EXPECT_FALSE(BlasKernelShouldSwitch("Cooperlake", "SkylakeX"));
  EXPECT_FALSE(BlasKernelShouldSwitch("SapphireRapids", "SkylakeX"));
  EXPECT_FALSE(BlasKernelShouldSwitch("Zen", "Haswell"));
  EXPECT_FALSE(BlasKernelShouldSwitch("Haswell", "Haswell"));
  // A name we do not know is never replaced, nor asked for.
  EXPECT_FALSE(BlasKernelShouldSwitch("SomeFutureCore", "SkylakeX"));
  EXPECT_FALSE(BlasKernelShouldSwitch("Prescott", "SomeFutureCore"));
  EXPECT_FALSE(BlasKernelShouldSwitch("", ""));
}

TEST(BlasKernels, HalfWidthAvx512PrefersTheAvx2Kernels) {
  if (!CpuIsAmdFamily19h())
    GTEST_SKIP() << "not an AMD family 19h CPU";
  EXPECT_EQ(PreferredBlasKernel(), "Haswell");
}

TEST(BlasKernels, StartUpLeavesTheKernelsTheCpuCallsFor) {
  const std::string &selection = BlasKernelSelection();
  const std::string name = BlasKernelName();
  if (name.empty()) GTEST_SKIP() << "this BLAS does not report its kernels";
  if (selection.find("(OPENBLAS_CORETYPE)") != std::string::npos) {
    // The user's choice stands.
    EXPECT_NE(std::getenv("OPENBLAS_CORETYPE"), nullptr);
    return;
  }
  const std::string preferred = PreferredBlasKernel();
  EXPECT_FALSE(BlasKernelShouldSwitch(name, preferred))
      << "computing with " << name << " kernels on a CPU that calls for "
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
