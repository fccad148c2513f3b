//===- StoreCoverage.h - What a kernel's stores can cover -------*- C++ -*-===//
//
// Private to KFAnalysis: the facts about stores that the cheat checks'
// coverage and dependence rules use (CheatDetection.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef KF_LIB_ANALYSIS_STORECOVERAGE_H
#define KF_LIB_ANALYSIS_STORECOVERAGE_H

#include "kf/Analysis/IndexRanges.h"
#include "kf/Analysis/MemoryAccesses.h"

#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kf {
class KernelAnalysis;
namespace detail {

/// The first bytes of [0, size) that no interval covers.
std::optional<ByteInterval> firstGap(llvm::SmallVector<ByteInterval> intervals,
                                     int64_t size);

/// Whether the value `op` stores through `access` is overwritten before
/// anything can read it: a later store to the same address in the same
/// block, with only ops that neither read memory nor synchronize between.
bool overwrittenBeforeRead(mlir::Operation *op, const BufferAccess &access);

/// How many elements `store` (an access of the kernel `analysis` is about)
/// can write over the whole grid: threads x vector width x the trip counts
/// of its enclosing loops. std::nullopt when that is not a constant
/// (unknown launch sizes or trip counts, while loops, copies).
std::optional<int64_t> storesAcrossTheGrid(const KernelAnalysis &analysis,
                                           const BufferAccess &store);

} // namespace detail
} // namespace kf

#endif // KF_LIB_ANALYSIS_STORECOVERAGE_H
