//===- SwizzleBlockOrder.cpp - Grouped block order for L2 reuse ---------===//
//
// The GEMM kernel maps output tile rows to block id y and columns to x. In
// the grid's row-major order the blocks resident at once span a few tile
// rows and every column, so B streams from DRAM again for every few rows
// of A. Renumbering the blocks in groups of G tile rows (Triton's grouped
// ordering) keeps the resident blocks on a compact patch of both operands.
// Upstream has no such rewrite: gpu.map_forall_to_blocks maps foralls to
// block ids in grid order only.
//
//===----------------------------------------------------------------------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Matchers.h"

namespace kf {
#define GEN_PASS_DEF_KFSWIZZLEBLOCKORDER
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kBlockGroupAttr = "kf.block_group";

/// Replaces block ids x and y inside `launch` by the grouped order of
/// `group` tile rows; fails with a diagnostic when the grid is not static.
LogicalResult swizzle(gpu::LaunchOp launch, int64_t group) {
  APInt gridX, gridY;
  if (!matchPattern(launch.getGridSizeX(), m_ConstantInt(&gridX)) ||
      !matchPattern(launch.getGridSizeY(), m_ConstantInt(&gridY)))
    return launch.emitError()
           << "kf.block_group needs a grid whose x and y sizes are constants";
  int64_t gx = gridX.getSExtValue(), gy = gridY.getSExtValue();
  // One row of tiles, or groups as tall as the grid with one column: the
  // order cannot change.
  if (gy <= 1 || (gx <= 1 && group >= gy))
    return success();

  // The block id x and y ops of this launch (not of one nested in it).
  SmallVector<gpu::BlockIdOp> oldIds;
  launch.getBody().walk([&](gpu::BlockIdOp id) {
    if (id.getDimension() != gpu::Dimension::z &&
        id->getParentOfType<gpu::LaunchOp>() == launch)
      oldIds.push_back(id);
  });

  Block &body = launch.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&body);
  Location loc = launch.getLoc();
  auto constant = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  Value gridWidth = constant(gx), gridHeight = constant(gy);
  Value groupRows = constant(group), width = constant(group * gx);
  Value bx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  Value by = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  // pid = by * gx + bx; groups of group * gx blocks; the last group may be
  // shorter (rows = min(group, gy - first)).
  Value pid = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, by, gridWidth), bx);
  Value groupIndex = arith::DivUIOp::create(b, loc, pid, width);
  Value first = arith::MulIOp::create(b, loc, groupIndex, groupRows);
  Value rows = arith::MinUIOp::create(
      b, loc, arith::SubIOp::create(b, loc, gridHeight, first), groupRows);
  Value local = arith::RemUIOp::create(b, loc, pid, width);
  Value m = arith::AddIOp::create(b, loc, first,
                                  arith::RemUIOp::create(b, loc, local, rows));
  Value n = arith::DivUIOp::create(b, loc, local, rows);

  // Every other read of block ids x and y in the launch (the ops found
  // before the new ones were built, and the launch's block arguments)
  // takes the new order.
  for (gpu::BlockIdOp id : oldIds) {
    id.replaceAllUsesWith(id.getDimension() == gpu::Dimension::x ? n : m);
    id->erase();
  }
  launch.getBlockIds().x.replaceAllUsesWith(n);
  launch.getBlockIds().y.replaceAllUsesWith(m);
  return success();
}

struct KFSwizzleBlockOrderPass
    : kf::impl::KFSwizzleBlockOrderBase<KFSwizzleBlockOrderPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](gpu::LaunchOp launch) {
      if (launch->hasAttr(kBlockGroupAttr))
        launches.push_back(launch);
    });
    for (gpu::LaunchOp launch : launches) {
      auto group = dyn_cast<IntegerAttr>(launch->getAttr(kBlockGroupAttr));
      if (!group || group.getInt() < 1) {
        launch.emitError() << "kf.block_group must be an integer of at least 1";
        return signalPassFailure();
      }
      if (failed(swizzle(launch, group.getInt())))
        return signalPassFailure();
      launch->removeAttr(kBlockGroupAttr);
    }
  }
};
} // namespace
