//===- TransposeContractionOperands.cpp - K-outer operand copies ----------===//
//
// The pipelined GEMM kernel (ContractionSchedule.h) computes outer products:
// at each k, a thread reads TM elements of A's tile along M and TN elements
// of B's tile along N from shared memory. The operand tiles are staged in
// the layout the operands have in global memory (16-byte cp.async copies
// cannot transpose). An operand whose rows run along K ([N, K] for B, as
// torch.nn.Linear's weight and `A @ B.T` give it) is then read down a column
// of its tile: on the H200 the 16 threads of a half-warp hit one bank, and
// the kernel ran at 0.28 of eager (L1-17, docs/results.md) where the same
// product with B as [K, N] ran at 0.9. Transposing such an operand once, in a
// kernel of its own, costs one read and one write of it; what upstream MLIR
// offers instead (a transposing copy into shared memory) needs the copy to
// go through registers, which gives up the cp.async pipeline.
//
//===----------------------------------------------------------------------===//

#include "kf/Analysis/ContractionAnalysis.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace kf {
#define GEN_PASS_DEF_KFTRANSPOSECONTRACTIONOPERANDS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
/// `map` with its last two results swapped.
AffineMap swapLastTwoResults(AffineMap map) {
  SmallVector<AffineExpr> results(map.getResults());
  std::swap(results[results.size() - 1], results[results.size() - 2]);
  return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                        map.getContext());
}

/// Rewrites `op` so that each input in `indices` is read from a copy with
/// its last two dimensions swapped (a linalg.transpose before it). The op
/// becomes a linalg.generic (a named op's indexing maps are fixed or limited
/// to its own forms).
LogicalResult transposeInputs(RewriterBase &rewriter, linalg::LinalgOp op,
                              ArrayRef<unsigned> indices) {
  rewriter.setInsertionPoint(op);
  linalg::GenericOp generic;
  if (auto named = dyn_cast<linalg::GenericOp>(op.getOperation())) {
    generic = named;
  } else {
    FailureOr<linalg::GenericOp> generalized =
        linalg::generalizeNamedOp(rewriter, op);
    if (failed(generalized))
      return failure();
    generic = *generalized;
  }
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  for (unsigned index : indices) {
    OpOperand *operand = generic.getDpsInputOperand(index);
    auto type = cast<RankedTensorType>(operand->get().getType());
    unsigned rank = type.getRank();
    SmallVector<int64_t> permutation =
        llvm::to_vector(llvm::seq<int64_t>(0, rank));
    std::swap(permutation[rank - 1], permutation[rank - 2]);
    SmallVector<int64_t> shape(type.getShape());
    std::swap(shape[rank - 1], shape[rank - 2]);
    rewriter.setInsertionPoint(generic);
    Location loc = operand->get().getLoc();
    Value empty =
        tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
    auto transpose = linalg::TransposeOp::create(rewriter, loc, operand->get(),
                                                 empty, permutation);
    rewriter.modifyOpInPlace(generic, [&] {
      operand->set(transpose->getResult(0));
      maps[operand->getOperandNumber()] =
          swapLastTwoResults(maps[operand->getOperandNumber()]);
      generic.setIndexingMapsAttr(rewriter.getAffineMapArrayAttr(maps));
    });
  }
  return success();
}

struct KFTransposeContractionOperandsPass
    : kf::impl::KFTransposeContractionOperandsBase<
          KFTransposeContractionOperandsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, SmallVector<unsigned>>> work;
    getOperation().walk([&](linalg::LinalgOp op) {
      // Only what the GEMM kernel takes: elsewhere the copy buys nothing.
      FailureOr<kf::ContractionLoops> loops = kf::analyzeContraction(op);
      if (failed(loops))
        return;
      SmallVector<unsigned> indices;
      for (unsigned index : {0u, 1u})
        if ((index == 0 ? transposeA : transposeB) && loops->rowsAlongK(index))
          indices.push_back(index);
      if (!indices.empty())
        work.push_back({op, indices});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, indices] : work)
      if (failed(transposeInputs(rewriter, op, indices))) {
        op.emitError("could not rewrite the contraction as a linalg.generic "
                     "reading transposed operands");
        return signalPassFailure();
      }
  }
};
} // namespace
