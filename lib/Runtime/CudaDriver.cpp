//===- CudaDriver.cpp - CUDA driver API loaded at run time ----------------===//

#include "kf/Runtime/CudaDriver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <dlfcn.h>
#include <initializer_list>
#include <utility>

using namespace kf;

static constexpr const char *driverLibrary = "libcuda.so.1";

/// Every load failure ends the same way: the user needs to know that only the
/// GPU half of kf is affected.
static llvm::Error unavailable(const llvm::Twine &reason) {
  return llvm::createStringError(
      reason + ": GPU evaluation is unavailable on this machine; "
               "`kf-evolve compile` still works");
}

/// Binds `slot` to the first of `symbols` that `library` exports. Entry points
/// whose ABI changed are exported under versioned names (cuMemAlloc_v2); a few
/// were versioned only recently (cuEventElapsedTime_v2 in CUDA 12.8), so the
/// older name follows as a fallback for older drivers.
template <typename FunctionPointer>
static bool bindSymbol(void *library, FunctionPointer &slot,
                       std::initializer_list<const char *> symbols) {
  for (const char *symbol : symbols) {
    if (void *address = dlsym(library, symbol)) {
      slot = reinterpret_cast<FunctionPointer>(address);
      return true;
    }
  }
  return false;
}

llvm::Error CudaDriver::load() {
  // The library is never closed: the function pointers are used until the
  // process exits, and the driver does not support being unloaded.
  void *library = dlopen(driverLibrary, RTLD_NOW | RTLD_LOCAL);
  if (!library)
    return unavailable(
        llvm::formatv("no CUDA driver found ({0} could not be loaded: {1})",
                      driverLibrary, dlerror()));

  llvm::SmallVector<llvm::StringRef> missing;
  auto require = [&](auto &slot, std::initializer_list<const char *> symbols) {
    if (!bindSymbol(library, slot, symbols))
      missing.push_back(*symbols.begin());
  };
  require(cuInit, {"cuInit"});
  require(cuDriverGetVersion, {"cuDriverGetVersion"});
  require(cuDeviceGet, {"cuDeviceGet"});
  require(cuDeviceGetCount, {"cuDeviceGetCount"});
  require(cuDeviceGetName, {"cuDeviceGetName"});
  require(cuDeviceGetAttribute, {"cuDeviceGetAttribute"});
  require(cuDeviceTotalMem, {"cuDeviceTotalMem_v2"});
  require(cuDevicePrimaryCtxRetain, {"cuDevicePrimaryCtxRetain"});
  require(cuDevicePrimaryCtxRelease,
          {"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"});
  require(cuCtxSetCurrent, {"cuCtxSetCurrent"});
  require(cuCtxGetCurrent, {"cuCtxGetCurrent"});
  require(cuCtxSynchronize, {"cuCtxSynchronize"});
  require(cuMemAlloc, {"cuMemAlloc_v2"});
  require(cuMemFree, {"cuMemFree_v2"});
  require(cuMemcpyHtoD, {"cuMemcpyHtoD_v2"});
  require(cuMemcpyDtoH, {"cuMemcpyDtoH_v2"});
  require(cuMemcpyDtoD, {"cuMemcpyDtoD_v2"});
  require(cuMemsetD32, {"cuMemsetD32_v2"});
  require(cuMemsetD8, {"cuMemsetD8_v2"});
  require(cuMemGetInfo, {"cuMemGetInfo_v2"});
  require(cuModuleLoadDataEx, {"cuModuleLoadDataEx"});
  require(cuModuleUnload, {"cuModuleUnload"});
  require(cuModuleGetFunction, {"cuModuleGetFunction"});
  require(cuLaunchKernel, {"cuLaunchKernel"});
  require(cuFuncGetAttribute, {"cuFuncGetAttribute"});
  require(cuFuncSetAttribute, {"cuFuncSetAttribute"});
  require(cuStreamCreate, {"cuStreamCreate"});
  require(cuStreamDestroy, {"cuStreamDestroy_v2"});
  require(cuStreamSynchronize, {"cuStreamSynchronize"});
  require(cuEventCreate, {"cuEventCreate"});
  require(cuEventRecord, {"cuEventRecord"});
  require(cuEventSynchronize, {"cuEventSynchronize"});
  require(cuEventElapsedTime, {"cuEventElapsedTime_v2", "cuEventElapsedTime"});
  require(cuEventDestroy, {"cuEventDestroy_v2"});
  require(cuGetErrorName, {"cuGetErrorName"});
  require(cuGetErrorString, {"cuGetErrorString"});
  // Optional: only used to speed up transfers.
  bindSymbol(library, cuMemAllocHost, {"cuMemAllocHost_v2"});
  bindSymbol(library, cuMemFreeHost, {"cuMemFreeHost"});

  if (!missing.empty())
    return unavailable(llvm::formatv(
        "the CUDA driver ({0}) does not export {1}; it is older than kf "
        "supports, install a newer NVIDIA driver",
        driverLibrary, llvm::join(missing, ", ")));

  if (llvm::Error error = check(cuInit(0), "cuInit(0)"))
    return unavailable("the CUDA driver could not be initialized: " +
                       llvm::toString(std::move(error)));

  int deviceCount = 0;
  if (llvm::Error error =
          check(cuDeviceGetCount(&deviceCount), "cuDeviceGetCount"))
    return unavailable(llvm::toString(std::move(error)));
  if (deviceCount == 0)
    return unavailable("the CUDA driver was loaded but reports no GPU");
  return llvm::Error::success();
}

