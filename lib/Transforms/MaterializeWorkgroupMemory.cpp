//===- MaterializeWorkgroupMemory.cpp - Shared memory that lowers ---------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kf {
#define GEN_PASS_DEF_KFMATERIALIZEWORKGROUPMEMORY
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {

/// Workgroup memory as the GPU dialect writes it, or as NVVM's address
/// space 3 (what upstream transforms such as bufferize_to_allocation
/// {memory_space = 3} produce for the GEMM kernel's operand tiles).
bool isWorkgroup(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref)
    return false;
  if (gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(memref))
    return true;
  auto space = dyn_cast_or_null<IntegerAttr>(memref.getMemorySpace());
  return space && space.getInt() == 3;
}

/// Replaces `oldValue` by `newValue` whose type may differ in its layout:
/// subviews of it are rebuilt with inferred result types (recursively);
/// other users accept any strided memref and take the new value as is.
void replaceWithRelayout(Value oldValue, Value newValue) {
  for (OpOperand &use : llvm::make_early_inc_range(oldValue.getUses())) {
    auto subview = dyn_cast<memref::SubViewOp>(use.getOwner());
    if (!subview || use.getOperandNumber() != 0) {
      use.set(newValue);
      continue;
    }
    OpBuilder builder(subview);
    auto sourceType = cast<MemRefType>(newValue.getType());
    MemRefType resultType;
    if (subview.getType().getRank() == sourceType.getRank())
      resultType = memref::SubViewOp::inferResultType(
          sourceType, subview.getMixedOffsets(), subview.getMixedSizes(),
          subview.getMixedStrides());
    else
      resultType = memref::SubViewOp::inferRankReducedResultType(
          subview.getType().getShape(), sourceType, subview.getMixedOffsets(),
          subview.getMixedSizes(), subview.getMixedStrides());
    auto rebuilt = memref::SubViewOp::create(
        builder, subview.getLoc(), resultType, newValue,
        subview.getMixedOffsets(), subview.getMixedSizes(),
        subview.getMixedStrides());
    replaceWithRelayout(subview.getResult(), rebuilt.getResult());
    subview.erase();
  }
}

LogicalResult materializeBuffer(memref::AllocOp alloc, gpu::LaunchOp launch,
                                int64_t padding) {
  MemRefType type = alloc.getType();
  if (!type.hasStaticShape() || !type.getLayout().isIdentity())
    return alloc.emitError() << "workgroup buffer " << type
                             << " must have a static shape and identity layout";
  SmallVector<int64_t> paddedShape(type.getShape());
  if (padding > 0 && !paddedShape.empty())
    paddedShape.back() += padding;
  auto paddedType =
      MemRefType::get(paddedShape, type.getElementType(),
                      MemRefLayoutAttrInterface(), type.getMemorySpace());
  BlockArgument attribution =
      launch.addWorkgroupAttribution(paddedType, alloc.getLoc());
  Value replacement = attribution;
  if (paddedType != type) {
    OpBuilder builder(&launch.getBody().front(),
                      launch.getBody().front().begin());
    SmallVector<OpFoldResult> offsets(type.getRank(), builder.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(type.getRank(), builder.getIndexAttr(1));
    SmallVector<OpFoldResult> sizes;
    for (int64_t size : type.getShape())
      sizes.push_back(builder.getIndexAttr(size));
    replacement = memref::SubViewOp::create(
        builder, alloc.getLoc(), attribution, offsets, sizes, strides);
  }
  for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
    if (isa<memref::DeallocOp>(user))
      user->erase();
  replaceWithRelayout(alloc.getResult(), replacement);
  alloc.erase();
  return success();
}

/// A loop from `first` to `count` by `step` over the linearised elements of
/// the copy's source, loading each and storing it into the target.
void emitCopyLoop(OpBuilder &builder, Location loc, memref::CopyOp copy,
                  ArrayRef<Value> sizes, Value first, Value count, Value step) {
  Value source = copy.getSource(), target = copy.getTarget();
  int64_t rank = cast<MemRefType>(source.getType()).getRank();
  auto loop = scf::ForOp::create(builder, loc, first, count, step);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPointToStart(loop.getBody());
  Value remaining = loop.getInductionVar();
  SmallVector<Value> indices(rank);
  for (int64_t dim = rank - 1; dim >= 0; --dim) {
    if (dim == 0) {
      indices[dim] = remaining;
      break;
    }
    indices[dim] = arith::RemUIOp::create(builder, loc, remaining, sizes[dim]);
    remaining = arith::DivUIOp::create(builder, loc, remaining, sizes[dim]);
  }
  Value value = memref::LoadOp::create(builder, loc, source, indices);
  memref::StoreOp::create(builder, loc, value, target, indices);
}

/// Whether `value` is the same in every thread of a block of `launch`:
/// defined above the launch, a block id or a grid or block size, the
/// induction variable of a loop with uniform bounds, or the result of a
/// side-effect-free op on uniform values. Thread ids, loads and anything
/// else are taken to differ between threads.
bool isUniform(Value value, gpu::LaunchOp launch,
               DenseMap<Value, bool> &known) {
  if (!launch.getBody().isAncestor(value.getParentRegion()))
    return true;
  auto it = known.find(value);
  if (it != known.end())
    return it->second;
  known[value] = false; // cycles through loop-carried values are divergent
  bool uniform = false;
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    Operation *owner = argument.getOwner()->getParentOp();
    if (owner == launch.getOperation()) {
      auto threadIds = launch.getThreadIds();
      uniform = argument != threadIds.x && argument != threadIds.y &&
                argument != threadIds.z;
    } else if (auto loop = dyn_cast<scf::ForOp>(owner)) {
      uniform = argument == loop.getInductionVar() &&
                isUniform(loop.getLowerBound(), launch, known) &&
                isUniform(loop.getUpperBound(), launch, known) &&
                isUniform(loop.getStep(), launch, known);
    }
  } else {
    Operation *op = value.getDefiningOp();
    uniform = op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
              !isa<gpu::ThreadIdOp, gpu::LaneIdOp, gpu::SubgroupIdOp>(op) &&
              llvm::all_of(op->getOperands(), [&](Value operand) {
                return isUniform(operand, launch, known);
              });
  }
  known[value] = uniform;
  return uniform;
}

