//===- MergeAsyncCopyGroups.cpp - One cp.async group per pipeline stage ---===//
//
// The GEMM kernel's operand copies come out of two thread mappings, each
// followed by a barrier, and so as two cp.async groups per K step.
// nvgpu.pipeline_shared_memory_copies waits with `cp.async.wait_group
// depth-1`, counting one group per iteration: with two, every wait also
// waited for half of the next stage. This pass erases the barriers that
// order nothing but cp.async issues and merges the groups, so that the
// pipeliner sees one group per stage. Upstream cannot: gpu-eliminate-barriers
// counts an asynchronous copy's shared-memory write as ordered by a barrier,
// and no upstream pattern merges groups.
//
//===----------------------------------------------------------------------===//

#include "MemoryEffectsUtil.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kf {
#define GEN_PASS_DEF_KFMERGEASYNCCOPYGROUPS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
/// Whether `op` touches no memory another thread could see synchronously:
/// ops without memory effects (allocations allowed), cp.async issues (a
/// global read and an asynchronous shared write, which only a wait and a
/// later barrier make visible), and group commits and waits (thread-local).
bool isAsyncCopyTraffic(Operation *op) {
  if (isa<gpu::BarrierOp>(op))
    return false;
  if (isa<nvgpu::DeviceAsyncCopyOp, nvgpu::DeviceAsyncCreateGroupOp,
          nvgpu::DeviceAsyncWaitOp>(op))
    return true;
  return kf::onlyAllocatesOrFrees(op);
}

/// Whether the ops of `ops`, in order, are async-copy traffic up to a
/// barrier, and such a barrier exists; std::nullopt when the range ends
/// first (the caller decides how to go on).
template <typename Range> std::optional<bool> trafficUpToBarrier(Range &&ops) {
  for (Operation &op : ops) {
    if (isa<gpu::BarrierOp>(op))
      return true;
    if (!isAsyncCopyTraffic(&op))
      return false;
  }
  return std::nullopt;
}

/// The same from `from` towards the end of `block` (`forward`) or from just
/// before `from` towards its start.
std::optional<bool> trafficUpToBarrier(Block::iterator from, Block *block,
                                       bool forward) {
  if (forward)
    return trafficUpToBarrier(llvm::make_range(from, block->end()));
  return trafficUpToBarrier(
      llvm::reverse(llvm::make_range(block->begin(), from)));
}

/// Whether every path from `barrier` forwards (or backwards) reaches another
/// barrier through async-copy traffic only. A path leaving an scf.for body
/// goes on across the back edge (the body from its other end) and out of the
/// loop (the ops after, or before, the loop in its block).
bool neighbourhoodIsAsyncOnly(gpu::BarrierOp barrier, bool forward) {
  Block *block = barrier->getBlock();
  Block::iterator start =
      forward ? std::next(barrier->getIterator()) : barrier->getIterator();
  std::optional<bool> here = trafficUpToBarrier(start, block, forward);
  if (here)
    return *here;
  auto loop = dyn_cast<scf::ForOp>(block->getParentOp());
  if (!loop || block != loop.getBody())
    return false;
  // Across the back edge: the body from its other end.
  Block::iterator other = forward ? block->begin() : block->end();
  std::optional<bool> around = trafficUpToBarrier(other, block, forward);
  if (!around || !*around)
    return false;
  // Out of the loop (after its last or before its first iteration).
  Block *outer = loop->getBlock();
  Block::iterator outside =
      forward ? std::next(loop->getIterator()) : loop->getIterator();
  std::optional<bool> beyond = trafficUpToBarrier(outside, outer, forward);
  // The start and the end of a kernel order like barriers: no thread of the
  // block runs anything before the first op or after the last.
  if (!beyond && isa<gpu::LaunchOp>(outer->getParentOp()))
    return true;
  return beyond && *beyond;
}