llvm::Expected<CudaDriver &> CudaDriver::get() {
  // The failure is kept as text because an llvm::Error can be consumed only
  // once, and every caller needs its own.
  struct LoadResult {
    CudaDriver *driver = nullptr;
    std::string failure;
  };
  // A function-local static is initialized exactly once even when several
  // threads get here together.
  static const LoadResult result = [] {
    LoadResult loaded;
    // Never deleted: buffers and contexts that outlive main may still call
    // into the driver while static destructors run.
    auto *driver = new CudaDriver();
    if (llvm::Error error = driver->load()) {
      loaded.failure = llvm::toString(std::move(error));
      delete driver;
    } else {
      loaded.driver = driver;
    }
    return loaded;
  }();
  if (!result.driver)
    return llvm::createStringError(result.failure);
  return *result.driver;
}

std::string CudaDriver::formatResult(CUresult result, llvm::StringRef what,
                                     llvm::StringRef errorName,
                                     llvm::StringRef errorString) {
  std::string message = (what + " failed: ").str();
  if (errorName.empty())
    message += llvm::formatv("unknown CUDA error {0}", result).str();
  else
    message += errorName;
  if (!errorString.empty())
    message += (" (" + errorString + ")").str();
  return message;
}

llvm::Error CudaDriver::check(CUresult result, llvm::StringRef what) const {
  if (result == CUDA_SUCCESS)
    return llvm::Error::success();
  const char *errorName = nullptr;
  const char *errorString = nullptr;
  if (cuGetErrorName(result, &errorName) != CUDA_SUCCESS)
    errorName = nullptr;
  if (cuGetErrorString(result, &errorString) != CUDA_SUCCESS)
    errorString = nullptr;
  return llvm::createStringError(formatResult(result, what,
                                              errorName ? errorName : "",
                                              errorString ? errorString : ""));
}

llvm::Expected<DeviceInfo> kf::queryDevice(int ordinal) {
  llvm::Expected<CudaDriver &> driverOrError = CudaDriver::get();
  if (!driverOrError)
    return driverOrError.takeError();
  CudaDriver &driver = *driverOrError;

  int deviceCount = 0;
  if (llvm::Error error = driver.check(driver.cuDeviceGetCount(&deviceCount),
                                       "cuDeviceGetCount"))
    return std::move(error);
  if (ordinal < 0 || ordinal >= deviceCount)
    return llvm::createStringError(llvm::formatv(
        "GPU ordinal {0} is out of range: the CUDA driver reports {1} GPU(s), "
        "so valid ordinals are 0 to {2}",
        ordinal, deviceCount, deviceCount - 1));

  CUdevice device = 0;
  if (llvm::Error error = driver.check(
          driver.cuDeviceGet(&device, ordinal),
          llvm::formatv("cuDeviceGet(ordinal {0})", ordinal).str()))
    return std::move(error);

  DeviceInfo info;
  char name[256] = {};
  if (llvm::Error error =
          driver.check(driver.cuDeviceGetName(name, sizeof(name) - 1, device),
                       "cuDeviceGetName"))
    return std::move(error);
  info.name = name;

  struct AttributeQuery {
    CUdevice_attribute attribute;
    const char *attributeName;
    int DeviceInfo::*field;
  };
  static const AttributeQuery queries[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
       "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR",
       &DeviceInfo::computeMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
       "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR",
       &DeviceInfo::computeMinor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
       "CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT",
       &DeviceInfo::multiprocessors},
      {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
       "CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK",
       &DeviceInfo::maxThreadsPerBlock},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK,
       "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK",
       &DeviceInfo::maxSharedMemPerBlock},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       "CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN",
       &DeviceInfo::maxSharedMemPerBlockOptin},
      {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK,
       "CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK",
       &DeviceInfo::maxRegistersPerBlock},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE",
       &DeviceInfo::l2CacheBytes},
      {CU_DEVICE_ATTRIBUTE_WARP_SIZE, "CU_DEVICE_ATTRIBUTE_WARP_SIZE",
       &DeviceInfo::warpSize},
  };
  for (const AttributeQuery &query : queries) {
    if (llvm::Error error =
            driver.check(driver.cuDeviceGetAttribute(&(info.*query.field),
                                                     query.attribute, device),
                         llvm::formatv("cuDeviceGetAttribute({0}, ordinal {1})",
                                       query.attributeName, ordinal)
                             .str()))
      return std::move(error);
  }

  if (llvm::Error error =
          driver.check(driver.cuDeviceTotalMem(&info.totalMemory, device),
                       "cuDeviceTotalMem"))
    return std::move(error);
  if (llvm::Error error = driver.check(
          driver.cuDriverGetVersion(&info.driverVersion), "cuDriverGetVersion"))
    return std::move(error);
  return info;
}

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

