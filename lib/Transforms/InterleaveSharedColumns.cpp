//===- InterleaveSharedColumns.cpp - Conflict-free wide shared reads ------===//
//
// A GEMM thread tile of 8 contiguous columns reads B from shared memory as
// two 16-byte vectors per K step, and the 8 lanes of a quarter-warp pass
// then start 32 bytes apart: two lanes per bank group, a 2-way conflict on
// every read. CUTLASS avoids it by giving each thread interleaved 4-column
// pieces of the output; kf keeps the contiguous thread tile (what the
// linalg tiling makes) and interleaves the buffer instead: in each row, the
// 16-byte chunks are stored transposed, chunk j of thread group g at
// position j * G + g, so that the j-th chunks of consecutive groups are
// adjacent. Every access of the buffer (the cp.async copies that fill it,
// the loads that read it) takes the permuted column; accesses wider than a
// chunk become one per chunk. Upstream has no such rewrite:
// nvgpu-optimize-shared-memory XORs chunk indices with row bits, which
// spreads column reads of different rows, not chunks of one row.
//
//===----------------------------------------------------------------------===//

#include "kf/Analysis/KnownDivisor.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace kf {
#define GEN_PASS_DEF_KFINTERLEAVESHAREDCOLUMNS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kInterleaveAttr = "kf.interleave_columns";
constexpr int64_t kChunkBytes = 16;

/// How one access of the buffer is rewritten: its op, the position of the
/// column among its operands, and the elements it moves along the row.
struct Access {
  Operation *op;
  unsigned columnOperand;
  int64_t width;
};

struct Layout {
  int64_t chunk;    // elements per 16-byte chunk
  int64_t perGroup; // chunks per thread group (T)
  int64_t groups;   // thread groups per row (G)
};

/// The column `column + offset` of the interleaved buffer:
/// q = c / chunk; q' = (q mod T) * G + q / T; c' = q' * chunk + c mod chunk.
Value permutedColumn(OpBuilder &b, Location loc, Value column, int64_t offset,
                     const Layout &layout) {
  AffineExpr c = b.getAffineDimExpr(0) + offset;
  AffineExpr q = c.floorDiv(layout.chunk);
  AffineExpr result = (q % layout.perGroup) * (layout.groups * layout.chunk) +
                      q.floorDiv(layout.perGroup) * layout.chunk +
                      c % layout.chunk;
  return affine::makeComposedAffineApply(b, loc, AffineMap::get(1, 0, result),
                                         {OpFoldResult(column)})
      .getResult();
}

