//===- PipelineAsyncCopies.cpp - cp.async pipelines with one barrier ------===//
//
// Upstream's transform.nvgpu.pipeline_shared_memory_copies orders the
// pipelined K loop as "compute stage i, then issue the copies of stage
// i + depth", and with a ring buffer of `depth` slots those copies overwrite
// the slot just read: the loop needs a second barrier after the compute, and
// the copies of a K step are issued only once its compute is done. CUTLASS's
// multistage main loop keeps one slot free instead: it waits for stage i,
// passes one barrier, issues the copies of stage i + S - 1 into the slot read
// in the previous iteration (every thread is past it, by that barrier), and
// computes stage i. This pass builds that loop with scf's pipeliner and a
// schedule of its own (upstream's hook is fixed to compute-then-copy). The
// same S - 1 stages are in flight during the compute, with one barrier per
// K step instead of two.
//
//===----------------------------------------------------------------------===//

#include "MemoryEffectsUtil.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kf {
#define GEN_PASS_DEF_KFPIPELINEASYNCCOPIES
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kPipelineAttr = "kf.pipeline_copies";

bool isWorkgroupMemory(MemRefType type) {
  // Address space 3 or #gpu.address_space<workgroup>.
  return nvgpu::NVGPUDialect::hasSharedMemoryAddressSpace(type);
}

/// The loop's shape as this pass needs it: the copies' slice (stage 0), the
/// one wait and the barrier after it, the barrier that ends the body, and
/// the ring buffer's slot count.
struct LoopShape {
  llvm::SmallPtrSet<Operation *, 32> stage0;
  nvgpu::DeviceAsyncWaitOp wait;
  gpu::BarrierOp waitBarrier;
  gpu::BarrierOp trailingBarrier;
  int64_t slots = 0;
};

/// The ring buffers' slot count: every copy writes a workgroup memref.alloc
/// whose leading dimension is the same static size (memref.multibuffer's
/// slots). 0 when the copies do not write such buffers.
int64_t ringSlots(ArrayRef<nvgpu::DeviceAsyncCopyOp> copies) {
  int64_t slots = 0;
  for (nvgpu::DeviceAsyncCopyOp copy : copies) {
    auto alloc = copy.getDst().getDefiningOp<memref::AllocOp>();
    if (!alloc || !isWorkgroupMemory(alloc.getType()) ||
        alloc.getType().getRank() < 2 || alloc.getType().isDynamicDim(0))
      return 0;
    int64_t size = alloc.getType().getDimSize(0);
    if (slots && size != slots)
      return 0;
    slots = size;
  }
  return slots;
}

/// Whether `slot` is the multibuffer slot of the loop's iteration:
/// ((iv - lb) floordiv step) mod slots, with constant bounds.
bool isIterationSlot(Value slot, scf::ForOp loop, int64_t slots) {
  auto apply = slot.getDefiningOp<affine::AffineApplyOp>();
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!apply || !lb || !step || *step <= 0 ||
      apply.getMapOperands().size() != 1 ||
      apply.getMapOperands()[0] != loop.getInductionVar() ||
      apply.getAffineMap().getNumResults() != 1)
    return false;
  MLIRContext *ctx = loop.getContext();
  AffineExpr iv = apply.getAffineMap().getNumDims() == 1
                      ? getAffineDimExpr(0, ctx)
                      : getAffineSymbolExpr(0, ctx);
  AffineExpr expected = ((iv - *lb).floorDiv(*step)) % slots;
  AffineMap map = apply.getAffineMap();
  return simplifyAffineExpr(map.getResult(0), map.getNumDims(),
                            map.getNumSymbols()) ==
         simplifyAffineExpr(expected, map.getNumDims(), map.getNumSymbols());
}

/// The first index of a read of workgroup buffer `buffer` by `op`, or null
/// when `op` is not such a read.
Value readSlot(Operation *op, Value buffer) {
  if (auto load = dyn_cast<vector::LoadOp>(op))
    return load.getBase() == buffer ? load.getIndices().front() : Value();
  if (auto read = dyn_cast<vector::TransferReadOp>(op))
    return read.getBase() == buffer ? read.getIndices().front() : Value();
  if (auto load = dyn_cast<memref::LoadOp>(op))
    return load.getMemRef() == buffer ? load.getIndices().front() : Value();
  return Value();
}

/// Whether `op` itself touches no memory (its nested ops are looked at on
/// their own).
bool hasNoOwnEffects(Operation *op) {
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    return instances.empty();
  }
  return op->hasTrait<OpTrait::HasRecursiveMemoryEffects>();
}

