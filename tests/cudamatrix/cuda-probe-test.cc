// Checks the CUDA toolchain end to end: a kernel scales a vector on the
// device. Skips when the machine has no GPU (CI has none).
#include <gtest/gtest.h>

#include <vector>

#include "cudamatrix/cuda/probe.h"

TEST(CudaProbe, ScalesOnDevice) {
  if (nnet3::cuda::DeviceCount() == 0) GTEST_SKIP() << "no CUDA device";
  std::vector<float> v(1000);
  for (size_t i = 0; i < v.size(); i++) v[i] = static_cast<float>(i) - 300.0f;
  ASSERT_TRUE(nnet3::cuda::ScaleOnDevice(v.data(), static_cast<int>(v.size()), -2.5f));
  for (size_t i = 0; i < v.size(); i++)
    EXPECT_EQ(v[i], (static_cast<float>(i) - 300.0f) * -2.5f) << "at " << i;
}
