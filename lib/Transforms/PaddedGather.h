//===- PaddedGather.h - Zero-padded copies of tensors, as linalg ops ------===//
//
// The GEMM kernel's tiles must divide its operands; kf-convolution-to-gemm
// and kf-pad-contractions give it operands padded with zeros to the tiles'
// multiples. Both write the padded copy as an elementwise linalg.generic
// over the padded shape that reads the source with tensor.extract at
// clamped indices and selects zero past its end: a plain elementwise op
// that the schedules map like any other (tensor.pad would need a lowering
// of its own on the GPU).
//
//===----------------------------------------------------------------------===//

#ifndef KF_LIB_TRANSFORMS_PADDEDGATHER_H
#define KF_LIB_TRANSFORMS_PADDEDGATHER_H

#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/Support/LLVM.h"

#include <utility>

namespace kf {

/// `count` parallel iterators.
llvm::SmallVector<mlir::utils::IteratorType> allParallel(unsigned count);

/// `index` clamped to `size` - 1 when `padded` > `size`, and the condition
/// that it was in range (null when no padding).
std::pair<mlir::Value, mlir::Value> clampIndex(mlir::OpBuilder &builder,
                                               mlir::Location loc,
                                               mlir::Value index, int64_t size,
                                               int64_t padded);

/// `value`, or f32 zero where one of `conditions` (null ones ignored) fails.
mlir::Value zeroOutside(mlir::OpBuilder &builder, mlir::Location loc,
                        mlir::Value value,
                        llvm::ArrayRef<mlir::Value> conditions);

/// An f32 tensor of `sizes[d].second` x ... elements whose element (i, j,
/// ...) is `element` at the indices clamped to the unpadded
/// `sizes[d].first`, and zero where an index is past it. `element` may read
/// any tensor with tensor.extract.
mlir::Value buildPaddedGather(
    mlir::OpBuilder &builder, mlir::Location loc,
    llvm::ArrayRef<std::pair<int64_t, int64_t>> sizes,
    llvm::function_ref<mlir::Value(mlir::OpBuilder &, mlir::Location,
                                   llvm::ArrayRef<mlir::Value>)>
        element);

} // namespace kf

#endif // KF_LIB_TRANSFORMS_PADDEDGATHER_H