/// Merges `first` into `second` where only copies and effect-free ops (and
/// waits for all groups on `first`) lie between them, and every other use of
/// `first` comes after `second`. Returns the merged group or nullptr.
nvgpu::DeviceAsyncCreateGroupOp merge(nvgpu::DeviceAsyncCreateGroupOp first,
                                      nvgpu::DeviceAsyncCreateGroupOp second,
                                      DominanceInfo &dominance) {
  SmallVector<nvgpu::DeviceAsyncWaitOp> waitsBetween;
  for (Operation *op = first->getNextNode(); op != second;
       op = op->getNextNode()) {
    if (auto wait = dyn_cast<nvgpu::DeviceAsyncWaitOp>(op)) {
      if (wait.getAsyncDependencies() != first.getAsyncToken() ||
          wait.getNumGroups())
        return nullptr;
      waitsBetween.push_back(wait);
      continue;
    }
    if (isa<nvgpu::DeviceAsyncCreateGroupOp>(op) || !isAsyncCopyTraffic(op))
      return nullptr;
  }
  for (Operation *user : first.getAsyncToken().getUsers())
    if (!llvm::is_contained(waitsBetween, user) &&
        !dominance.properlyDominates(second.getOperation(), user))
      return nullptr;
  // A wait between the groups is delayed to a wait for all groups after the
  // second: the ops it passes only issue copies, none reads what the first
  // group copies.
  if (!waitsBetween.empty()) {
    Operation *after = second->getNextNode();
    while (after && !isa<nvgpu::DeviceAsyncWaitOp>(after) &&
           isAsyncCopyTraffic(after))
      after = after->getNextNode();
    auto wait = dyn_cast_or_null<nvgpu::DeviceAsyncWaitOp>(after);
    if (!wait || wait.getAsyncDependencies() != second.getAsyncToken() ||
        wait.getNumGroups())
      return nullptr;
  }
  for (nvgpu::DeviceAsyncWaitOp wait : waitsBetween)
    wait->erase();
  SmallVector<Value> tokens(first.getInputTokens());
  llvm::append_range(tokens, second.getInputTokens());
  OpBuilder builder(second);
  auto merged = nvgpu::DeviceAsyncCreateGroupOp::create(
      builder, second.getLoc(), second.getAsyncToken().getType(), tokens);
  first.getAsyncToken().replaceAllUsesWith(merged.getAsyncToken());
  second.getAsyncToken().replaceAllUsesWith(merged.getAsyncToken());
  first->erase();
  second->erase();
  return merged;
}

struct KFMergeAsyncCopyGroupsPass
    : kf::impl::KFMergeAsyncCopyGroupsBase<KFMergeAsyncCopyGroupsPass> {
  using Base::Base;

  void runOnOperation() override {
    // Only code that issues asynchronous copies is touched.
    bool hasCopies = false;
    getOperation()->walk([&](nvgpu::DeviceAsyncCopyOp) {
      hasCopies = true;
      return WalkResult::interrupt();
    });
    if (!hasCopies)
      return;

    // One barrier at a time: erasing one changes its neighbours' stretches.
    bool erased = true;
    while (erased) {
      erased = false;
      getOperation()->walk([&](gpu::BarrierOp barrier) {
        if (!neighbourhoodIsAsyncOnly(barrier, /*forward=*/false) ||
            !neighbourhoodIsAsyncOnly(barrier, /*forward=*/true))
          return WalkResult::advance();
        barrier->erase();
        ++numBarriers;
        erased = true;
        return WalkResult::interrupt();
      });
    }

    DominanceInfo dominance(getOperation());
    SmallVector<Block *> blocks;
    getOperation()->walk([&](Block *block) { blocks.push_back(block); });
    for (Block *block : blocks) {
      nvgpu::DeviceAsyncCreateGroupOp previous;
      for (Operation &op : llvm::make_early_inc_range(*block)) {
        auto group = dyn_cast<nvgpu::DeviceAsyncCreateGroupOp>(op);
        if (!group)
          continue;
        if (previous)
          if (auto merged = merge(previous, group, dominance)) {
            ++numMerged;
            previous = merged;
            continue;
          }
        previous = group;
      }
    }
  }
};
} // namespace
