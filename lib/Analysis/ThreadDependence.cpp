//===- ThreadDependence.cpp - How values vary across threads --------------===//

#include "kf/Analysis/ThreadDependence.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace kf;

namespace {

/// The dimension (0, 1, 2) of a thread-index op, or -1.
int threadIdDimension(Operation *op) {
  if (auto tid = dyn_cast<gpu::ThreadIdOp>(op))
    return static_cast<int>(tid.getDimension());
  if (isa<NVVM::ThreadIdXOp>(op))
    return 0;
  if (isa<NVVM::ThreadIdYOp>(op))
    return 1;
  if (isa<NVVM::ThreadIdZOp>(op))
    return 2;
  return -1;
}

bool isThreadIndex(Operation *op) {
  return threadIdDimension(op) >= 0 || isa<NVVM::LaneIdOp, gpu::LaneIdOp>(op);
}

/// Values that are the same in every thread of a block.
bool isUniformSource(Operation *op) {
  return isa<gpu::BlockIdOp, gpu::BlockDimOp, gpu::GridDimOp, NVVM::BlockIdXOp,
             NVVM::BlockIdYOp, NVVM::BlockIdZOp, NVVM::BlockDimXOp,
             NVVM::BlockDimYOp, NVVM::BlockDimZOp, NVVM::GridDimXOp,
             NVVM::GridDimYOp, NVVM::GridDimZOp, LLVM::AddressOfOp,
             LLVM::ZeroOp, LLVM::UndefOp, LLVM::PoisonOp>(op) ||
         op->hasTrait<OpTrait::ConstantLike>();
}

std::optional<int64_t> constantOf(Value value) {
  APInt constant;
  if (matchPattern(value, m_ConstantInt(&constant)))
    return constant.getSExtValue();
  return std::nullopt;
}

/// The values flowing into block argument `arg` from its predecessors, or
/// the loop-carried sources of a region argument; empty if unknown.
SmallVector<Value> incomingValues(BlockArgument arg) {
  SmallVector<Value> values;
  Block *block = arg.getOwner();
  Operation *parent = block->getParentOp();
  if (auto forOp = dyn_cast<scf::ForOp>(parent)) {
    if (arg == forOp.getInductionVar())
      return {};
    unsigned index = arg.getArgNumber() - 1;
    values.push_back(forOp.getInitArgs()[index]);
    values.push_back(forOp.getYieldedValues()[index]);
    return values;
  }
  if (block->isEntryBlock())
    return {};
  for (auto it = block->pred_begin(); it != block->pred_end(); ++it) {
    auto branch = dyn_cast<BranchOpInterface>((*it)->getTerminator());
    if (!branch)
      return {};
    for (unsigned succ = 0; succ < branch->getNumSuccessors(); ++succ) {
      if (branch->getSuccessor(succ) != block)
        continue;
      SuccessorOperands operands = branch.getSuccessorOperands(succ);
      Value incoming = operands[arg.getArgNumber()];
      if (!incoming)
        return {};
      values.push_back(incoming);
    }
  }
  return values;
}

} // namespace

std::optional<int64_t> ThreadDependence::stride(Value value, unsigned dim) {
  assert(dim < 3 && "thread dimensions are x, y and z");
  auto it = strides[dim].find(value);
  if (it != strides[dim].end())
    return it->second;
  if (stridesInProgress[dim].contains(value))
    return std::nullopt;
  stridesInProgress[dim].insert(value);
  std::optional<int64_t> result = computeStride(value, dim);
  stridesInProgress[dim].erase(value);
  strides[dim][value] = result;
  return result;
}

