//===- FuseContractionEpilogues.cpp - Epilogues computed in place ---------===//
//
// A Level 2 problem is typically a GEMM followed by a chain of elementwise
// ops (bias, scale, activations, residual adds). Each became a kernel of its
// own that read the GEMM's result back from global memory and wrote a new
// tensor. This pass gives the schedule the form of a fusion group instead:
// the chain becomes one linalg.generic (upstream's elementwise fusion,
// applied along the chain only) that computes in place on the contraction's
// result (the result is its init, read through the init's block argument).
// Tiling that generic over blocks and fusing the contraction into each tile
// (transform.structured.fuse_into_containing_op, through the tile's
// destination) then makes one kernel whose threads apply the epilogue to
// their accumulators before the single store: upstream has no consumer
// fusion transform op outside its test extension (see
// ../shared/notes/fusion.md), and fusing a producer through a destination
// is what it does support.
//
//===----------------------------------------------------------------------===//

#include "kf/Analysis/ContractionAnalysis.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/BitVector.h"

namespace kf {
#define GEN_PASS_DEF_KFFUSECONTRACTIONEPILOGUES
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
/// Whether `op` may be part of an epilogue: elementwise (all loops parallel,
/// one output written through the identity map) and built of arith and math
/// ops alone, which the schedule vectorizes over each thread's tile.
bool isElementwiseStage(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 0 ||
      !op.hasPureTensorSemantics())
    return false;
  if (!op.getMatchingIndexingMap(op.getDpsInitOperand(0)).isIdentity())
    return false;
  for (Operation &inner : op.getBody()->without_terminator())
    if (!isa<arith::ArithDialect, math::MathDialect>(inner.getDialect()))
      return false;
  return true;
}

/// The one op that uses `value`, when it is an elementwise stage reading
/// `value` only as inputs through the identity map (the same element of
/// the same iteration space).
linalg::GenericOp elementwiseReader(Value value) {
  linalg::GenericOp reader;
  for (OpOperand &use : value.getUses()) {
    auto generic = dyn_cast<linalg::GenericOp>(use.getOwner());
    if (!generic || (reader && generic != reader) ||
        !generic.isDpsInput(&use) ||
        !generic.getMatchingIndexingMap(&use).isIdentity())
      return {};
    reader = generic;
  }
  if (!reader || !isElementwiseStage(reader))
    return {};
  return reader;
}

/// Whether `op` reads, directly or through elementwise stages, the result
/// of a contraction the GEMM kernel computes.
bool followsContraction(Operation *op, unsigned depth = 0) {
  // Chains are a handful of ops long; the bound only guards recursion.
  if (depth > 64)
    return false;
  for (Value operand : op->getOperands()) {
    Operation *producer = operand.getDefiningOp();
    if (auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(producer);
        linalgOp && succeeded(kf::analyzeContraction(linalgOp)))
      return true;
    if (auto generic = dyn_cast_or_null<linalg::GenericOp>(producer);
        generic && isElementwiseStage(generic) &&
        followsContraction(generic, depth + 1))
      return true;
  }
  return false;
}

/// The fusions that make an epilogue one op: an elementwise stage after a
/// contraction into the elementwise consumer that is its only reader (the
/// stage is then dead, not recomputed beside a kernel of its own; a stage
/// read by two consumers waits until one is fused into the other).
bool fusesIntoEpilogue(OpOperand *operand) {
  auto producer = operand->get().getDefiningOp<linalg::GenericOp>();
  auto consumer = dyn_cast<linalg::GenericOp>(operand->getOwner());
  if (!producer || !consumer || !isElementwiseStage(producer) ||
      !isElementwiseStage(consumer))
    return false;
  for (Operation *user : producer->getUsers())
    if (user != consumer)
      return false;
  return followsContraction(producer);
}

