// Tests of device selection (--use-gpu) on a fake runtime: Kaldi's four
// modes, the most-free-memory choice, busy and broken devices, waiting,
// and the one-line messages. The real runtime is covered by the CLI tests.
#include "cudamatrix/cu-device.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "base/log.h"
#include "cudamatrix/fake-gpu-runtime.h"

namespace nnet3 {
namespace {

FakeDevice Device(size_t free_mib, size_t total_mib) {
  FakeDevice d;
  d.free_bytes = free_mib << 20;
  d.total_bytes = total_mib << 20;
  return d;
}

// Captures the warning and error lines emitted while it lives.
class LogCapture {
 public:
  LogCapture() {
    previous_ = SetLogHandler([this](int, const std::string &line) {
      lines.push_back(line);
    });
  }
  ~LogCapture() { SetLogHandler(previous_); }
  std::vector<std::string> lines;

 private:
  LogHandler previous_;
};

std::string ErrorOf(CuDevice *device, const std::string &use_gpu) {
  try {
    device->SelectGpu(use_gpu);
  } catch (const UserError &e) {
    return e.what();
  }
  return "";
}

bool Contains(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}

TEST(CuDevice, UnknownValueIsRejected) {
  FakeGpuRuntime rt;
  CuDevice device(&rt);
  std::string err = ErrorOf(&device, "maybe");
  EXPECT_TRUE(Contains(err, "Invalid value --use-gpu=maybe")) << err;
}

TEST(CuDevice, NoMeansCpuWithoutTouchingTheDriver) {
  FakeGpuRuntime rt;
  rt.devices.push_back(Device(100, 100));
  CuDevice device(&rt);
  device.SelectGpu("no");
  EXPECT_FALSE(device.Enabled());
  EXPECT_EQ(rt.probes, 0);
  EXPECT_EQ(device.FallbackReason(), "");
}

TEST(CuDevice, ChoosingTwiceIsAnError) {
  FakeGpuRuntime rt;
  CuDevice device(&rt);
  device.SelectGpu("no");
  EXPECT_TRUE(Contains(ErrorOf(&device, "no"), "already chosen"));
}

TEST(CuDevice, YesWithoutCudaFailsWithTheReason) {
  FakeGpuRuntime rt;
  rt.compiled = false;
  CuDevice device(&rt);
  std::string err = ErrorOf(&device, "yes");
  EXPECT_TRUE(Contains(err, "--use-gpu=yes but this build has no CUDA "
                            "support")) << err;
  EXPECT_TRUE(Contains(err, "pass --use-gpu=no")) << err;
  EXPECT_EQ(err.find('\n'), std::string::npos) << err;
  EXPECT_FALSE(device.Enabled());
}

TEST(CuDevice, YesWithoutDevicesNamesTheDriverReason) {
  FakeGpuRuntime rt;
  rt.count_error = "cudaErrorNoDevice: no CUDA-capable device is detected";
  CuDevice device(&rt);
  std::string err = ErrorOf(&device, "yes");
  EXPECT_TRUE(Contains(err, "no CUDA GPU found")) << err;
  EXPECT_TRUE(Contains(err, "no CUDA-capable device")) << err;
}

TEST(CuDevice, VisibleDevicesAreNamedInTheMessage) {
  FakeGpuRuntime rt;
  setenv("CUDA_VISIBLE_DEVICES", "7", 1);
  CuDevice device(&rt);
  std::string err = ErrorOf(&device, "yes");
  unsetenv("CUDA_VISIBLE_DEVICES");
  EXPECT_TRUE(Contains(err, "CUDA_VISIBLE_DEVICES=7")) << err;
}

TEST(CuDevice, ABackendThatCannotComputeIsNeverActivated) {
  FakeGpuRuntime rt;
  rt.computes = false;
  rt.devices.push_back(Device(100, 100));
  CuDevice device(&rt);
  std::string err = ErrorOf(&device, "yes");
  EXPECT_TRUE(Contains(err, "cannot run the CuMatrix operations")) << err;
  EXPECT_EQ(rt.active, -1);
}

TEST(CuDevice, OptionalFallsBackAndSaysSoOnce) {
  FakeGpuRuntime rt;
  rt.compiled = false;
  CuDevice device(&rt);
  LogCapture log;
  device.SelectGpu("optional");
  EXPECT_FALSE(device.Enabled());
  ASSERT_EQ(log.lines.size(), 1u);
  EXPECT_TRUE(Contains(log.lines[0], "WARNING")) << log.lines[0];
  EXPECT_TRUE(Contains(log.lines[0], "--use-gpu=optional: computing on the "
                                     "CPU because this build has no CUDA"))
      << log.lines[0];
  EXPECT_TRUE(Contains(device.FallbackReason(), "no CUDA support"));
}

TEST(CuDevice, TheLargestFreeShareWinsAndTiesGoToTheLowerId) {
  FakeGpuRuntime rt;
  rt.devices.push_back(Device(40, 80));     // 0.5
  rt.devices.push_back(Device(90, 100));    // 0.9
  rt.devices.push_back(Device(144, 160));   // 0.9, more bytes but a tie
  rt.devices.push_back(Device(10, 100));
  CuDevice device(&rt);
  device.SelectGpu("yes");
  ASSERT_TRUE(device.Enabled());
  EXPECT_EQ(device.ActiveId(), 1);
  EXPECT_EQ(rt.active, 1);
  EXPECT_EQ(rt.probes, 4);
}

TEST(CuDevice, BusyDevicesAreSkipped) {
  FakeGpuRuntime rt;
  rt.devices.push_back(Device(100, 100));
  rt.devices.push_back(Device(10, 100));
  rt.devices[0].busy_probes = 1;
  CuDevice device(&rt);
  device.SelectGpu("yes");
  EXPECT_EQ(device.ActiveId(), 1);
}

TEST(CuDevice, WhenEveryDeviceRefusesYesFailsAndNamesEach) {
  FakeGpuRuntime rt;
  rt.devices.push_back(Device(100, 100));
  rt.devices.push_back(Device(50, 100));
  rt.devices[0].activate_fails = true;
  rt.devices[1].busy_probes = 1;
  CuDevice device(&rt);
  std::string err = ErrorOf(&device, "yes");
  EXPECT_TRUE(Contains(err, "no usable GPU among 2")) << err;
  EXPECT_TRUE(Contains(err, "GPU 1: busy")) << err;
  EXPECT_TRUE(Contains(err, "GPU 0: context creation failed")) << err;
  EXPECT_FALSE(device.Enabled());
}

TEST(CuDevice, WaitRetriesWhileEveryDeviceIsBusy) {
  FakeGpuRuntime rt;
  rt.devices.push_back(Device(100, 100));
  rt.devices[0].busy_probes = 3;
  int sleeps = 0;
  CuDevice device(&rt, [&sleeps](int seconds) {
    EXPECT_GT(seconds, 0);
    sleeps++;
  });
  LogCapture log;  // the "waiting" line is LOG level, not captured
  device.SelectGpu("wait");
  EXPECT_TRUE(device.Enabled());
  EXPECT_EQ(sleeps, 3);
}

TEST(CuDevice, WaitDoesNotWaitForAGpuThatDoesNotExist) {
  FakeGpuRuntime rt;
  int sleeps = 0;
  CuDevice device(&rt, [&sleeps](int) { sleeps++; });
  std::string err = ErrorOf(&device, "wait");
  EXPECT_TRUE(Contains(err, "--use-gpu=wait but no CUDA GPU found")) << err;
  EXPECT_EQ(sleeps, 0);
}

TEST(CuDevice, AnActiveDeviceHasAnAllocatorOnItsMemory) {
  FakeGpuRuntime rt;
  rt.devices.push_back(Device(1, 1));
  CuDevice device(&rt);
  device.SelectGpu("optional");
  ASSERT_TRUE(device.Enabled());
  void *p = device.Allocator().Malloc(1000);
  EXPECT_EQ(rt.OutstandingBytes(), 1024u);
  device.Allocator().Free(p);
  EXPECT_EQ(device.Allocator().Stats().cached, 1024u);
  EXPECT_EQ(device.FallbackReason(), "");
}

}  // namespace
}  // namespace nnet3
