//===- FuseElementwise.cpp - Recompute elementwise producers in consumers -===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace kf {
#define GEN_PASS_DEF_KFFUSEELEMENTWISE
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

bool kf::isNamedPooling(Operation *op) {
  // Upstream's elementwise fusion takes a pooling only as a generic.
  return isa<linalg::LinalgOp>(op) && !isa<linalg::GenericOp>(op) &&
         op->getName().getStringRef().starts_with("linalg.pooling_");
}

namespace {

/// Whether `value` is the result of an all-parallel linalg.generic: a
/// producer elementwise fusion can take (a pooling's padding gather).
bool isElementwiseProducer(Value value) {
  auto producer = value.getDefiningOp<linalg::GenericOp>();
  return producer && producer.getNumReductionLoops() == 0;
}

/// Whether `op` reduces into a single output element: it has reduction
/// loops and its parallel loops (if any) have one iteration in all.
bool reducesToOneValue(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() == 0)
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (auto [range, type] : llvm::zip(ranges, op.getIteratorTypesArray()))
    if (type == utils::IteratorType::parallel && range != 1)
      return false;
  return true;
}

struct KFFuseElementwisePass
    : kf::impl::KFFuseElementwiseBase<KFFuseElementwisePass> {
  using Base::Base;
  void runOnOperation() override {
    // A named pooling op reading an elementwise producer (the padded copy
    // of its input) becomes a generic, into which the producer then fuses:
    // the window reads the input through the padding's bounds checks, and
    // the padded copy is never written.
    SmallVector<linalg::LinalgOp> poolings;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (kf::isNamedPooling(op) &&
          llvm::any_of(op.getDpsInputOperands(), [](OpOperand *input) {
            return isElementwiseProducer(input->get());
          }))
        poolings.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::LinalgOp op : poolings) {
      rewriter.setInsertionPoint(op);
      if (failed(linalg::generalizeNamedOp(rewriter, op))) {
        op.emitError() << "could not generalize the pooling op";
        return signalPassFailure();
      }
    }
    RewritePatternSet patterns(&getContext());
    // Legality is upstream's (areElementwiseOpsFusable, checked by the
    // pattern); the policy here is "always, whatever the use count", except
    // into a contraction: its body would no longer be a multiply-add, and
    // the GEMM kernel would refuse it (an im2col gather fused into its
    // GEMM is a direct convolution again); and except into a reduction to
    // one value: one thread computes it, and the producer's work (a loss's
    // per-row terms, each with a log and a gathered logit) would run in
    // that thread too.
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
          return !consumer || (!linalg::isaContractionOpInterface(consumer) &&
                               !reducesToOneValue(consumer));
        });
    linalg::GenericOp::getCanonicalizationPatterns(patterns, &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
