//===- ThreadDependence.h - How values vary across threads ------*- C++ -*-===//
//
// Two questions the kernel analyses ask of every index and condition:
// - by how much does it change from one thread to the next along x (the
//   stride, when the value is an affine function of threadIdx.x with a known
//   coefficient; likewise along y and z), and
// - does it depend on the thread at all (then a branch on it diverges).
// Both work on kernels in gpu/scf/memref/arith form and on llvm + nvvm
// kernels (as imported from CUDA or lowered by kf), so that one analysis
// serves MLIR and CUDA input.
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_THREADDEPENDENCE_H
#define KF_ANALYSIS_THREADDEPENDENCE_H

#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

#include <optional>

namespace kf {

class ThreadDependence {
public:
  /// d value / d threadIdx.x, or std::nullopt when it is not an affine
  /// function of threadIdx.x with a known coefficient. Uniform values
  /// (constants, kernel arguments, block ids, sizes) have stride 0, and so
  /// do threadIdx.y and .z: a warp is formed along x first and, with at
  /// least 32 threads along x, shares its y and z.
  std::optional<int64_t> strideX(mlir::Value value) { return stride(value, 0); }

  /// d value / d threadIdx.y, with the same rules: threadIdx.x and .z are
  /// constant along y. Used where a warp spans several rows of threads
  /// (blocks narrower than 32 threads along x), e.g. for the shared-memory
  /// bank model.
  std::optional<int64_t> strideY(mlir::Value value) { return stride(value, 1); }

  /// d value / d threadIdx.{x, y, z} for `dim` 0, 1, 2.
  std::optional<int64_t> stride(mlir::Value value, unsigned dim);

  /// Whether the value may differ between threads of one block (any
  /// thread dimension, lane id, or a load from a thread-dependent address).
  bool isThreadDependent(mlir::Value value);

  /// Whether `value` is computed from `root` (through operations and block
  /// arguments of loops).
  bool dependsOn(mlir::Value value, mlir::Value root);

private:
  std::optional<int64_t> computeStride(mlir::Value value, unsigned dim);
  bool computeThreadDependent(mlir::Value value);

  llvm::DenseMap<mlir::Value, std::optional<int64_t>> strides[3];
  llvm::DenseSet<mlir::Value> stridesInProgress[3];
  llvm::DenseMap<mlir::Value, bool> dependent;
  llvm::DenseSet<mlir::Value> inProgress;
};

} // namespace kf

#endif // KF_ANALYSIS_THREADDEPENDENCE_H