/// Rewrites `epilogue` to write its result into `accumulator`, which it
/// then reads through its init instead of as inputs. Fails (leaving the op
/// as it is) when its init is read or has another type.
FailureOr<linalg::GenericOp> computeInPlace(RewriterBase &rewriter,
                                            linalg::GenericOp epilogue,
                                            Value accumulator) {
  OpOperand *init = epilogue.getDpsInitOperand(0);
  if (init->get().getType() != accumulator.getType() ||
      !epilogue.getMatchingBlockArgument(init).use_empty())
    return failure();
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;
  llvm::BitVector erased(epilogue.getBody()->getNumArguments());
  for (OpOperand *input : epilogue.getDpsInputOperands()) {
    if (input->get() == accumulator) {
      erased.set(input->getOperandNumber());
      continue;
    }
    inputs.push_back(input->get());
    maps.push_back(epilogue.getMatchingIndexingMap(input));
  }
  maps.push_back(epilogue.getMatchingIndexingMap(init));
  erased.set(epilogue.getMatchingBlockArgument(init).getArgNumber());

  rewriter.setInsertionPoint(epilogue);
  auto inPlace = linalg::GenericOp::create(
      rewriter, epilogue.getLoc(), epilogue.getResultTypes(), inputs,
      ValueRange{accumulator}, maps, epilogue.getIteratorTypesArray());
  rewriter.inlineRegionBefore(epilogue.getRegion(), inPlace.getRegion(),
                              inPlace.getRegion().end());
  Block *body = inPlace.getBody();
  BlockArgument element = body->addArgument(
      getElementTypeOrSelf(accumulator.getType()), accumulator.getLoc());
  erased.resize(body->getNumArguments());
  for (unsigned index : erased.set_bits())
    rewriter.replaceAllUsesWith(body->getArgument(index), element);
  body->eraseArguments(erased);
  rewriter.replaceOp(epilogue, inPlace->getResults());
  return inPlace;
}

struct KFFuseContractionEpiloguesPass
    : kf::impl::KFFuseContractionEpiloguesBase<KFFuseContractionEpiloguesPass> {
  using Base::Base;

  /// An input of an elementwise stage that fusesIntoEpilogue, if any.
  OpOperand *nextFusion() {
    OpOperand *found = nullptr;
    getOperation().walk([&](linalg::GenericOp op) {
      for (OpOperand *input : op.getDpsInputOperands())
        if (fusesIntoEpilogue(input) &&
            linalg::areElementwiseOpsFusable(input)) {
          found = input;
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    return found;
  }

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> contractions;
    getOperation().walk([&](linalg::LinalgOp op) {
      // Only where the GEMM kernel computes the contraction: its register
      // tile is where the epilogue runs.
      if (succeeded(kf::analyzeContraction(op)))
        contractions.push_back(op);
    });
    // Upstream's elementwise fusion (fuseElementwiseOps), confined to the
    // ops after contractions: a residual add reading both the GEMM's result
    // and a stage computed from it becomes one op once the stage is fused
    // into it. (Its pattern set would also rewrite the function's other
    // ops.) Each fusion removes an op: this ends.
    IRRewriter rewriter(&getContext());
    while (OpOperand *operand = nextFusion()) {
      Operation *producer = operand->get().getDefiningOp();
      Operation *consumer = operand->getOwner();
      rewriter.setInsertionPoint(consumer);
      FailureOr<linalg::ElementwiseOpFusionResult> fused =
          linalg::fuseElementwiseOps(rewriter, operand);
      if (failed(fused)) {
        consumer->emitError("could not fuse an elementwise producer into "
                            "this epilogue");
        return signalPassFailure();
      }
      for (auto [original, replacement] : fused->replacements)
        rewriter.replaceAllUsesWith(original, replacement);
      rewriter.eraseOp(consumer);
      if (producer->use_empty())
        rewriter.eraseOp(producer);
    }
    for (linalg::LinalgOp contraction : contractions)
      if (linalg::GenericOp epilogue =
              elementwiseReader(contraction->getResult(0)))
        (void)computeInPlace(rewriter, epilogue, contraction->getResult(0));
  }
};
} // namespace
