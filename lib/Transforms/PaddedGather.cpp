//===- PaddedGather.cpp - Zero-padded copies of tensors, as linalg ops ----===//

#include "PaddedGather.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;

SmallVector<utils::IteratorType> kf::allParallel(unsigned count) {
  return SmallVector<utils::IteratorType>(count, utils::IteratorType::parallel);
}

std::pair<Value, Value> kf::clampIndex(OpBuilder &builder, Location loc,
                                       Value index, int64_t size,
                                       int64_t padded) {
  if (padded == size)
    return {index, Value()};
  Value last = arith::ConstantIndexOp::create(builder, loc, size - 1);
  Value inRange = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule,
                                        index, last);
  return {arith::MinUIOp::create(builder, loc, index, last), inRange};
}

Value kf::zeroOutside(OpBuilder &builder, Location loc, Value value,
                      ArrayRef<Value> conditions) {
  Value valid;
  for (Value condition : conditions)
    if (condition)
      valid = valid ? arith::AndIOp::create(builder, loc, valid, condition)
                          .getResult()
                    : condition;
  if (!valid)
    return value;
  Value zero =
      arith::ConstantOp::create(builder, loc, builder.getF32FloatAttr(0.0));
  return arith::SelectOp::create(builder, loc, valid, value, zero);
}

Value kf::buildPaddedGather(
    OpBuilder &rewriter, Location loc,
    ArrayRef<std::pair<int64_t, int64_t>> sizes,
    function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> element) {
  Type f32 = rewriter.getF32Type();
  SmallVector<int64_t> shape =
      llvm::map_to_vector(sizes, [](auto size) { return size.second; });
  auto type = RankedTensorType::get(shape, f32);
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{type}, ValueRange{},
             ValueRange{tensor::EmptyOp::create(rewriter, loc, shape, f32)},
             ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(
                 shape.size(), rewriter.getContext())},
             allParallel(shape.size()),
             [&](OpBuilder &builder, Location loc, ValueRange) {
               SmallVector<Value, 3> indices, inRange;
               for (auto [dim, size] : llvm::enumerate(sizes)) {
                 auto [index, valid] = clampIndex(
                     builder, loc, linalg::IndexOp::create(builder, loc, dim),
                     size.first, size.second);
                 indices.push_back(index);
                 inRange.push_back(valid);
               }
               Value value = element(builder, loc, indices);
               linalg::YieldOp::create(
                   builder, loc, zeroOutside(builder, loc, value, inRange));
             })
      .getResult(0);
}
