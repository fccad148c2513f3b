//===- LinearizeBlockForalls.cpp - Block foralls on a 1-D grid ------------===//
//
// A schedule tiles an op's parallel loops over blocks; the grid has three
// dimensions, so the loops of a 5-D op beyond the third used to stay loops
// in every thread (a Conv3d's elementwise epilogue: 13,440 threads of about
// 1,900 elements each). Upstream's answer is the linear block mapping
// (`#gpu.block<linear_dim_k>`), but MLIR 22's map_forall_to_blocks sizes
// the grid from three of the loops and computes the linear index wrongly
// (a 8x16x14x8x1 forall got a 1x8x14 grid). This pass does the
// linearization itself, before map_forall_to_blocks: a forall whose
// mapping is all linear block dimensions becomes a one-dimensional forall
// over `#gpu.block<x>`, its indices recovered by affine.delinearize_index.
//
//===----------------------------------------------------------------------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/PatternMatch.h"

#include <numeric>

namespace kf {
#define GEN_PASS_DEF_KFLINEARIZEBLOCKFORALLS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
/// Whether every mapping of `forall` is a linear block dimension.
bool hasLinearBlockMapping(scf::ForallOp forall) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  if (!mapping || mapping->empty())
    return false;
  return llvm::all_of(*mapping, [](Attribute attr) {
    auto block = dyn_cast<gpu::GPUBlockMappingAttr>(attr);
    return block && block.isLinearMapping();
  });
}

/// The grid's x dimension holds at most this many blocks.
constexpr int64_t kMaxGridX = (int64_t{1} << 31) - 1;

LogicalResult linearize(RewriterBase &rewriter, scf::ForallOp forall) {
  if (forall.getNumResults() != 0)
    return forall.emitError()
           << "a forall of linear block dimensions is linearized after "
              "bufferization; this one still has tensor results";
  std::optional<SmallVector<int64_t>> lbs =
      getConstantIntValues(forall.getMixedLowerBound());
  std::optional<SmallVector<int64_t>> ubs =
      getConstantIntValues(forall.getMixedUpperBound());
  std::optional<SmallVector<int64_t>> steps =
      getConstantIntValues(forall.getMixedStep());
  if (!lbs || !ubs || !steps)
    return forall.emitError()
           << "a forall of linear block dimensions needs static bounds and "
              "steps (the grid is sized when the kernel is compiled)";
  // Loops ordered from the slowest-varying (the highest linear dimension)
  // to the fastest (linear_dim_0), as delinearize_index's basis is.
  unsigned rank = forall.getRank();
  SmallVector<unsigned> order(rank);
  std::iota(order.begin(), order.end(), 0);
  ArrayAttr mapping = *forall.getMapping();
  auto linearDim = [&](unsigned loop) {
    return cast<gpu::GPUBlockMappingAttr>(mapping[loop]).getRelativeIndex();
  };
  llvm::sort(order, [&](unsigned a, unsigned b) {
    return linearDim(a) > linearDim(b);
  });
  SmallVector<int64_t> basis;
  int64_t blocks = 1;
  for (unsigned loop : order) {
    int64_t step = (*steps)[loop];
    if (step <= 0)
      return forall.emitError() << "non-positive forall step " << step;
    int64_t trips = llvm::divideCeil(
        std::max<int64_t>((*ubs)[loop] - (*lbs)[loop], 0), step);
    basis.push_back(trips);
    blocks *= trips;
    if (blocks > kMaxGridX)
      return forall.emitError()
             << "the forall's tiles do not fit the grid's x dimension ("
             << kMaxGridX << " blocks)";
  }

  Location loc = forall.getLoc();
  MLIRContext *context = forall.getContext();
  rewriter.setInsertionPoint(forall);
  auto linear = scf::ForallOp::create(
      rewriter, loc, ArrayRef<OpFoldResult>{rewriter.getIndexAttr(blocks)},
      ValueRange{},
      rewriter.getArrayAttr(
          {gpu::GPUBlockMappingAttr::get(context, gpu::MappingId::DimX)}));
  Block *body = linear.getBody();
  rewriter.setInsertionPointToStart(body);
  auto indices = affine::AffineDelinearizeIndexOp::create(
      rewriter, loc, linear.getInductionVars().front(), basis,
      /*hasOuterBound=*/true);
  // Each loop's index: its lower bound plus its step times its trip.
  SmallVector<Value> replacements(rank);
  for (auto [position, loop] : llvm::enumerate(order)) {
    if ((*lbs)[loop] == 0 && (*steps)[loop] == 1) {
      replacements[loop] = indices.getResult(position);
      continue;
    }
    AffineExpr trip = rewriter.getAffineDimExpr(0);
    replacements[loop] = affine::AffineApplyOp::create(
        rewriter, loc,
        AffineMap::get(1, 0, trip * (*steps)[loop] + (*lbs)[loop]),
        ValueRange{indices.getResult(position)});
  }
  // The bufferized forall's terminator is empty; the new forall has its
  // own.
  Block *old = forall.getBody();
  rewriter.eraseOp(old->getTerminator());
  rewriter.inlineBlockBefore(old, body->getTerminator(), replacements);
  rewriter.eraseOp(forall);
  return success();
}

struct KFLinearizeBlockForallsPass
    : kf::impl::KFLinearizeBlockForallsBase<KFLinearizeBlockForallsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<scf::ForallOp> foralls;
    getOperation().walk([&](scf::ForallOp forall) {
      if (hasLinearBlockMapping(forall))
        foralls.push_back(forall);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForallOp forall : foralls)
      if (failed(linearize(rewriter, forall)))
        return signalPassFailure();
  }
};
} // namespace
