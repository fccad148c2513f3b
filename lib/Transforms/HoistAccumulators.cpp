//===- HoistAccumulators.cpp - Accumulators in registers across loops -----===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

namespace kf {
#define GEN_PASS_DEF_KFHOISTACCUMULATORS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {

/// The function argument or allocation a memref is a view of.
Value bufferOf(Value memref) {
  while (auto view = memref.getDefiningOp<ViewLikeOpInterface>())
    memref = view.getViewSource();
  return memref;
}

/// Whether `op` (or anything nested in it) may touch `buffer`, other than
/// through `read` and `write`.
bool touchesBuffer(Operation *op, Value buffer, Operation *read,
                   Operation *write) {
  WalkResult result = op->walk([&](Operation *nested) {
    if (nested == read || nested == write || isa<gpu::BarrierOp>(nested))
      return WalkResult::advance();
    // An op may declare effects of its own and also have nested ones
    // (linalg ops): its own are checked here, the nested ones as the walk
    // reaches them.
    auto effects = dyn_cast<MemoryEffectOpInterface>(nested);
    if (!effects) {
      if (nested->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        return WalkResult::advance();
      return WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      Value value = effect.getValue();
      // An effect on no particular value may touch anything.
      if (!value || bufferOf(value) == buffer)
        return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return result.wasInterrupted();
}

bool runsAtLeastOnce(scf::ForOp loop) {
  if (loop.getUnsignedCmp())
    return false;
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  return lower && upper && *lower < *upper;
}

/// The transfer_write in `loop`'s body that stores to the location
/// `read` loads from, if any.
vector::TransferWriteOp matchingWrite(scf::ForOp loop,
                                      vector::TransferReadOp read) {
  for (auto write : loop.getBody()->getOps<vector::TransferWriteOp>())
    if (write.getBase() == read.getBase() &&
        write.getIndices() == read.getIndices() &&
        write.getVectorType() == read.getVectorType() &&
        write.getPermutationMap() == read.getPermutationMap() &&
        write.getInBounds() == read.getInBounds() && !write.getMask() &&
        read->isBeforeInBlock(write))
      return write;
  return nullptr;
}

/// The memref.store in `loop`'s body that stores to the location `load`
/// reads, if any.
memref::StoreOp matchingStore(scf::ForOp loop, memref::LoadOp load) {
  for (auto store : loop.getBody()->getOps<memref::StoreOp>())
    if (store.getMemRef() == load.getMemRef() &&
        store.getIndices() == load.getIndices() && load->isBeforeInBlock(store))
      return store;
  return nullptr;
}

/// Moves `read` before `loop` and `write` after it, the value carried
/// through the loop in registers; `stored` is the write's value operand.
void carryThroughLoop(RewriterBase &rewriter, scf::ForOp loop, Operation *read,
                      Operation *write, OpOperand &stored) {
  // The read moves before the loop first: the new loop takes its result as
  // an initial value. replaceWithAdditionalYields cannot fail for scf.for.
  rewriter.moveOpBefore(read, loop);
  FailureOr<LoopLikeOpInterface> hoisted =
      cast<LoopLikeOpInterface>(loop.getOperation())
          .replaceWithAdditionalYields(
              rewriter, read->getResult(0),
              /*replaceInitOperandUsesInLoop=*/true,
              [&](OpBuilder &, Location, ArrayRef<BlockArgument>) {
                return SmallVector<Value>{stored.get()};
              });
  assert(succeeded(hoisted) && "scf.for always takes more yields");
  auto newLoop = cast<scf::ForOp>(hoisted->getOperation());
  rewriter.moveOpAfter(write, newLoop);
  rewriter.modifyOpInPlace(write,
                           [&] { stored.assign(newLoop.getResults().back()); });
}

/// Whether every operand of `op` (the location it reads) is defined
/// outside `loop`, so that the same location is read on every iteration.
bool operandsOutside(scf::ForOp loop, Operation *op) {
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return loop.isDefinedOutsideOfLoop(operand);
  });
}

/// Whether `memref` lives in workgroup memory, which other threads of the
/// block may read between barriers.
bool inWorkgroupMemory(Value memref) {
  auto type = cast<MemRefType>(memref.getType());
  return gpu::GPUDialect::hasWorkgroupMemoryAddressSpace(type);
}

/// Hoists one scalar load/store pair out of `loop` (a naive mapping's
/// reduction loops after convert-linalg-to-loops: each thread accumulates
/// into its own output element in global memory); returns whether it did.
/// Loops with barriers keep their scalar accesses: a scalar location in a
/// staged kernel may be another thread's to read between them.
bool hoistScalarPair(RewriterBase &rewriter, scf::ForOp loop) {
  bool hasBarrier =
      loop->walk([](gpu::BarrierOp) { return WalkResult::interrupt(); })
          .wasInterrupted();
  if (hasBarrier)
    return false;
  for (auto load : loop.getBody()->getOps<memref::LoadOp>()) {
    if (inWorkgroupMemory(load.getMemRef()) || !operandsOutside(loop, load))
      continue;
    memref::StoreOp store = matchingStore(loop, load);
    if (!store || touchesBuffer(loop, bufferOf(load.getMemRef()), load, store))
      continue;
    carryThroughLoop(rewriter, loop, load, store, store.getValueMutable());
    return true;
  }
  return false;
}

/// Hoists one pair out of `loop`; returns whether it did.
bool hoistOnePair(RewriterBase &rewriter, scf::ForOp loop) {
  if (!runsAtLeastOnce(loop))
    return false;
  if (hoistScalarPair(rewriter, loop))
    return true;
  for (auto read : loop.getBody()->getOps<vector::TransferReadOp>()) {
    // Lanes out of bounds read the padding on every iteration; carried in
    // registers they would hold the last iteration's values instead.
    bool inBounds = llvm::all_of(read.getInBounds(), [](Attribute attr) {
      return cast<BoolAttr>(attr).getValue();
    });
    if (read.getMask() || !inBounds ||
        !isa<MemRefType>(read.getBase().getType()) ||
        !operandsOutside(loop, read))
      continue;
    vector::TransferWriteOp write = matchingWrite(loop, read);
    if (!write || touchesBuffer(loop, bufferOf(read.getBase()), read, write))
      continue;
    carryThroughLoop(rewriter, loop, read, write,
                     write.getValueToStoreMutable());
    return true;
  }
  return false;
}

struct KFHoistAccumulatorsPass
    : kf::impl::KFHoistAccumulatorsBase<KFHoistAccumulatorsPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    getOperation().walk([&](gpu::LaunchOp launch) {
      if (!launch->hasAttr(kf::kHoistAccumulatorsAttrName))
        return;
      // Loops are replaced as pairs leave them: collect afresh each round.
      // Post-order visits inner loops first, so a pair leaves a nest one
      // loop per round.
      bool changed = true;
      while (changed) {
        changed = false;
        SmallVector<scf::ForOp> loops;
        launch.walk([&](scf::ForOp loop) { loops.push_back(loop); });
        // Views and index computations of the location are often computed
        // inside the loop; they must be outside for the pair to be.
        for (scf::ForOp loop : loops)
          moveLoopInvariantCode(cast<LoopLikeOpInterface>(loop.getOperation()));
        for (scf::ForOp loop : loops)
          if (hoistOnePair(rewriter, loop)) {
            ++numHoisted;
            changed = true;
            break;
          }
      }
    });
  }
};

} // namespace
