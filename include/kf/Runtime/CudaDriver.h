//===- CudaDriver.h - CUDA driver API loaded at run time --------*- C++ -*-===//
//
// kf evaluates kernels through the CUDA driver API, but must build and run its
// CPU paths (compilation, analysis, tests) on machines without a GPU, a driver
// or a CUDA toolkit. The driver is therefore opened with dlopen at run time and
// never linked, and cuda.h is never included: the few types and constants kf
// uses are declared below.
//
//===----------------------------------------------------------------------===//

#ifndef KF_RUNTIME_CUDADRIVER_H
#define KF_RUNTIME_CUDADRIVER_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <string>

namespace kf {

//===----------------------------------------------------------------------===//
// CUDA driver API ABI
//===----------------------------------------------------------------------===//

// These mirror the CUDA driver API ABI as declared in cuda.h (CUDA 13.0); the
// numeric values are part of NVIDIA's stable ABI and must match it exactly.
// They live in namespace kf so that a translation unit that does include
// cuda.h sees no conflicting declarations.

/// cudaError_enum; an int-sized C enum in cuda.h.
using CUresult = int;
using CUdevice = int;
/// 64-bit device address (CUdeviceptr_v2 on 64-bit hosts).
using CUdeviceptr = unsigned long long;
struct CUctx_st;
using CUcontext = CUctx_st *;
struct CUmod_st;
using CUmodule = CUmod_st *;
struct CUfunc_st;
using CUfunction = CUfunc_st *;
struct CUstream_st;
using CUstream = CUstream_st *;
struct CUevent_st;
using CUevent = CUevent_st *;
/// CUdevice_attribute, CUfunction_attribute and CUjit_option are int-sized C
/// enums in cuda.h.
using CUdevice_attribute = int;
using CUfunction_attribute = int;
using CUjit_option = int;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;

// CUdevice_attribute values used by queryDevice.
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK =
    8;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr CUdevice_attribute CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr CUdevice_attribute
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97;

// CUfunction_attribute values (cuFuncGetAttribute / cuFuncSetAttribute).
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES = 2;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_NUM_REGS = 4;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_PTX_VERSION = 5;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_BINARY_VERSION = 6;
constexpr CUfunction_attribute CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES =
    8;

// CUjit_option values (cuModuleLoadDataEx).
constexpr CUjit_option CU_JIT_MAX_REGISTERS = 0;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER = 3;
constexpr CUjit_option CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr CUjit_option CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr CUjit_option CU_JIT_OPTIMIZATION_LEVEL = 7;
constexpr CUjit_option CU_JIT_LOG_VERBOSE = 12;
constexpr CUjit_option CU_JIT_GENERATE_LINE_INFO = 13;

// Stream and event creation flags.
constexpr unsigned CU_STREAM_DEFAULT = 0x0;
constexpr unsigned CU_STREAM_NON_BLOCKING = 0x1;
constexpr unsigned CU_EVENT_DEFAULT = 0x0;
constexpr unsigned CU_EVENT_BLOCKING_SYNC = 0x1;
constexpr unsigned CU_EVENT_DISABLE_TIMING = 0x2;

//===----------------------------------------------------------------------===//
// CudaDriver
//===----------------------------------------------------------------------===//

/// The process-wide CUDA driver: libcuda.so.1 opened with dlopen, its entry
/// points resolved and cuInit(0) called. The function pointers carry the API
/// names (cuMemAlloc) but are bound to the versioned symbols the driver
/// exports for them (cuMemAlloc_v2), which is what cuda.h's macros do.
class CudaDriver {
public:
  /// Loads the driver on first use (thread-safe; later calls return the same
  /// driver or the same error). Fails when libcuda.so.1 is missing, lacks a
  /// required entry point, cuInit fails or there is no device.
  static llvm::Expected<CudaDriver &> get();

  /// Returns success for CUDA_SUCCESS, otherwise an error such as
  /// "cuMemAlloc(6442450944 bytes) failed: CUDA_ERROR_OUT_OF_MEMORY (out of
  /// memory)"; `what` names the call and its interesting arguments.
  llvm::Error check(CUresult result, llvm::StringRef what) const;

  /// The message check() builds from the driver's name and description of
  /// `result`; either may be empty when the driver does not know the code.
  static std::string formatResult(CUresult result, llvm::StringRef what,
                                  llvm::StringRef errorName,
                                  llvm::StringRef errorString);

  CudaDriver(const CudaDriver &) = delete;
  CudaDriver &operator=(const CudaDriver &) = delete;

