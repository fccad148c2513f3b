//===- UnrollElementwiseRows.cpp - n-D elementwise chains row by row ------===//
//
// A GEMM kernel's fused epilogue (bias, scaling, an activation) is a chain
// of elementwise ops on the thread's whole accumulator tile, a
// vector<8x8xf32>. Lowered as it stands, each op runs on all 64 elements
// before the next one starts, so every intermediate of the chain is live
// for the whole tile at once, and ptxas does not reorder a long block to
// undo that: L2-86's GELU epilogue spilled 3176 bytes at the 128 registers
// that two blocks per SM leave, even with a branch-free erf. This pass
// computes such chains row by row (rows along the vector's last dimension):
// each row's chain is computed just before the first use of its results
// (the row's store), so one row's temporaries are live beside the
// accumulators, not the tile's. Upstream's unrolling patterns
// (vector::populateVectorUnrollPatterns) slice each op where it stands and
// keep the op-by-op order, which is what this pass changes.
//
//===----------------------------------------------------------------------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace kf {
#define GEN_PASS_DEF_KFUNROLLELEMENTWISEROWS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
/// The vector type of `op`'s result when the op is computed row by row: an
/// elementwise op without memory effects or regions whose one result and
/// whose operands are all fixed-size vectors of one shape of rank 2 or
/// more with more than one row.
VectorType rowwiseType(Operation *op) {
  if (op->getNumResults() != 1 || op->getNumRegions() != 0 ||
      !op->hasTrait<OpTrait::Elementwise>() || !isMemoryEffectFree(op))
    return {};
  auto type = dyn_cast<VectorType>(op->getResult(0).getType());
  if (!type || type.getRank() < 2 || type.isScalable() ||
      type.getNumElements() == type.getShape().back())
    return {};
  for (Value operand : op->getOperands()) {
    auto operandType = dyn_cast<VectorType>(operand.getType());
    if (!operandType || operandType.getShape() != type.getShape() ||
        operandType.isScalable())
      return {};
  }
  return type;
}

/// The strides of `type`'s rows: rows are numbered in row-major order of
/// the leading dimensions.
SmallVector<int64_t> rowStrides(VectorType type) {
  return computeSuffixProduct(type.getShape().drop_back());
}

/// The use's row and, for an element, its index in the row, when the use
/// is a static vector.extract of a row or of an element of `type`.
std::optional<std::pair<int64_t, std::optional<int64_t>>>
extractedRow(OpOperand &use, VectorType type) {
  auto extract = dyn_cast<vector::ExtractOp>(use.getOwner());
  if (!extract || !extract.getDynamicPosition().empty())
    return std::nullopt;
  ArrayRef<int64_t> position = extract.getStaticPosition();
  int64_t rank = type.getRank();
  if ((int64_t)position.size() == rank - 1)
    return std::make_pair(linearize(position, rowStrides(type)),
                          std::optional<int64_t>());
  if ((int64_t)position.size() == rank)
    return std::make_pair(linearize(position.drop_back(), rowStrides(type)),
                          std::optional<int64_t>(position.back()));
  return std::nullopt;
}

/// Whether `use` of a chain op's result can read a row instead: a row or
/// element extract after the chain's last op (or inside an op after it).
bool readsRowAfter(OpOperand &use, VectorType type, Operation *last) {
  Operation *user = last->getBlock()->findAncestorOpInBlock(*use.getOwner());
  return user && last->isBeforeInBlock(user) &&
         extractedRow(use, type).has_value();
}

