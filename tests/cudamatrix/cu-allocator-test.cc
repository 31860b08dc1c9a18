// Tests of the caching device allocator on a fake runtime: rounding, reuse
// rules, the statistics invariants, out-of-memory recovery and message,
// misuse detection and thread safety.
#include "cudamatrix/cu-allocator.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "base/log.h"
#include "cudamatrix/fake-gpu-runtime.h"

namespace nnet3 {
namespace {

class AllocatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    FakeDevice d;
    d.free_bytes = d.total_bytes = 1 << 20;  // 1 MiB
    rt_.devices.push_back(d);
    rt_.active = 0;
  }
  FakeGpuRuntime rt_;
};

TEST_F(AllocatorTest, ZeroBytesTouchNothing) {
  CachingDeviceAllocator a(&rt_);
  EXPECT_EQ(a.Malloc(0), nullptr);
  a.Free(nullptr);
  EXPECT_EQ(rt_.allocate_calls, 0);
}

TEST_F(AllocatorTest, SizesAreRoundedToTheAlignment) {
  CachingDeviceAllocator a(&rt_);
  a.Malloc(1);
  EXPECT_EQ(rt_.OutstandingBytes(), 256u);
  a.Malloc(257);
  EXPECT_EQ(rt_.OutstandingBytes(), 256u + 512u);
  EXPECT_EQ(a.Stats().in_use, 768u);
  size_t pitch = 0;
  a.MallocPitch(4 * 70, 3, &pitch);
  EXPECT_EQ(pitch, 512u);
  EXPECT_EQ(a.Stats().in_use, 768u + 3 * 512u);
}

TEST_F(AllocatorTest, FreedBlocksAreReusedWhenTheyFit) {
  CachingDeviceAllocator a(&rt_);
  void *p = a.Malloc(1000);  // 1024
  a.Free(p);
  EXPECT_EQ(a.Stats().cached, 1024u);
  void *q = a.Malloc(900);  // 1024: same block
  EXPECT_EQ(q, p);
  DeviceMemoryStats s = a.Stats();
  EXPECT_EQ(s.driver_allocations, 1u);
  EXPECT_EQ(s.reuses, 1u);
  EXPECT_EQ(s.cached, 0u);
  EXPECT_EQ(s.in_use, 1024u);
}

TEST_F(AllocatorTest, ABlockThatWouldWasteMoreThanAQuarterIsNotReused) {
  CachingDeviceAllocator a(&rt_);
  void *big = a.Malloc(4096);
  a.Free(big);
  void *small = a.Malloc(256);
  EXPECT_NE(small, big);
  EXPECT_EQ(a.Stats().driver_allocations, 2u);
  // 3840 bytes wastes 256 of 4096 (< a quarter): reused.
  void *mid = a.Malloc(3840);
  EXPECT_EQ(mid, big);
}

TEST_F(AllocatorTest, StatisticsKeepTheirInvariants) {
  CachingDeviceAllocator a(&rt_);
  std::vector<void *> blocks;
  for (int i = 1; i <= 6; i++) blocks.push_back(a.Malloc(i * 1000));
  size_t held = rt_.OutstandingBytes();
  for (size_t i = 0; i < blocks.size(); i += 2) a.Free(blocks[i]);
  DeviceMemoryStats s = a.Stats();
  EXPECT_EQ(s.in_use + s.cached, held);
  EXPECT_EQ(s.peak_in_use, held);
  EXPECT_EQ(s.peak_held, held);
  a.ReleaseCached();
  s = a.Stats();
  EXPECT_EQ(s.cached, 0u);
  EXPECT_EQ(rt_.OutstandingBytes(), s.in_use);
  EXPECT_EQ(s.peak_in_use, held);  // peaks never go down
}

TEST_F(AllocatorTest, OutOfMemoryFirstEmptiesTheCache) {
  CachingDeviceAllocator a(&rt_);
  void *p = a.Malloc(600 * 1024);
  a.Free(p);  // cached, still held from the driver
  void *q = a.Malloc(700 * 1024);  // needs the cached block's memory back
  EXPECT_NE(q, nullptr);
  EXPECT_EQ(a.Stats().cached, 0u);
  EXPECT_EQ(rt_.OutstandingBytes(), 700u * 1024u);
}