llvm::Expected<DeviceBuffer> DeviceBuffer::allocate(CudaDriver &driver,
                                                    size_t bytes) {
  // cuMemAlloc rejects a size of 0, but empty tensors are legitimate.
  if (bytes == 0)
    return DeviceBuffer(driver, 0, 0);
  CUdeviceptr pointer = 0;
  if (llvm::Error error =
          driver.check(driver.cuMemAlloc(&pointer, bytes),
                       llvm::formatv("cuMemAlloc({0} bytes)", bytes).str()))
    return std::move(error);
  return DeviceBuffer(driver, pointer, bytes);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : driver(other.driver), pointer(std::exchange(other.pointer, 0)),
      bytes(std::exchange(other.bytes, 0)) {}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    reset();
    driver = other.driver;
    pointer = std::exchange(other.pointer, 0);
    bytes = std::exchange(other.bytes, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { reset(); }

void DeviceBuffer::reset() {
  // The result is dropped: after a kernel fault the context is unusable and
  // every call, cuMemFree included, returns the same sticky error, which the
  // code that launched the kernel has already reported.
  if (pointer)
    (void)driver->cuMemFree(pointer);
  pointer = 0;
  bytes = 0;
}

//===----------------------------------------------------------------------===//
// Context
//===----------------------------------------------------------------------===//

llvm::Expected<Context> Context::retainPrimary(CudaDriver &driver,
                                               int ordinal) {
  CUdevice device = 0;
  if (llvm::Error error = driver.check(
          driver.cuDeviceGet(&device, ordinal),
          llvm::formatv("cuDeviceGet(ordinal {0})", ordinal).str()))
    return std::move(error);
  CUcontext previous = nullptr;
  if (llvm::Error error =
          driver.check(driver.cuCtxGetCurrent(&previous), "cuCtxGetCurrent"))
    return std::move(error);
  CUcontext context = nullptr;
  if (llvm::Error error = driver.check(
          driver.cuDevicePrimaryCtxRetain(&context, device),
          llvm::formatv("cuDevicePrimaryCtxRetain(ordinal {0})", ordinal)
              .str()))
    return std::move(error);
  if (llvm::Error error =
          driver.check(driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")) {
    (void)driver.cuDevicePrimaryCtxRelease(device);
    return std::move(error);
  }
  return Context(driver, device, context, previous);
}

Context::Context(Context &&other) noexcept
    : driver(other.driver), deviceHandle(other.deviceHandle),
      context(std::exchange(other.context, nullptr)),
      previous(std::exchange(other.previous, nullptr)) {}

Context &Context::operator=(Context &&other) noexcept {
  if (this != &other) {
    reset();
    driver = other.driver;
    deviceHandle = other.deviceHandle;
    context = std::exchange(other.context, nullptr);
    previous = std::exchange(other.previous, nullptr);
  }
  return *this;
}

Context::~Context() { reset(); }

void Context::reset() {
  // Results are dropped for the reason given in DeviceBuffer::reset.
  if (context) {
    (void)driver->cuCtxSetCurrent(previous);
    (void)driver->cuDevicePrimaryCtxRelease(deviceHandle);
  }
  context = nullptr;
  previous = nullptr;
}
