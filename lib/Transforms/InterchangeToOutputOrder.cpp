//===- InterchangeToOutputOrder.cpp - Parallel loops in memory order ------===//
//
// A schedule maps an op's innermost parallel loop to the threads' x
// dimension and the next one to y: that is coalesced where the loop order
// follows the operands' memory order, as the suite's generic ops do. Some named
// ops do not: linalg.depthwise_conv_2d_nchw_chw iterates (n, oh, ow, c, kh, kw)
// over NCHW tensors, so consecutive lanes took consecutive channels, 1 MB apart
// (L1-82 ran at 0.03 of eager). This pass generalizes such an op and
// interchanges its loops into the output's order, reductions last
// (upstream's linalg::generalizeNamedOp and linalg::interchangeGenericOp;
// transform.structured.interchange takes a fixed permutation, while this
// one follows from each op's indexing maps, and a schedule's structure
// genes are passes that kf::restructure also runs on a copy of the
// reference).
//
//===----------------------------------------------------------------------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/PatternMatch.h"

namespace kf {
#define GEN_PASS_DEF_KFINTERCHANGETOOUTPUTORDER
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

/// The loops the last result of `map` (the operand's contiguous dimension)
/// varies with: one for a plain `d`, all of a sum's (`ow + kw`: the caller
/// looks for the parallel ones among them).
static SmallVector<unsigned> innermostDims(AffineMap map) {
  SmallVector<unsigned> dims;
  if (map.getNumResults() == 0)
    return dims;
  map.getResults().back().walk([&](AffineExpr expr) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr))
      dims.push_back(dim.getPosition());
  });
  return dims;
}

std::optional<SmallVector<unsigned>>
kf::outputOrderInterchange(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 || isa<linalg::FillOp>(op))
    return std::nullopt;
  AffineMap output = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!output.isProjectedPermutation() || output.getNumResults() == 0)
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  // Every parallel loop indexes the output (else a permutation of the
  // output's dimensions does not order them all).
  unsigned numParallel = llvm::count(iterators, utils::IteratorType::parallel);
  if (output.getNumResults() != numParallel)
    return std::nullopt;
  unsigned innermost = output.getDimPosition(output.getNumResults() - 1);
  // Every input as large as the output that varies fastest with a
  // parallel loop varies with the output's innermost one: where they
  // disagree (a transpose), no order coalesces both, and the written order
  // stands. Broadcast operands (a per-channel bias) are small and cached.
  for (OpOperand *input : op.getDpsInputOperands()) {
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumResults() < output.getNumResults())
      continue;
    for (unsigned dim : innermostDims(map))
      if (iterators[dim] == utils::IteratorType::parallel && dim != innermost)
        return std::nullopt;
  }
  SmallVector<unsigned> order;
  for (unsigned result = 0; result < output.getNumResults(); ++result)
    order.push_back(output.getDimPosition(result));
  for (auto [dim, iterator] : llvm::enumerate(iterators))
    if (iterator != utils::IteratorType::parallel)
      order.push_back(dim);
  if (llvm::equal(order, llvm::seq<unsigned>(0, order.size())))
    return std::nullopt;
  return order;
}

namespace {
struct KFInterchangeToOutputOrderPass
    : kf::impl::KFInterchangeToOutputOrderBase<KFInterchangeToOutputOrderPass> {
  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation().walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : ops) {
      std::optional<SmallVector<unsigned>> order =
          kf::outputOrderInterchange(op);
      if (!order)
        continue;
      rewriter.setInsertionPoint(op);
      auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
      if (!generic) {
        FailureOr<linalg::GenericOp> generalized =
            linalg::generalizeNamedOp(rewriter, op);
        if (failed(generalized))
          continue;
        generic = *generalized;
      }
      // Fails only for an invalid permutation, which `order` is not.
      (void)linalg::interchangeGenericOp(rewriter, generic, *order);
    }
  }
};
} // namespace