  // Initialization and devices.
  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDriverGetVersion)(int *version) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice *device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetCount)(int *count) = nullptr;
  CUresult (*cuDeviceGetName)(char *name, int length,
                              CUdevice device) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int *value, CUdevice_attribute attribute,
                                   CUdevice device) = nullptr;
  CUresult (*cuDeviceTotalMem)(size_t *bytes, CUdevice device) = nullptr;

  // Contexts. kf uses the primary context rather than cuCtxCreate so that it
  // shares one context per device with any library loaded in the process.
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *context,
                                       CUdevice device) = nullptr;
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice device) = nullptr;
  CUresult (*cuCtxSetCurrent)(CUcontext context) = nullptr;
  CUresult (*cuCtxGetCurrent)(CUcontext *context) = nullptr;
  CUresult (*cuCtxSynchronize)() = nullptr;

  // Memory.
  CUresult (*cuMemAlloc)(CUdeviceptr *pointer, size_t bytes) = nullptr;
  CUresult (*cuMemFree)(CUdeviceptr pointer) = nullptr;
  CUresult (*cuMemcpyHtoD)(CUdeviceptr destination, const void *source,
                           size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoH)(void *destination, CUdeviceptr source,
                           size_t bytes) = nullptr;
  CUresult (*cuMemcpyDtoD)(CUdeviceptr destination, CUdeviceptr source,
                           size_t bytes) = nullptr;
  CUresult (*cuMemsetD32)(CUdeviceptr destination, unsigned value,
                          size_t count) = nullptr;
  CUresult (*cuMemsetD8)(CUdeviceptr destination, unsigned char value,
                         size_t count) = nullptr;
  CUresult (*cuMemGetInfo)(size_t *freeBytes, size_t *totalBytes) = nullptr;
  /// Optional (page-locked host memory); null when the driver lacks it.
  CUresult (*cuMemAllocHost)(void **pointer, size_t bytes) = nullptr;
  /// Optional; null when the driver lacks it.
  CUresult (*cuMemFreeHost)(void *pointer) = nullptr;

  // Modules and kernels.
  CUresult (*cuModuleLoadDataEx)(CUmodule *module, const void *image,
                                 unsigned numOptions, CUjit_option *options,
                                 void **optionValues) = nullptr;
  CUresult (*cuModuleUnload)(CUmodule module) = nullptr;
  CUresult (*cuModuleGetFunction)(CUfunction *function, CUmodule module,
                                  const char *name) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction function, unsigned gridDimX,
                             unsigned gridDimY, unsigned gridDimZ,
                             unsigned blockDimX, unsigned blockDimY,
                             unsigned blockDimZ, unsigned sharedMemBytes,
                             CUstream stream, void **kernelParams,
                             void **extra) = nullptr;
  CUresult (*cuFuncGetAttribute)(int *value, CUfunction_attribute attribute,
                                 CUfunction function) = nullptr;
  CUresult (*cuFuncSetAttribute)(CUfunction function,
                                 CUfunction_attribute attribute,
                                 int value) = nullptr;

  // Streams and events.
  CUresult (*cuStreamCreate)(CUstream *stream, unsigned flags) = nullptr;
  CUresult (*cuStreamDestroy)(CUstream stream) = nullptr;
  CUresult (*cuStreamSynchronize)(CUstream stream) = nullptr;
  CUresult (*cuEventCreate)(CUevent *event, unsigned flags) = nullptr;
  CUresult (*cuEventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*cuEventSynchronize)(CUevent event) = nullptr;
  CUresult (*cuEventElapsedTime)(float *milliseconds, CUevent start,
                                 CUevent end) = nullptr;
  CUresult (*cuEventDestroy)(CUevent event) = nullptr;

  // Errors.
  CUresult (*cuGetErrorName)(CUresult result, const char **name) = nullptr;
  CUresult (*cuGetErrorString)(CUresult result,
                               const char **description) = nullptr;

private:
  CudaDriver() = default;
  /// Opens libcuda.so.1, binds the entry points and initializes the driver.
  llvm::Error load();
};

//===----------------------------------------------------------------------===//
// Device properties
//===----------------------------------------------------------------------===//

/// What kf needs to know about a GPU to choose and judge kernel schedules.
struct DeviceInfo {
  std::string name;
  int computeMajor = 0;
  int computeMinor = 0;
  int multiprocessors = 0;
  int maxThreadsPerBlock = 0;
  int maxSharedMemPerBlock = 0;
  /// The larger limit a kernel gets after opting in through
  /// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES.
  int maxSharedMemPerBlockOptin = 0;
  int maxRegistersPerBlock = 0;
  int l2CacheBytes = 0;
  int warpSize = 0;
  size_t totalMemory = 0;
  /// As cuDriverGetVersion reports it: 1000 * major + 10 * minor.
  int driverVersion = 0;
};

/// Queries device `ordinal` (0-based), loading the driver if needed; fails
/// when the driver is unavailable or the ordinal is out of range.
llvm::Expected<DeviceInfo> queryDevice(int ordinal);

//===----------------------------------------------------------------------===//
// RAII owners
//===----------------------------------------------------------------------===//

/// Device memory from cuMemAlloc, freed with cuMemFree on destruction. Needs a
/// current context (see Context) both to allocate and to free.
class DeviceBuffer {
public:
  /// An empty buffer that owns nothing.
  DeviceBuffer() = default;
  static llvm::Expected<DeviceBuffer> allocate(CudaDriver &driver,
                                               size_t bytes);

  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer();

  /// The device address; 0 for an empty buffer.
  CUdeviceptr get() const { return pointer; }
  size_t size() const { return bytes; }

private:
  DeviceBuffer(CudaDriver &driver, CUdeviceptr pointer, size_t bytes)
      : driver(&driver), pointer(pointer), bytes(bytes) {}
  void reset();

  CudaDriver *driver = nullptr;
  CUdeviceptr pointer = 0;
  size_t bytes = 0;
};

/// Retains the primary context of a device and makes it current on the
/// calling thread; on destruction restores the context that was current
/// before and releases the primary context. Guards must be destroyed in the
/// reverse order of their creation on the thread that created them.
class Context {
public:
  static llvm::Expected<Context> retainPrimary(CudaDriver &driver, int ordinal);

  Context(Context &&other) noexcept;
  Context &operator=(Context &&other) noexcept;
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;
  ~Context();

  CUcontext get() const { return context; }
  CUdevice device() const { return deviceHandle; }

private:
  Context(CudaDriver &driver, CUdevice device, CUcontext context,
          CUcontext previous)
      : driver(&driver), deviceHandle(device), context(context),
        previous(previous) {}
  void reset();

  CudaDriver *driver = nullptr;
  CUdevice deviceHandle = 0;
  CUcontext context = nullptr;
  CUcontext previous = nullptr;
};

} // namespace kf

#endif // KF_RUNTIME_CUDADRIVER_H