std::optional<int64_t> ThreadDependence::computeStride(Value value,
                                                       unsigned dim) {
  auto strideOf = [&](Value v) { return stride(v, dim); };
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto forOp = dyn_cast<scf::ForOp>(parent);
        forOp && arg == forOp.getInductionVar()) {
      // i = lb + k * step: the thread-to-thread difference is lb's, when the
      // step is the same in every thread.
      if (strideOf(forOp.getStep()) != 0)
        return std::nullopt;
      return strideOf(forOp.getLowerBound());
    }
    if (arg.getOwner()->isEntryBlock() && isa<FunctionOpInterface>(parent))
      return 0; // kernel arguments are uniform
    SmallVector<Value> incoming = incomingValues(arg);
    if (incoming.empty())
      return std::nullopt;
    // Values entering from outside the cycle through this argument decide
    // its stride; values carried around the cycle must keep it (their
    // update adds the same amount in every thread). Those are checked with
    // the stride assumed.
    SmallVector<Value> entering, carried;
    for (Value v : incoming)
      (dependsOn(v, value) ? carried : entering).push_back(v);
    if (entering.empty())
      return std::nullopt;
    std::optional<int64_t> assumed = strideOf(entering.front());
    if (!assumed)
      return std::nullopt;
    for (Value v : llvm::drop_begin(entering))
      if (strideOf(v) != assumed)
        return std::nullopt;
    strides[dim][value] = assumed;
    stridesInProgress[dim].erase(value);
    for (Value v : carried)
      if (strideOf(v) != assumed)
        return std::nullopt;
    return assumed;
  }

  Operation *op = value.getDefiningOp();
  // Along x: warps are formed along x first, so with at least 32 threads
  // along x (kf's schedules and most kernels) threadIdx.y and .z are the
  // same across a warp; narrower blocks ask for the y stride too. The lane
  // id is no affine function of one index.
  if (int tid = threadIdDimension(op); tid >= 0)
    return tid == static_cast<int>(dim) ? 1 : 0;
  if (isa<NVVM::LaneIdOp, gpu::LaneIdOp>(op))
    return std::nullopt;
  if (isUniformSource(op))
    return 0;

  auto operandStride = [&](unsigned i) { return strideOf(op->getOperand(i)); };
  if (isa<arith::AddIOp, LLVM::AddOp>(op)) {
    auto a = operandStride(0), b = operandStride(1);
    if (a && b)
      return *a + *b;
    return std::nullopt;
  }
  if (isa<arith::SubIOp, LLVM::SubOp>(op)) {
    auto a = operandStride(0), b = operandStride(1);
    if (a && b)
      return *a - *b;
    return std::nullopt;
  }
  if (isa<arith::MulIOp, LLVM::MulOp>(op)) {
    auto a = operandStride(0), b = operandStride(1);
    if (!a || !b)
      return std::nullopt;
    if (*a == 0 && *b == 0)
      return 0;
    if (auto c = constantOf(op->getOperand(1)))
      return *a * *c;
    if (auto c = constantOf(op->getOperand(0)))
      return *b * *c;
    return std::nullopt;
  }
  if (isa<arith::ShLIOp, LLVM::ShlOp>(op)) {
    auto a = operandStride(0);
    auto shift = constantOf(op->getOperand(1));
    if (a && shift && *shift >= 0 && *shift < 32)
      return *a << *shift;
    if (a == 0 && operandStride(1) == 0)
      return 0;
    return std::nullopt;
  }
  if (isa<arith::IndexCastOp, arith::IndexCastUIOp, arith::ExtSIOp,
          arith::ExtUIOp, arith::TruncIOp, LLVM::SExtOp, LLVM::ZExtOp,
          LLVM::TruncOp>(op))
    return operandStride(0);
  if (auto apply = dyn_cast<affine::AffineApplyOp>(op)) {
    AffineExpr expr = apply.getAffineMap().getResult(0);
    // A linear expression: the sum of each operand's stride times its
    // coefficient; anything else only if every operand is uniform.
    SmallVector<std::optional<int64_t>> operandStrides;
    bool allUniform = true;
    for (Value operand : apply.getOperands()) {
      operandStrides.push_back(strideOf(operand));
      allUniform &= operandStrides.back() == 0;
    }
    if (allUniform)
      return 0;
    if (!expr.isPureAffine())
      return std::nullopt;
    unsigned numDims = apply.getAffineMap().getNumDims();
    int64_t total = 0;
    for (auto [index, stride] : llvm::enumerate(operandStrides)) {
      if (stride == 0)
        continue;
      if (!stride)
        return std::nullopt;
      AffineExpr position =
          index < numDims
              ? getAffineDimExpr(index, op->getContext())
              : getAffineSymbolExpr(index - numDims, op->getContext());
      // Coefficient: the expression's change when the operand grows by one.
      AffineExpr shifted = expr.replace(position, position + 1);
      AffineExpr delta = simplifyAffineExpr(
          shifted - expr, numDims, apply.getAffineMap().getNumSymbols());
      auto constant = dyn_cast<AffineConstantExpr>(delta);
      if (!constant)
        return std::nullopt;
      total += constant.getValue() * *stride;
    }
    return total;
  }
  if (auto select = dyn_cast<arith::SelectOp>(op)) {
    auto c = strideOf(select.getCondition());
    auto t = strideOf(select.getTrueValue()),
         f = strideOf(select.getFalseValue());
    if (c == 0 && t && t == f)
      return t;
    return std::nullopt;
  }
  // Anything else is uniform when all its inputs are and it reads no
  // thread-dependent memory.
  if (op->getNumRegions() == 0 &&
      llvm::all_of(op->getOperands(),
                   [&](Value operand) { return strideOf(operand) == 0; }))
    return 0;
  return std::nullopt;
}

bool ThreadDependence::isThreadDependent(Value value) {
  auto it = dependent.find(value);
  if (it != dependent.end())
    return it->second;
  if (inProgress.contains(value))
    return false; // a cycle adds nothing new
  inProgress.insert(value);
  bool result = computeThreadDependent(value);
  inProgress.erase(value);
  dependent[value] = result;
  return result;
}

bool ThreadDependence::computeThreadDependent(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value)) {
    Operation *parent = arg.getOwner()->getParentOp();
    if (auto forOp = dyn_cast<scf::ForOp>(parent);
        forOp && arg == forOp.getInductionVar())
      return isThreadDependent(forOp.getLowerBound()) ||
             isThreadDependent(forOp.getUpperBound()) ||
             isThreadDependent(forOp.getStep());
    if (arg.getOwner()->isEntryBlock() && isa<FunctionOpInterface>(parent))
      return false;
    SmallVector<Value> incoming = incomingValues(arg);
    if (incoming.empty())
      return true;
    return llvm::any_of(incoming,
                        [&](Value v) { return isThreadDependent(v); });
  }
  Operation *op = value.getDefiningOp();
  if (isThreadIndex(op))
    return true;
  if (isUniformSource(op))
    return false;
  return llvm::any_of(op->getOperands(),
                      [&](Value v) { return isThreadDependent(v); });
}

bool ThreadDependence::dependsOn(Value value, Value root) {
  SmallVector<Value> worklist = {value};
  DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    if (current == root)
      return true;
    if (!seen.insert(current).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(current)) {
      for (Value incoming : incomingValues(arg))
        worklist.push_back(incoming);
      continue;
    }
    Operation *op = current.getDefiningOp();
    for (Value operand : op->getOperands())
      worklist.push_back(operand);
  }
  return false;
}
