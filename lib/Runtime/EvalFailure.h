//===- EvalFailure.h - Errors that carry an evaluation status -*- C++ -*-===//
//
// Private to lib/Runtime: how the evaluator's phases fail (an llvm::Error
// with the CandidateStatus it means), and the argument bytes of a kernel
// launch, shared by the plan loader (LoadedPlan.cpp) and the evaluator.
//
//===----------------------------------------------------------------------===//

#ifndef KF_LIB_RUNTIME_EVALFAILURE_H
#define KF_LIB_RUNTIME_EVALFAILURE_H

#include "kf/Runtime/CudaDriver.h"
#include "kf/Runtime/Evaluator.h"

#include "llvm/Support/Error.h"

#include <array>
#include <cstring>
#include <vector>

namespace kf {
//===----------------------------------------------------------------------===//
// Errors carrying an evaluation status
//===----------------------------------------------------------------------===//

class EvalError : public llvm::ErrorInfo<EvalError> {
public:
  static char ID;
  EvalError(CandidateStatus status, std::string message)
      : status(status), message(std::move(message)) {}
  void log(llvm::raw_ostream &os) const override { os << message; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  CandidateStatus status;
  std::string message;
};

inline llvm::Error evalError(CandidateStatus status,
                             const llvm::Twine &message) {
  return llvm::make_error<EvalError>(status, message.str());
}

/// Puts a failure into `result`: its status (internal-error for errors
/// without one) and message; a fault marks the context lost.
inline void recordFailure(llvm::Error error, EvalResult &result) {
  llvm::handleAllErrors(
      std::move(error),
      [&](const EvalError &e) {
        result.status = e.status;
        result.message = e.message;
      },
      [&](const llvm::ErrorInfoBase &e) {
        result.status = CandidateStatus::InternalError;
        result.message = e.message();
      });
  result.contextLost = result.status == CandidateStatus::Fault;
}

/// Re-labels a driver error with `status`.
inline llvm::Error withStatus(llvm::Error error, CandidateStatus status) {
  if (!error)
    return llvm::Error::success();
  return evalError(status, llvm::toString(std::move(error)));
}

/// Driver errors that mean a kernel faulted and the context is gone.
inline bool isFaultCode(CUresult code) {
  // CUDA_ERROR_ILLEGAL_ADDRESS (700), LAUNCH_OUT_OF_RESOURCES is 701 (not a
  // fault), LAUNCH_TIMEOUT 702, HARDWARE_STACK_ERROR 714, ILLEGAL_INSTRUCTION
  // 715, MISALIGNED_ADDRESS 716, INVALID_ADDRESS_SPACE 717, INVALID_PC 718,
  // LAUNCH_FAILED 719, ASSERT 710.
  return code == 700 || code == 702 || code == 710 ||
         (code >= 714 && code <= 719);
}

/// Argument bytes for cuLaunchKernel.
class KernelArguments {
public:
  void addPointer(CUdeviceptr pointer) { add(&pointer, sizeof(pointer)); }
  void addI64(int64_t value) { add(&value, 8); }
  void addI32(int32_t value) { add(&value, 4); }
  void addI16(int16_t value) { add(&value, 2); }
  void addI8(int8_t value) { add(&value, 1); }
  void addF64(double value) { add(&value, 8); }
  void addF32(float value) { add(&value, 4); }
  /// A memref<?xT> descriptor: allocated and aligned pointers, offset, size,
  /// stride.
  void addVector(CUdeviceptr pointer, int64_t size) {
    addPointer(pointer);
    addPointer(pointer);
    addI64(0);
    addI64(size);
    addI64(1);
  }
  void **pointers() {
    params.clear();
    for (auto &slot : storage)
      params.push_back(slot.data());
    return params.data();
  }

private:
  void add(const void *data, size_t bytes) {
    std::array<uint8_t, 8> slot{};
    std::memcpy(slot.data(), data, bytes);
    storage.push_back(slot);
  }
  std::vector<std::array<uint8_t, 8>> storage;
  std::vector<void *> params;
};

inline int64_t roundUp(int64_t value, int64_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}
} // namespace kf

#endif // KF_LIB_RUNTIME_EVALFAILURE_H
