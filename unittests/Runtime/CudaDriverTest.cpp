//===- CudaDriverTest.cpp - CUDA driver loading without a GPU -------------===//
//
// These run where kf is built, normally a machine without libcuda: what they
// check is that the absence of a driver is an ordinary, explained error.
//
//===----------------------------------------------------------------------===//

#include "kf/Runtime/CudaDriver.h"

#include "gtest/gtest.h"

#include <type_traits>

using namespace kf;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}
#define EXPECT_CONTAINS(text, part) EXPECT_PRED2(contains, text, part)

/// Skips the calling test on a machine where the driver loads, since the
/// test is about the message given when it does not.
#define SKIP_IF_DRIVER_LOADS(expected)                                         \
  if (expected) {                                                              \
    GTEST_SKIP() << "a working CUDA driver was found on this machine";         \
  }

TEST(CudaDriverTest, MissingDriverIsAnExplainedError) {
  llvm::Expected<CudaDriver &> driver = CudaDriver::get();
  SKIP_IF_DRIVER_LOADS(driver);
  std::string message = llvm::toString(driver.takeError());
  EXPECT_CONTAINS(message, "libcuda.so.1");
  EXPECT_CONTAINS(message, "unavailable");
  EXPECT_CONTAINS(message, "kf-evolve compile");
}

TEST(CudaDriverTest, LoadFailureIsRememberedAndRepeatable) {
  // Every caller gets its own error with the same text, not a consumed one.
  llvm::Expected<CudaDriver &> first = CudaDriver::get();
  SKIP_IF_DRIVER_LOADS(first);
  std::string firstMessage = llvm::toString(first.takeError());
  llvm::Expected<CudaDriver &> second = CudaDriver::get();
  ASSERT_FALSE(static_cast<bool>(second));
  EXPECT_EQ(llvm::toString(second.takeError()), firstMessage);
}

TEST(CudaDriverTest, QueryDeviceReportsTheMissingDriver) {
  llvm::Expected<DeviceInfo> info = queryDevice(0);
  SKIP_IF_DRIVER_LOADS(info);
  std::string message = llvm::toString(info.takeError());
  EXPECT_CONTAINS(message, "libcuda.so.1");
}

TEST(CudaDriverTest, FormatResultNamesCallErrorAndDescription) {
  EXPECT_EQ(CudaDriver::formatResult(2, "cuMemAlloc(6442450944 bytes)",
                                     "CUDA_ERROR_OUT_OF_MEMORY",
                                     "out of memory"),
            "cuMemAlloc(6442450944 bytes) failed: CUDA_ERROR_OUT_OF_MEMORY "
            "(out of memory)");
}

TEST(CudaDriverTest, FormatResultFallsBackToTheNumberForUnknownCodes) {
  EXPECT_EQ(CudaDriver::formatResult(12345, "cuLaunchKernel", "", ""),
            "cuLaunchKernel failed: unknown CUDA error 12345");
  EXPECT_EQ(CudaDriver::formatResult(700, "cuCtxSynchronize",
                                     "CUDA_ERROR_ILLEGAL_ADDRESS", ""),
            "cuCtxSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS");
}

TEST(CudaDriverTest, EmptyDeviceBufferOwnsNothing) {
  // Destroying or moving an empty buffer must not call into the (absent)
  // driver.
  DeviceBuffer empty;
  EXPECT_EQ(empty.get(), 0u);
  EXPECT_EQ(empty.size(), 0u);
  DeviceBuffer moved = std::move(empty);
  EXPECT_EQ(moved.get(), 0u);
}

// The guards own driver resources, so copying one would free them twice.
static_assert(!std::is_copy_constructible_v<DeviceBuffer> &&
                  std::is_nothrow_move_constructible_v<DeviceBuffer>,
              "DeviceBuffer must be move-only");
static_assert(!std::is_copy_constructible_v<Context> &&
                  std::is_nothrow_move_constructible_v<Context>,
              "Context must be move-only");

// The declarations mirror cuda.h's ABI; these are the values kf depends on.
static_assert(sizeof(CUdeviceptr) == 8,
              "CUdeviceptr is 64-bit on 64-bit hosts");
static_assert(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR == 75 &&
                  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN == 97,
              "CU_DEVICE_ATTRIBUTE values must match cuda.h");

} // namespace
