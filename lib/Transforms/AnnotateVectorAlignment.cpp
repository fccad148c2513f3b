//===- AnnotateVectorAlignment.cpp - Alignment of vector accesses ---------===//

#include "kf/Analysis/KnownDivisor.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/APInt.h"

#include <numeric>

namespace kf {
#define GEN_PASS_DEF_KFANNOTATEVECTORALIGNMENT
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

/// Byte alignment kf's runtime guarantees for memref kernel arguments.
static constexpr int64_t kArgumentAlignment = 256;

namespace {

/// A positive integer known to divide `value` (1 when nothing is known); a
/// known zero is as aligned as the runtime's kernel arguments.
int64_t knownDivisor(Value value) {
  int64_t divisor = kf::knownDivisor(value);
  return divisor == 0 ? kArgumentAlignment : divisor;
}

/// Alignment in bytes of an access at `indices` of `base`, or 0 if unknown.
/// `base` is a kernel argument, or a view of one that expand-strided-metadata
/// left as a reinterpret_cast whose offset may be an SSA value (a tile of a
/// subview).
int64_t accessAlignment(Value base, ValueRange indices, int64_t vectorBytes) {
  auto memref = dyn_cast<MemRefType>(base.getType());
  if (!memref)
    return 0;
  Value root = base;
  std::optional<Value> dynamicOffset;
  if (auto cast = root.getDefiningOp<memref::ReinterpretCastOp>()) {
    root = cast.getSource();
    if (auto metadata = root.getDefiningOp<memref::ExtractStridedMetadataOp>())
      root = metadata.getSource();
    OpFoldResult offset = cast.getMixedOffsets().front();
    if (auto value = dyn_cast<Value>(offset))
      dynamicOffset = value;
  }
  auto arg = dyn_cast<BlockArgument>(root);
  if (!arg || !isa<gpu::GPUFuncOp>(arg.getOwner()->getParentOp()))
    return 0;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) ||
      (ShapedType::isDynamic(offset) && !dynamicOffset) ||
      llvm::any_of(strides, ShapedType::isDynamic))
    return 0;
  unsigned elementBytes = memref.getElementTypeBitWidth() / 8;
  if (elementBytes == 0)
    return 0;
  int64_t divisor = dynamicOffset ? knownDivisor(*dynamicOffset)
                    : offset == 0 ? kArgumentAlignment
                                  : std::abs(offset);
  for (auto [index, stride] : llvm::zip(indices, strides))
    divisor = std::gcd(divisor, knownDivisor(index) * std::abs(stride));
  int64_t bytes = divisor * elementBytes;
  int64_t alignment = bytes & -bytes; // largest power of two dividing it
  return std::min({alignment, vectorBytes, kArgumentAlignment});
}

struct KFAnnotateVectorAlignmentPass
    : kf::impl::KFAnnotateVectorAlignmentBase<KFAnnotateVectorAlignmentPass> {
  using Base::Base;

  void runOnOperation() override {
    auto annotate = [&](Operation *op, Value base, ValueRange indices,
                        VectorType vector) {
      if (op->hasAttr("alignment"))
        return;
      int64_t vectorBytes =
          vector.getNumElements() * vector.getElementTypeBitWidth() / 8;
      int64_t alignment = accessAlignment(base, indices, vectorBytes);
      if (alignment * 8 <= (int64_t)vector.getElementTypeBitWidth())
        return;
      op->setAttr(
          "alignment",
          IntegerAttr::get(IntegerType::get(op->getContext(), 64), alignment));
      ++numAligned;
    };
    getOperation().walk([&](Operation *op) {
      if (auto load = dyn_cast<vector::LoadOp>(op))
        annotate(op, load.getBase(), load.getIndices(), load.getVectorType());
      else if (auto store = dyn_cast<vector::StoreOp>(op))
        annotate(op, store.getBase(), store.getIndices(),
                 store.getVectorType());
    });
  }
};
} // namespace
