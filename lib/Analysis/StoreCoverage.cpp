//===- StoreCoverage.cpp - What a kernel's stores can cover --------------===//

#include "StoreCoverage.h"

#include "kf/Analysis/KernelAnalysis.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace kf;

std::optional<ByteInterval>
kf::detail::firstGap(SmallVector<ByteInterval> intervals, int64_t size) {
  llvm::sort(intervals, [](const ByteInterval &a, const ByteInterval &b) {
    return a.first < b.first;
  });
  int64_t next = 0;
  for (const ByteInterval &interval : intervals) {
    if (next >= size)
      break;
    if (interval.first > next)
      return ByteInterval{next, std::min(interval.first, size) - 1};
    next = std::max(next, interval.last + 1);
  }
  if (next < size)
    return ByteInterval{next, size - 1};
  return std::nullopt;
}

bool kf::detail::overwrittenBeforeRead(Operation *op,
                                       const BufferAccess &access) {
  if (access.copySource || !access.stored)
    return false;
  auto otherOperands = [](Operation *store, Value stored) {
    SmallVector<Value> operands;
    for (Value operand : store->getOperands())
      if (operand != stored)
        operands.push_back(operand);
    return operands;
  };
  SmallVector<Value> address = otherOperands(op, access.stored);
  for (Operation *next = op->getNextNode(); next; next = next->getNextNode()) {
    if (isMemoryEffectFree(next))
      continue;
    auto effects = dyn_cast<MemoryEffectOpInterface>(next);
    if (!effects || effects.hasEffect<MemoryEffects::Read>() ||
        next->getNumRegions())
      return false;
    SmallVector<BufferAccess> accesses = accessesOf(next);
    if (accesses.size() == 1 && accesses.front().isStore &&
        next->getName() == op->getName() && accesses.front().stored &&
        accesses.front().stored.getType() == access.stored.getType() &&
        otherOperands(next, accesses.front().stored) == address)
      return true;
  }
  return false;
}

std::optional<int64_t>
kf::detail::storesAcrossTheGrid(const KernelAnalysis &analysis,
                                const BufferAccess &store) {
  Operation *kernel = analysis.getKernel();
  if (!analysis.blockSize || !analysis.gridSize)
    return std::nullopt;
  if (isa<memref::CopyOp, LLVM::MemcpyOp, LLVM::MemsetOp, LLVM::MemmoveOp>(
          store.op))
    return std::nullopt;
  int64_t threads = 1;
  for (int i = 0; i < 3; ++i)
    threads *= (*analysis.blockSize)[i] * (*analysis.gridSize)[i];
  int64_t perThread = 1;
  if (auto vector = dyn_cast<VectorType>(store.stored.getType()))
    perThread = vector.getNumElements();
  // Enclosing loops (structured or natural CFG loops) with constant trip
  // counts; while loops and unknown trip counts leave it undecided.
  for (Operation *parent = store.op->getParentOp(); parent && parent != kernel;
       parent = parent->getParentOp())
    if (isa<scf::WhileOp, scf::ParallelOp>(parent))
      return std::nullopt;
  for (const LoopFacts *loop : analysis.enclosingLoops(store.op)) {
    if (!loop->tripCount)
      return std::nullopt;
    perThread *= *loop->tripCount;
  }
  return threads * perThread;
}