/// Whether every thread of the block reaches `op` together: each op that
/// encloses it inside the launch is a loop with uniform bounds or a branch
/// on a uniform condition. A copy in code that only some threads reach
/// (`if (threadIdx.x == 0)`) must not become a block-wide loop with
/// barriers.
bool isReachedByWholeBlock(Operation *op, gpu::LaunchOp launch) {
  DenseMap<Value, bool> known;
  for (Operation *parent = op->getParentOp(); parent != launch.getOperation();
       parent = parent->getParentOp()) {
    if (auto loop = dyn_cast<scf::ForOp>(parent)) {
      if (!isUniform(loop.getLowerBound(), launch, known) ||
          !isUniform(loop.getUpperBound(), launch, known) ||
          !isUniform(loop.getStep(), launch, known))
        return false;
      continue;
    }
    if (auto branch = dyn_cast<scf::IfOp>(parent)) {
      if (!isUniform(branch.getCondition(), launch, known))
        return false;
      continue;
    }
    return false;
  }
  return true;
}

/// Block-wide copy: thread t of the block copies elements t, t + T, ...
/// between two barriers. Where only some threads reach the copy
/// (`wholeBlock` false), each of them copies every element itself, with no
/// barrier: a barrier in divergent code is undefined behaviour.
void distributeCopy(memref::CopyOp copy, bool wholeBlock) {
  OpBuilder builder(copy);
  Location loc = copy.getLoc();
  Value source = copy.getSource();
  auto type = cast<MemRefType>(source.getType());
  SmallVector<Value> sizes;
  Value count = arith::ConstantIndexOp::create(builder, loc, 1);
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    Value size = memref::DimOp::create(builder, loc, source, dim);
    sizes.push_back(size);
    count = arith::MulIOp::create(builder, loc, count, size);
  }
  if (!wholeBlock) {
    Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
    Value one = arith::ConstantIndexOp::create(builder, loc, 1);
    emitCopyLoop(builder, loc, copy, sizes, zero, count, one);
    copy.erase();
    return;
  }
  Value tx = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  Value ty = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::y);
  Value tz = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::z);
  Value bx = gpu::BlockDimOp::create(builder, loc, gpu::Dimension::x);
  Value by = gpu::BlockDimOp::create(builder, loc, gpu::Dimension::y);
  Value bz = gpu::BlockDimOp::create(builder, loc, gpu::Dimension::z);
  Value yz = arith::AddIOp::create(builder, loc, ty,
                                   arith::MulIOp::create(builder, loc, tz, by));
  Value linear = arith::AddIOp::create(
      builder, loc, tx, arith::MulIOp::create(builder, loc, yz, bx));
  Value threads = arith::MulIOp::create(
      builder, loc, bx, arith::MulIOp::create(builder, loc, by, bz));
  // Nothing may read the target before every thread wrote its part, and
  // nothing may overwrite it while an earlier phase still reads it.
  gpu::BarrierOp::create(builder, loc);
  emitCopyLoop(builder, loc, copy, sizes, linear, count, threads);
  gpu::BarrierOp::create(builder, loc);
  copy.erase();
}

struct KFMaterializeWorkgroupMemoryPass
    : kf::impl::KFMaterializeWorkgroupMemoryBase<
          KFMaterializeWorkgroupMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    SmallVector<memref::AllocOp> allocs;
    function.walk([&](memref::AllocOp alloc) {
      if (isWorkgroup(alloc.getType()))
        allocs.push_back(alloc);
    });
    for (memref::AllocOp alloc : allocs) {
      gpu::LaunchOp launch;
      bool ok = true;
      for (Operation *user : alloc->getUsers()) {
        if (isa<memref::DeallocOp>(user))
          continue;
        auto userLaunch = user->getParentOfType<gpu::LaunchOp>();
        if (!userLaunch || (launch && userLaunch != launch))
          ok = false;
        launch = userLaunch;
      }
      if (!ok || !launch) {
        alloc.emitError() << "workgroup (shared) memory must be used by "
                             "exactly one gpu.launch; map the computation "
                             "that uses it to the GPU";
        return signalPassFailure();
      }
      int64_t padding = 0;
      if (auto attr = alloc->getAttrOfType<IntegerAttr>("kf.workgroup_padding"))
        padding = attr.getInt();
      if (failed(materializeBuffer(alloc, launch, padding)))
        return signalPassFailure();
      ++numBuffers;
    }
    SmallVector<memref::CopyOp> copies;
    function.walk([&](memref::CopyOp copy) {
      if ((isWorkgroup(copy.getSource().getType()) ||
           isWorkgroup(copy.getTarget().getType())) &&
          copy->getParentOfType<gpu::LaunchOp>())
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      auto launch = copy->getParentOfType<gpu::LaunchOp>();
      distributeCopy(copy, isReachedByWholeBlock(copy, launch));
      ++numCopies;
    }
  }
};

} // namespace