/// Checks that every use of `alloc` is an access the rewrite supports
/// (whole chunks, or pieces of one chunk that provably do not cross it).
FailureOr<SmallVector<Access>> collectAccesses(memref::AllocOp alloc,
                                               const Layout &layout) {
  SmallVector<Access> accesses;
  Value buffer = alloc.getResult();
  unsigned rank = alloc.getType().getRank();
  // An access of `width` elements at column `column`: within one chunk, or
  // whole chunks from a chunk boundary.
  auto fits = [&](Value column, int64_t width) {
    bool aligned = kf::isKnownMultipleOf(
        column, width <= layout.chunk ? width : layout.chunk);
    if (width <= layout.chunk)
      return layout.chunk % width == 0 && aligned;
    return width % layout.chunk == 0 && aligned;
  };
  auto vectorWidth = [](Type type) -> int64_t {
    auto vector = dyn_cast<VectorType>(type);
    if (!vector)
      return 1;
    return vector.getRank() == 1 && !vector.isScalable()
               ? vector.getNumElements()
               : -1;
  };
  for (OpOperand &use : buffer.getUses()) {
    Operation *user = use.getOwner();
    std::optional<Access> access;
    if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(user)) {
      if (use.getOperandNumber() == 0) { // the destination
        int64_t width = copy.getDstElements().getZExtValue();
        unsigned position =
            copy.getDstIndices().getBeginOperandIndex() + rank - 1;
        if (width <= layout.chunk && fits(user->getOperand(position), width))
          access = Access{user, position, width};
      }
    } else if (auto load = dyn_cast<vector::LoadOp>(user)) {
      int64_t width = vectorWidth(load.getType());
      unsigned position = load.getIndices().getBeginOperandIndex() + rank - 1;
      if (width > 0 && fits(user->getOperand(position), width))
        access = Access{user, position, width};
    } else if (auto store = dyn_cast<vector::StoreOp>(user)) {
      int64_t width = vectorWidth(store.getValueToStore().getType());
      unsigned position = store.getIndices().getBeginOperandIndex() + rank - 1;
      if (use.get() == store.getBase() && width > 0 &&
          fits(user->getOperand(position), width))
        access = Access{user, position, width};
    } else if (auto transfer = dyn_cast<VectorTransferOpInterface>(user)) {
      // Transfers whose vector's last dimension runs along the row (a
      // minor identity map), in bounds there, unmasked.
      VectorType type = transfer.getVectorType();
      unsigned position =
          transfer.getIndices().getBeginOperandIndex() + rank - 1;
      // (The buffer is a memref: it can only be the transfer's base.)
      bool isBase = use.get() == transfer.getBase();
      if (isBase && type.getRank() >= 1 && !type.isScalable() &&
          transfer.getPermutationMap().isMinorIdentity() &&
          !transfer.getMask() && transfer.isDimInBounds(type.getRank() - 1) &&
          fits(user->getOperand(position), type.getShape().back()))
        access = Access{user, position, type.getShape().back()};
    } else if (auto load = dyn_cast<memref::LoadOp>(user)) {
      access =
          Access{user, load.getIndices().getBeginOperandIndex() + rank - 1, 1};
    } else if (auto store = dyn_cast<memref::StoreOp>(user)) {
      if (use.get() == store.getMemRef())
        access = Access{
            user, store.getIndices().getBeginOperandIndex() + rank - 1, 1};
    }
    if (!access)
      return failure();
    accesses.push_back(*access);
  }
  return accesses;
}

/// Rewrites one access: the permuted column, and accesses wider than a
/// chunk as one access per chunk.
void rewriteAccess(const Access &access, const Layout &layout) {
  Operation *op = access.op;
  OpBuilder b(op);
  Location loc = op->getLoc();
  Value column = op->getOperand(access.columnOperand);
  if (access.width <= layout.chunk) {
    op->setOperand(access.columnOperand,
                   permutedColumn(b, loc, column, 0, layout));
    return;
  }
  // Whole chunks: one access per chunk, each at its permuted column.
  int64_t pieces = access.width / layout.chunk;
  auto pieceOperands = [&](int64_t piece) {
    SmallVector<Value> operands(op->getOperands());
    operands[access.columnOperand] =
        permutedColumn(b, loc, column, piece * layout.chunk, layout);
    return operands;
  };
  if (auto load = dyn_cast<vector::LoadOp>(op)) {
    auto pieceType =
        VectorType::get({layout.chunk}, load.getType().getElementType());
    Value result = arith::ConstantOp::create(b, loc, load.getType(),
                                             b.getZeroAttr(load.getType()));
    for (int64_t piece = 0; piece < pieces; ++piece) {
      SmallVector<Value> operands = pieceOperands(piece);
      Value part = vector::LoadOp::create(b, loc, pieceType, load.getBase(),
                                          ValueRange(operands).drop_front(1));
      result = vector::InsertStridedSliceOp::create(
          b, loc, part, result, ArrayRef<int64_t>{piece * layout.chunk},
          ArrayRef<int64_t>{1});
    }
    load.replaceAllUsesWith(result);
    load.erase();
    return;
  }
  if (auto store = dyn_cast<vector::StoreOp>(op)) {
    for (int64_t piece = 0; piece < pieces; ++piece) {
      SmallVector<Value> operands = pieceOperands(piece);
      Value part = vector::ExtractStridedSliceOp::create(
          b, loc, store.getValueToStore(),
          ArrayRef<int64_t>{piece * layout.chunk},
          ArrayRef<int64_t>{layout.chunk}, ArrayRef<int64_t>{1});
      vector::StoreOp::create(b, loc, part, store.getBase(),
                              ValueRange(operands).drop_front(2));
    }
    store.erase();
    return;
  }
  // Transfers: pieces of `chunk` along the vector's last dimension, the
  // other dimensions whole.
  auto pieceShape = [&](VectorType type) {
    SmallVector<int64_t> shape(type.getShape());
    shape.back() = layout.chunk;
    return VectorType::get(shape, type.getElementType());
  };
  auto pieceOffsets = [&](VectorType type, int64_t piece) {
    SmallVector<int64_t> offsets(type.getRank(), 0);
    offsets.back() = piece * layout.chunk;
    return offsets;
  };
  SmallVector<int64_t> unitStrides;
  if (auto read = dyn_cast<vector::TransferReadOp>(op)) {
    VectorType type = read.getVectorType();
    unitStrides.assign(type.getRank(), 1);
    Value result = arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type));
    for (int64_t piece = 0; piece < pieces; ++piece) {
      SmallVector<Value> indices(read.getIndices());
      indices.back() =
          permutedColumn(b, loc, column, piece * layout.chunk, layout);
      Value part = vector::TransferReadOp::create(
          b, loc, pieceShape(type), read.getBase(), indices, read.getPadding(),
          read.getPermutationMap(),
          SmallVector<bool>(read.getInBoundsValues()));
      result = vector::InsertStridedSliceOp::create(
          b, loc, part, result, pieceOffsets(type, piece), unitStrides);
    }
    read.replaceAllUsesWith(result);
    read.erase();
    return;
  }
  auto write = cast<vector::TransferWriteOp>(op);
  VectorType type = write.getVectorType();
  unitStrides.assign(type.getRank(), 1);
  SmallVector<int64_t> sizes(type.getShape());
  sizes.back() = layout.chunk;
  for (int64_t piece = 0; piece < pieces; ++piece) {
    SmallVector<Value> indices(write.getIndices());
    indices.back() =
        permutedColumn(b, loc, column, piece * layout.chunk, layout);
    Value part = vector::ExtractStridedSliceOp::create(
        b, loc, write.getVector(), pieceOffsets(type, piece), sizes,
        unitStrides);
    vector::TransferWriteOp::create(
        b, loc, part, write.getBase(), indices, write.getPermutationMap(),
        SmallVector<bool>(write.getInBoundsValues()));
  }
  write.erase();
}