/// Whether dropping the barrier that ends the body and issuing the copies
/// right after the wait's barrier is safe with S - 1 stages in flight: the
/// copies write the slot of their iteration in ring buffers of S slots that
/// nothing else in the loop writes, every read of them in the loop is of the
/// same iteration's slot, and nothing else in the loop touches memory. Then the
/// copies of stage i + S - 1, issued in iteration i, write slot (i - 1) mod S,
/// last read in iteration i - 1, which every thread has left when it passes the
/// wait's barrier; and the trailing barrier ordered nothing else.
bool copiesCanGoFirst(scf::ForOp loop, LoopShape &shape,
                      ArrayRef<nvgpu::DeviceAsyncCopyOp> copies) {
  if (!shape.trailingBarrier)
    return false;
  Value slot;
  llvm::SmallPtrSet<Value, 4> buffers;
  for (nvgpu::DeviceAsyncCopyOp copy : copies) {
    Value index = copy.getDstIndices().front();
    if (slot && index != slot)
      return false;
    slot = index;
    buffers.insert(copy.getDst());
  }
  if (!isIterationSlot(slot, loop, shape.slots))
    return false;
  // Every use of the buffers inside the loop: the copies, or reads of the
  // iteration's slot.
  for (Value buffer : buffers)
    for (Operation *user : buffer.getUsers()) {
      if (!loop->isProperAncestor(user))
        continue;
      if (isa<nvgpu::DeviceAsyncCopyOp>(user) &&
          cast<nvgpu::DeviceAsyncCopyOp>(user).getDst() == buffer)
        continue;
      if (readSlot(user, buffer) != slot)
        return false;
    }
  // Everything else in the body: effect-free ops and reads of the buffers
  // only (no write the trailing barrier could be ordering).
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (shape.stage0.contains(&op) || &op == shape.wait.getOperation() ||
        &op == shape.waitBarrier.getOperation() ||
        &op == shape.trailingBarrier.getOperation())
      continue;
    WalkResult walk = op.walk([&](Operation *inner) {
      if (hasNoOwnEffects(inner) || llvm::any_of(buffers, [&](Value buffer) {
            return static_cast<bool>(readSlot(inner, buffer));
          }))
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return false;
  }
  return true;
}

/// Finds the loop's shape, or nullopt when it is not a loop this pass
/// pipelines: copies and their groups at the top level of the body, one
/// wait on a group of this iteration, then a barrier.
std::optional<LoopShape>
analyzeLoop(scf::ForOp loop,
            SmallVectorImpl<nvgpu::DeviceAsyncCopyOp> &copies) {
  LoopShape shape;
  Block *body = loop.getBody();
  SmallVector<Operation *> roots;
  for (Operation &op : *body) {
    if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op)) {
      copies.push_back(copy);
      roots.push_back(&op);
    } else if (isa<nvgpu::DeviceAsyncCreateGroupOp>(op)) {
      roots.push_back(&op);
    } else if (auto wait = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op)) {
      if (shape.wait || wait.getNumGroups())
        return std::nullopt;
      shape.wait = wait;
    }
  }
  // Copies nested deeper than the body are not this pass's to move.
  bool nested = false;
  for (Operation &op : *body)
    if (op.getNumRegions())
      op.walk([&](nvgpu::DeviceAsyncCopyOp) { nested = true; });
  if (copies.empty() || !shape.wait || nested)
    return std::nullopt;
  auto group = shape.wait.getAsyncDependencies()
                   .getDefiningOp<nvgpu::DeviceAsyncCreateGroupOp>();
  if (!group || group->getBlock() != body)
    return std::nullopt;
  for (Operation *op = shape.wait->getNextNode(); op; op = op->getNextNode())
    if (auto barrier = dyn_cast<gpu::BarrierOp>(op)) {
      shape.waitBarrier = barrier;
      break;
    }
  if (!shape.waitBarrier)
    return std::nullopt;

  BackwardSliceOptions options;
  options.filter = [&](Operation *op) { return op->getBlock() == body; };
  options.inclusive = true;
  SetVector<Operation *> slice;
  for (Operation *root : roots)
    if (failed(getBackwardSlice(root, &slice, options)))
      return std::nullopt;
  shape.stage0.insert(slice.begin(), slice.end());
  // The copies' slice must not hold the wait or its barrier (it becomes
  // stage 0, issued stages ahead of them).
  if (shape.stage0.contains(shape.wait) ||
      shape.stage0.contains(shape.waitBarrier))
    return std::nullopt;

  Operation *last = body->getTerminator()->getPrevNode();
  while (last && isMemoryEffectFree(last) && !shape.stage0.contains(last))
    last = last->getPrevNode();
  if (auto barrier = dyn_cast_or_null<gpu::BarrierOp>(last))
    if (barrier != shape.waitBarrier)
      shape.trailingBarrier = barrier;
  shape.slots = ringSlots(copies);
  if (shape.slots < 2)
    return std::nullopt;
  return shape;
}

