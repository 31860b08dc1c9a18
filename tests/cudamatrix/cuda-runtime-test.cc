// The CUDA GpuRuntime and the caching allocator on a real device: what the
// fake runtime of cu-device-test stands in for. Checks that probing reports
// plausible figures and leaves the device usable, that raw memory moves
// the driver's free figure, that a refused request leaves no sticky error
// behind, and that the allocator's reuse and out-of-memory message hold on
// the driver. Skips when the machine has no GPU (CI has none).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "base/log.h"
#include "cudamatrix/cu-allocator.h"
#include "cudamatrix/gpu-runtime.h"

namespace nnet3 {
namespace {

class CudaRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    rt_ = SystemGpuRuntime();
    std::string why;
    if (!rt_->Compiled() || rt_->DeviceCount(&why) == 0)
      GTEST_SKIP() << "no CUDA device: " << why;
    ASSERT_TRUE(rt_->Activate(0, &why)) << why;
  }
  GpuRuntime *rt_ = nullptr;
};

TEST_F(CudaRuntimeTest, ProbeReportsEveryDevice) {
  std::string why;
  int n = rt_->DeviceCount(&why);
  for (int id = 0; id < n; id++) {
    GpuDeviceInfo info;
    ASSERT_TRUE(rt_->Probe(id, &info, &why)) << "device " << id << ": " << why;
    EXPECT_EQ(info.id, id);
    EXPECT_FALSE(info.name.empty());
    EXPECT_GE(info.major * 10 + info.minor, 70) << info.name;
    EXPECT_GT(info.total_bytes, 0u);
    EXPECT_LE(info.free_bytes, info.total_bytes);
  }
  // Probing resets the context; the device must still be usable after.
  ASSERT_TRUE(rt_->Activate(0, &why)) << why;
  void *p = rt_->Allocate(1 << 20);
  EXPECT_NE(p, nullptr);
  rt_->Release(p);
}

TEST_F(CudaRuntimeTest, RawMemoryMovesTheFreeFigure) {
  size_t free0 = 0, total = 0;
  ASSERT_TRUE(rt_->MemoryInfo(&free0, &total));
  const size_t kBytes = size_t(256) << 20;
  ASSERT_LT(kBytes, free0);
  void *p = rt_->Allocate(kBytes);
  ASSERT_NE(p, nullptr);
  size_t free1 = 0;
  ASSERT_TRUE(rt_->MemoryInfo(&free1, &total));
  // Other processes may use the device too, so only a loose bound.
  EXPECT_LE(free1 + kBytes / 2, free0);
  rt_->Release(p);
}

TEST_F(CudaRuntimeTest, ARefusedRequestLeavesTheDeviceUsable) {
  size_t free0 = 0, total = 0;
  ASSERT_TRUE(rt_->MemoryInfo(&free0, &total));
  EXPECT_EQ(rt_->Allocate(total * 4), nullptr);
  void *p = rt_->Allocate(1 << 20);
  EXPECT_NE(p, nullptr);
  rt_->Release(p);
}

TEST_F(CudaRuntimeTest, AllocatorReusesDriverBlocks) {
  CachingDeviceAllocator a(rt_);
  std::vector<void *> blocks;
  for (size_t kib : {1, 3, 64, 1000, 4096}) blocks.push_back(a.Malloc(kib << 10));
  for (void *p : blocks) {
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % CachingDeviceAllocator::kAlignment, 0u);
  }
  size_t driver_calls = a.Stats().driver_allocations;
  for (void *p : blocks) a.Free(p);
  EXPECT_EQ(a.Stats().in_use, 0u);
  void *again = a.Malloc(1000 << 10);
  EXPECT_EQ(a.Stats().driver_allocations, driver_calls);
  EXPECT_EQ(a.Stats().reuses, 1u);
  a.Free(again);
  a.ReleaseCached();
  EXPECT_EQ(a.Stats().cached, 0u);
}

TEST_F(CudaRuntimeTest, AllocatorOutOfMemoryIsOneLine) {
  size_t free0 = 0, total = 0;
  ASSERT_TRUE(rt_->MemoryInfo(&free0, &total));
  CachingDeviceAllocator a(rt_);
  try {
    a.Malloc(total * 2);
    FAIL() << "expected an out-of-memory error";
  } catch (const UserError &e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find("Out of GPU memory"), std::string::npos) << msg;
  }
  void *p = a.Malloc(1 << 20);  // the device still serves requests
  EXPECT_NE(p, nullptr);
  a.Free(p);
}

}  // namespace
}  // namespace nnet3