/// Computes the row-wise ops of one shape in one block (`ops`, in block
/// order) row by row.
void unrollRows(SmallVector<Operation *> ops, VectorType shapeType) {
  // Only ops whose every result use reads a row: another op of the chain
  // or a row's extract after it. An op with another use (a whole-vector
  // store, a use before the chain ends) stays whole, and so do the chain
  // ops it reads, until nothing changes.
  for (bool changed = true; changed && !ops.empty();) {
    llvm::SmallDenseSet<Operation *> inChain(ops.begin(), ops.end());
    Operation *last = ops.back();
    size_t before = ops.size();
    llvm::erase_if(ops, [&](Operation *op) {
      return llvm::any_of(op->getResult(0).getUses(), [&](OpOperand &use) {
        return !inChain.contains(use.getOwner()) &&
               !readsRowAfter(use, shapeType, last);
      });
    });
    changed = ops.size() != before;
  }
  if (ops.empty())
    return;

  Block *block = ops.front()->getBlock();
  Operation *last = ops.back();
  ArrayRef<int64_t> shape = shapeType.getShape();
  int64_t numRows = shapeType.getNumElements() / shape.back();
  SmallVector<int64_t> strides = rowStrides(shapeType);

  // Each row's chain goes right before the first op after the chain that
  // reads one of the row's results.
  SmallVector<Operation *> rowPoint(numRows, nullptr);
  for (Operation *op : ops)
    for (OpOperand &use : op->getResult(0).getUses()) {
      if (!readsRowAfter(use, shapeType, last))
        continue;
      Operation *user = block->findAncestorOpInBlock(*use.getOwner());
      Operation *&point = rowPoint[extractedRow(use, shapeType)->first];
      if (!point || user->isBeforeInBlock(point))
        point = user;
    }

  IRRewriter rewriter(last->getContext());
  SmallVector<IRMapping> rows(numRows);
  for (int64_t row = 0; row < numRows; ++row) {
    // A row nothing reads is not computed.
    if (!rowPoint[row])
      continue;
    rewriter.setInsertionPoint(rowPoint[row]);
    SmallVector<int64_t> position = delinearize(row, strides);
    for (Operation *op : ops) {
      for (Value operand : op->getOperands())
        if (!rows[row].contains(operand))
          rows[row].map(operand, rewriter.createOrFold<vector::ExtractOp>(
                                     op->getLoc(), operand, position));
      Operation *rowOp = rewriter.clone(*op, rows[row]);
      auto type = cast<VectorType>(op->getResult(0).getType());
      rowOp->getResult(0).setType(
          VectorType::get({shape.back()}, type.getElementType()));
    }
  }

  // The extracts read the rows; the whole-tile ops are then unused.
  for (Operation *op : ops)
    for (OpOperand &use :
         llvm::make_early_inc_range(op->getResult(0).getUses())) {
      // The other uses are the chain's own ops, erased below.
      auto row = extractedRow(use, shapeType);
      if (!row)
        continue;
      auto extract = cast<vector::ExtractOp>(use.getOwner());
      Value rowValue = rows[row->first].lookup(op->getResult(0));
      rewriter.setInsertionPoint(extract);
      Value replacement =
          row->second
              ? rewriter.createOrFold<vector::ExtractOp>(
                    extract.getLoc(), rowValue, ArrayRef<int64_t>{*row->second})
              : rowValue;
      rewriter.replaceOp(extract, replacement);
    }
  // Row ops whose results no row extract reads (a chain's intermediate
  // that only another row reads is used) go, then the whole-tile ops.
  for (int64_t row = numRows - 1; row >= 0; --row)
    for (Operation *op : llvm::reverse(ops))
      if (Value rowValue = rows[row].lookupOrNull(op->getResult(0)))
        if (rowValue.use_empty())
          rewriter.eraseOp(rowValue.getDefiningOp());
  for (Operation *op : llvm::reverse(ops))
    rewriter.eraseOp(op);
}

struct KFUnrollElementwiseRowsPass
    : kf::impl::KFUnrollElementwiseRowsBase<KFUnrollElementwiseRowsPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks) {
      // The row-wise ops of each shape, in block order: one chain per shape
      // (rows of different shapes are different rows).
      llvm::MapVector<VectorType, SmallVector<Operation *>> chains;
      for (Operation &op : *block)
        if (VectorType type = rowwiseType(&op))
          chains[VectorType::get(type.getShape(),
                                 Float32Type::get(&getContext()))]
              .push_back(&op);
      for (auto &[type, ops] : chains)
        unrollRows(ops, type);
    }
  }
};
} // namespace