struct KFPipelineAsyncCopiesPass
    : kf::impl::KFPipelineAsyncCopiesBase<KFPipelineAsyncCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (loop->hasAttr(kPipelineAttr))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      loop->removeAttr(kPipelineAttr);
      if (failed(pipeline(loop)))
        return signalPassFailure();
    }
  }

  LogicalResult pipeline(scf::ForOp loop) {
    SmallVector<nvgpu::DeviceAsyncCopyOp> copies;
    std::optional<LoopShape> shape = analyzeLoop(loop, copies);
    if (!shape)
      return loop.emitError("kf-pipeline-async-copies: not a K loop of "
                            "asynchronous copies into a ring buffer, a wait "
                            "and a barrier");
    bool copiesFirst = copiesCanGoFirst(loop, *shape, copies);
    // Copies first keep one slot free; the fallback (upstream's order)
    // fills every slot and keeps the trailing barrier.
    unsigned depth = copiesFirst ? shape->slots - 1 : shape->slots;
    std::optional<APInt> trips = loop.getStaticTripCount();
    if (!trips || trips->getSExtValue() <= static_cast<int64_t>(depth))
      return loop.emitError("kf-pipeline-async-copies: the loop needs a "
                            "static trip count above ")
             << depth << ", the stages in flight";

    IRRewriter rewriter(loop.getContext());
    if (copiesFirst) {
      rewriter.eraseOp(shape->trailingBarrier);
      shape->trailingBarrier = nullptr;
      ++numCopiesFirst;
    } else {
      ++numFallback;
    }
    Block *body = loop.getBody();
    scf::PipeliningOption options;
    options.getScheduleFn =
        [&](scf::ForOp forOp,
            std::vector<std::pair<Operation *, unsigned>> &schedule) {
          if (forOp != loop)
            return;
          auto later = [&](Operation &op) {
            return !shape->stage0.contains(&op) && !isa<scf::YieldOp>(op);
          };
          auto copyOps = [&] {
            for (Operation &op : *body)
              if (shape->stage0.contains(&op))
                schedule.emplace_back(&op, 0);
          };
          if (!copiesFirst) {
            for (Operation &op : *body)
              if (later(op))
                schedule.emplace_back(&op, depth);
            copyOps();
            return;
          }
          // The compute stage up to the wait's barrier, the copies, the rest
          // of the compute stage.
          Block::iterator split = std::next(shape->waitBarrier->getIterator());
          for (Operation &op : llvm::make_range(body->begin(), split))
            if (later(op))
              schedule.emplace_back(&op, depth);
          copyOps();
          for (Operation &op : llvm::make_range(split, body->end()))
            if (later(op))
              schedule.emplace_back(&op, depth);
        };
    // The wait leaves depth - 1 groups in flight in the kernel; in the
    // peeled epilogue, one fewer per iteration (no copies are issued).
    options.annotateFn = [&](Operation *op,
                             scf::PipeliningOption::PipelinerPart part,
                             unsigned iteration) {
      auto wait = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op);
      if (!wait || wait.getNumGroups())
        return;
      int32_t inFlight = depth - 1;
      if (part == scf::PipeliningOption::PipelinerPart::Epilogue)
        inFlight -= iteration;
      wait.setNumGroups(inFlight);
    };
    options.peelEpilogue = true;

    // The prologue writes the first slots: every thread must be done with
    // whatever read them before the loop (an earlier tile's epilogue).
    Operation *before = loop->getPrevNode();
    while (before &&
           (isMemoryEffectFree(before) || kf::onlyAllocatesOrFrees(before)))
      before = before->getPrevNode();
    rewriter.setInsertionPoint(loop);
    if (copiesFirst && before && !isa<gpu::BarrierOp>(before))
      gpu::BarrierOp::create(rewriter, loop.getLoc());

    bool modified = false;
    FailureOr<scf::ForOp> pipelined =
        scf::pipelineForLoop(rewriter, loop, options, &modified);
    if (failed(pipelined))
      return loop.emitError("kf-pipeline-async-copies: the pipeliner failed");
    return success();
  }
};
} // namespace