struct KFInterleaveSharedColumnsPass
    : kf::impl::KFInterleaveSharedColumnsBase<KFInterleaveSharedColumnsPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    getOperation()->walk([&](memref::AllocOp alloc) {
      if (alloc->hasAttr(kInterleaveAttr))
        allocs.push_back(alloc);
    });
    for (memref::AllocOp alloc : allocs) {
      auto perGroup = alloc->getAttrOfType<IntegerAttr>(kInterleaveAttr);
      alloc->removeAttr(kInterleaveAttr);
      MemRefType type = alloc.getType();
      unsigned elementBytes = type.getElementTypeBitWidth() / 8;
      if (!perGroup || perGroup.getInt() < 1 || elementBytes == 0 ||
          kChunkBytes % elementBytes != 0 || !type.hasStaticShape() ||
          !type.getLayout().isIdentity() || type.getRank() == 0) {
        alloc.emitError() << kInterleaveAttr
                          << " needs a positive chunk count and a statically "
                             "shaped, identity-layout buffer of elements "
                             "that divide 16 bytes";
        return signalPassFailure();
      }
      Layout layout;
      layout.chunk = kChunkBytes / elementBytes;
      layout.perGroup = perGroup.getInt();
      int64_t row = type.getShape().back();
      // One chunk per group, or rows that do not hold whole groups: the
      // order cannot change or cannot be permuted.
      if (layout.perGroup == 1 || row % (layout.chunk * layout.perGroup)) {
        ++numSkipped;
        continue;
      }
      layout.groups = row / (layout.chunk * layout.perGroup);
      FailureOr<SmallVector<Access>> accesses = collectAccesses(alloc, layout);
      if (failed(accesses)) {
        // All or nothing: a buffer some of whose accesses kept the old
        // layout would be read wrong.
        ++numSkipped;
        continue;
      }
      for (const Access &access : *accesses)
        rewriteAccess(access, layout);
      ++numInterleaved;
    }
  }
};
} // namespace
