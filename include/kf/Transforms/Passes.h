//===- Passes.h - Kernel Foundry passes -------------------------*- C++ -*-===//

#ifndef KF_TRANSFORMS_PASSES_H
#define KF_TRANSFORMS_PASSES_H

#include "kf/Analysis/ConvolutionGemm.h"
#include "kf/Dialect/KF/KFDialect.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kf {

/// Marks a gpu.launch whose accumulators kf-hoist-accumulators may keep in
/// registers (a staged schedule sets it).
inline constexpr llvm::StringLiteral kHoistAccumulatorsAttrName =
    "kf.hoist_accumulators";

/// Marks a linalg op whose innermost reduction loop the given number of
/// threads along x share (kf-distribute-reductions).
inline constexpr llvm::StringLiteral kReductionLanesAttrName =
    "kf.reduction_lanes";

/// Marks an all-parallel linalg op whose innermost loop the given number of
/// threads along x share, element t going to lane t mod lanes
/// (kf-distribute-reductions): the consumer of a row group.
inline constexpr llvm::StringLiteral kRowLanesAttrName = "kf.row_lanes";

/// Whether kf-distribute-reductions can rewrite `op` (on tensors or
/// buffers) once generalized: a linalg op with one reduction loop and one
/// 32-bit output, whose body folds each element into it with one add, mul,
/// max or min.
bool isLaneReduction(mlir::linalg::LinalgOp op);

/// Whether `op` is a named pooling op (linalg.pooling_*): a window reduction
/// that kf-fuse-elementwise generalizes to fuse its input's producer.
bool isNamedPooling(mlir::Operation *op);

/// Whether `lanes` threads can share a reduction (kf-distribute-reductions,
/// the schedule's OpSchedule::reductionLanes): a power of two from 2 to 16,
/// whose groups the shuffles keep inside a warp, or a multiple of 32 up to
/// 1024.
bool isValidReductionLanes(int64_t lanes);

/// The loop order kf-interchange-to-output-order gives `op` (new loop i is
/// old loop order[i]): its parallel loops in the order of the output's
/// dimensions, then its reduction loops; nullopt where that is the order
/// already, where an input varies fastest with another parallel loop than
/// the output (a transpose), or where the output is not a permutation of
/// the parallel loops.
std::optional<llvm::SmallVector<unsigned>>
outputOrderInterchange(mlir::linalg::LinalgOp op);

#define GEN_PASS_DECL
#include "kf/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "kf/Transforms/Passes.h.inc"

} // namespace kf

#endif // KF_TRANSFORMS_PASSES_H
