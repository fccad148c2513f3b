//===- IndexRanges.h - The values an index can take in a kernel -*- C++ -*-===//
//
// Integer facts about one kernel that the cheat checks reason with:
// - IndexRanges: the values an integer or index can take where an op runs,
//   from the launch's block and grid sizes (thread and block ids),
//   constants, the arithmetic on them, loop bounds, and the conditions of
//   the branches that guard the op (a store under `col < n - 1` never
//   reaches column n - 1); and from them, the bytes of its buffer an access
//   can reach. Over-approximations: a range may hold values that never
//   occur, never miss one that does.
// - isKnownConstant: an integer whose every bit is known without knowing
//   the data it is computed from (its input-dependent bits were shifted or
//   masked out).
// Both gpu/scf/memref kernels and llvm/nvvm ones (lowered or imported).
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_INDEXRANGES_H
#define KF_ANALYSIS_INDEXRANGES_H

#include "mlir/IR/Dominance.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/ConstantRange.h"
#include "llvm/Support/KnownBits.h"

#include <array>
#include <optional>

namespace kf {

/// Inclusive byte offsets [first, last] from a buffer's start.
struct ByteInterval {
  int64_t first = 0, last = -1;
  bool overlaps(const ByteInterval &other) const {
    return first <= other.last && other.first <= last;
  }
};

class IndexRanges {
public:
  /// `kernel`: a gpu.func or llvm.func; the launch's sizes, when known,
  /// bound its thread and block ids (as upper bounds: a block size from
  /// nvvm.maxntid is a maximum).
  IndexRanges(mlir::Operation *kernel,
              std::optional<std::array<int64_t, 3>> blockSize,
              std::optional<std::array<int64_t, 3>> gridSize);

  /// The bytes of its root buffer (see traceBufferRoot) that `access`, an
  /// op of the kernel accessing memory through `base`, can reach;
  /// std::nullopt when unknown (a view with dynamic offsets, a struct
  /// field, an index without a bound).
  std::optional<ByteInterval> bytesReached(mlir::Operation *access,
                                           mlir::Value base);

private:
  using Overrides = llvm::DenseMap<mlir::Value, llvm::ConstantRange>;
  llvm::ConstantRange compute(mlir::Value value, Overrides &known,
                              unsigned depth);
  llvm::ConstantRange computeBlockArgument(mlir::BlockArgument arg,
                                           Overrides &known, unsigned depth);
  /// Narrows `known` with what the branches guarding `at` decide.
  void applyGuards(mlir::Operation *at, Overrides &known);
  void assume(mlir::Value condition, bool holds, Overrides &known,
              unsigned depth);
  std::optional<ByteInterval> llvmBytes(mlir::Operation *access,
                                        mlir::Value address,
                                        mlir::Type accessed, Overrides &known);
  std::optional<ByteInterval> memrefBytes(mlir::Operation *access,
                                          mlir::Value memref,
                                          mlir::ValueRange indices,
                                          int64_t elementsAlongLast,
                                          Overrides &known);

  mlir::Operation *kernel;
  std::optional<std::array<int64_t, 3>> blockSize, gridSize;
  mlir::DominanceInfo dominance;
  /// Ranges computed without any op's guards (valid everywhere), and the
  /// CFG block arguments being computed (a cycle gives the full range).
  Overrides unguarded;
  llvm::DenseSet<mlir::Value> inProgress;
};

/// Whether every bit of `value` (an integer, index or float) is known from
/// its computation alone: constants, and what bitwise logic, shifts,
/// additions, multiplications, casts and selects keep known (a value
/// shifted right by its width, or masked with zero, is a constant whatever
/// it was computed from).
bool isKnownConstant(mlir::Value value);

/// The known bits of values already asked about, for asking about many
/// values of one function (each is computed once).
using KnownBitsCache = llvm::DenseMap<mlir::Value, llvm::KnownBits>;
bool isKnownConstant(mlir::Value value, KnownBitsCache &cache);

} // namespace kf

#endif // KF_ANALYSIS_INDEXRANGES_H
