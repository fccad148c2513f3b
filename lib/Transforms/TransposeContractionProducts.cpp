//===- TransposeContractionProducts.cpp - C^T = B A^T for short M ---------===//
//
// A @ B.T with both operands' rows along K (x @ W.T, every nn.Linear) gives
// the GEMM kernel's B a K-outer copy (kf-transpose-contraction-operands):
// one read and one write of B, 8 N K bytes against 2 M N K multiply-adds,
// so the copy's share of the time grows as M shrinks. With M = 128 (Level
// 2 problems 55, 56, 59: N = K = 32768, a 4 GB weight) it is about half of
// the GEMM's. Computed transposed, C^T = B A^T, the weight is the kernel's
// A, which it reads as given (rows along K: the tile of each k step is
// copied as is, each thread reading its rows along K), A ([M, K]) is the
// kernel's B and takes the K-outer copy (M K elements), and the product
// [N, M] is copied back transposed (M N elements). Upstream has no rewrite
// that swaps a contraction's output dimensions.
//
//===----------------------------------------------------------------------===//

#include "kf/Analysis/ContractionAnalysis.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace kf {
#define GEN_PASS_DEF_KFTRANSPOSECONTRACTIONPRODUCTS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
/// Rewrites `op` (C[m, n] = sum_k A B, see qualifiesForTransposedProduct)
/// into T[n, m] = sum_k B A, a linalg.generic with the same body, and a
/// linalg.transpose of T that replaces C.
void transposeProduct(RewriterBase &rewriter, linalg::LinalgOp op,
                      const kf::ContractionLoops &loops) {
  MLIRContext *context = op.getContext();
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto fill = op.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  auto outType = cast<RankedTensorType>(op->getResult(0).getType());
  Type element = outType.getElementType();
  Value transposedEmpty =
      tensor::EmptyOp::create(rewriter, loc, {loops.n, loops.m}, element);
  Value transposedInit =
      linalg::FillOp::create(rewriter, fill.getLoc(), fill.getInputs(),
                             transposedEmpty)
          .getResult(0);
  // The new loops are (n, m, k): each old loop's new position.
  SmallVector<AffineExpr> newPosition(3);
  newPosition[loops.nLoop] = getAffineDimExpr(0, context);
  newPosition[loops.mLoop] = getAffineDimExpr(1, context);
  newPosition[loops.kLoop] = getAffineDimExpr(2, context);
  AffineMap renumber = AffineMap::get(3, 0, newPosition, context);
  OpOperand *a = op.getDpsInputOperand(0), *b = op.getDpsInputOperand(1);
  SmallVector<AffineMap> maps = {op.getMatchingIndexingMap(b).compose(renumber),
                                 op.getMatchingIndexingMap(a).compose(renumber),
                                 AffineMap::get(3, 0,
                                                {getAffineDimExpr(0, context),
                                                 getAffineDimExpr(1, context)},
                                                context)};
  SmallVector<utils::IteratorType> iterators = {utils::IteratorType::parallel,
                                                utils::IteratorType::parallel,
                                                utils::IteratorType::reduction};
  Block &body = op->getRegion(0).front();
  auto product = linalg::GenericOp::create(
      rewriter, loc, TypeRange{transposedInit.getType()},
      ValueRange{b->get(), a->get()}, ValueRange{transposedInit}, maps,
      iterators, [&](OpBuilder &builder, Location, ValueRange args) {
        // The same body, its operands in their old roles: the products
        // round exactly as before.
        IRMapping mapping;
        mapping.map(body.getArgument(0), args[1]);
        mapping.map(body.getArgument(1), args[0]);
        mapping.map(body.getArgument(2), args[2]);
        for (Operation &inner : body)
          builder.clone(inner, mapping);
      });
  Value empty =
      tensor::EmptyOp::create(rewriter, loc, outType.getShape(), element);
  auto transpose = linalg::TransposeOp::create(
      rewriter, loc, product->getResult(0), empty, ArrayRef<int64_t>{1, 0});
  rewriter.replaceOp(op, transpose->getResults());
  if (fill->use_empty())
    rewriter.eraseOp(fill);
}

struct KFTransposeContractionProductsPass
    : kf::impl::KFTransposeContractionProductsBase<
          KFTransposeContractionProductsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, kf::ContractionLoops>> work;
    getOperation().walk([&](linalg::LinalgOp op) {
      FailureOr<kf::ContractionLoops> loops = kf::analyzeContraction(op);
      if (succeeded(loops) && kf::qualifiesForTransposedProduct(*loops, maxM))
        work.push_back({op, *loops});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[op, loops] : work)
      transposeProduct(rewriter, op, loops);
  }
};
} // namespace