TEST_F(AllocatorTest, OutOfMemoryIsOneLineSayingWhatToReduce) {
  CachingDeviceAllocator a(&rt_);
  a.Malloc(512 * 1024);
  try {
    a.Malloc(768 * 1024);
    FAIL() << "expected an error";
  } catch (const UserError &e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_NE(msg.find("Out of GPU memory: asked for 768.0 KiB"),
              std::string::npos) << msg;
    EXPECT_NE(msg.find("512.0 KiB free of 1.0 MiB"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("this process holds 512.0 KiB"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("--minibatch-size"), std::string::npos) << msg;
    EXPECT_NE(msg.find("--use-gpu=no"), std::string::npos) << msg;
  }
}

TEST_F(AllocatorTest, FreeingAForeignOrFreedPointerIsAnInternalError) {
  CachingDeviceAllocator a(&rt_);
  int x = 0;
  EXPECT_THROW(a.Free(&x), InternalError);
  void *p = a.Malloc(10);
  a.Free(p);
  EXPECT_THROW(a.Free(p), InternalError);
}

TEST_F(AllocatorTest, DestructionReturnsCachedBlocks) {
  {
    CachingDeviceAllocator a(&rt_);
    a.Free(a.Malloc(1000));
    a.Free(a.Malloc(5000));
    EXPECT_GT(rt_.OutstandingBytes(), 0u);
  }
  EXPECT_EQ(rt_.OutstandingBytes(), 0u);
  EXPECT_EQ(rt_.bad_releases, 0);
}

TEST_F(AllocatorTest, ConcurrentUseKeepsTheBooksStraight) {
  rt_.devices[0].free_bytes = rt_.devices[0].total_bytes = 64 << 20;
  CachingDeviceAllocator a(&rt_);
  auto work = [&a](int seed) {
    std::vector<void *> live;
    for (int i = 0; i < 2000; i++) {
      live.push_back(a.Malloc(256 * (1 + (i * 7 + seed) % 13)));
      if (live.size() > 5) {
        a.Free(live.front());
        live.erase(live.begin());
      }
    }
    for (void *p : live) a.Free(p);
  };
  std::thread t1(work, 1), t2(work, 2);
  t1.join();
  t2.join();
  DeviceMemoryStats s = a.Stats();
  EXPECT_EQ(s.in_use, 0u);
  EXPECT_EQ(s.cached, rt_.OutstandingBytes());
  EXPECT_GT(s.reuses, 0u);
}

TEST_F(AllocatorTest, BlocksFreedWhileHoldingAreNotReusedUntilReturned) {
  CachingDeviceAllocator a(&rt_);
  void *before = a.Malloc(1000);
  a.BeginHold();
  void *during = a.Malloc(1000);
  a.Free(during);
  a.Free(before);  // held too: a recording may have read it
  void *next = a.Malloc(1000);
  EXPECT_NE(next, during);
  EXPECT_NE(next, before);
  // Another thread's frees are not held.
  std::thread other([&] { a.Free(next); });
  other.join();
  EXPECT_EQ(a.Stats().cached, 1024u);
  std::vector<void *> held = a.EndHold();
  ASSERT_EQ(held.size(), 2u);
  EXPECT_EQ(held[0], during);
  EXPECT_EQ(held[1], before);
  EXPECT_EQ(a.Stats().in_use, 2048u);
  for (void *p : held) a.Free(p);
  EXPECT_EQ(a.Stats().in_use, 0u);
  EXPECT_EQ(a.Stats().cached, 3072u);
}

TEST(FormatBytes, PicksAReadableUnit) {
  EXPECT_EQ(FormatBytes(512), "512 B");
  EXPECT_EQ(FormatBytes(1536), "1.5 KiB");
  EXPECT_EQ(FormatBytes(3u << 20), "3.0 MiB");
  EXPECT_EQ(FormatBytes(size_t(5) << 30), "5.00 GiB");
}

}  // namespace
}  // namespace nnet3
