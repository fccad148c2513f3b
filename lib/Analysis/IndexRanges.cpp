//===- IndexRanges.cpp - The values an index can take in a kernel ---------===//
//
// Upstream's IntegerRangeAnalysis is a whole-function dataflow analysis with
// no notion of a program point's guards and no ranges for the llvm
// dialect's arithmetic (only arith, index, gpu and nvvm ops implement
// InferIntRangeInterface), which is what lowered and imported kernels are
// written in. So ranges are computed on demand here, by expression, with
// the guards of the op asked about applied first; ops that implement
// InferIntRangeInterface are asked through it.
//
//===----------------------------------------------------------------------===//

#include "kf/Analysis/IndexRanges.h"

#include "kf/Analysis/MemoryAccesses.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/InferIntRangeInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Support/KnownBits.h"

using namespace mlir;
using namespace kf;
using llvm::APInt;
using llvm::ConstantRange;

namespace {

/// Every range is held as 64-bit signed values: an i32 thread id and the
/// i64 index computed from it compare directly.
constexpr unsigned kWidth = 64;
constexpr unsigned kMaxDepth = 48;

ConstantRange full() { return ConstantRange::getFull(kWidth); }

ConstantRange exactly(int64_t value) {
  return ConstantRange(APInt(kWidth, value, /*isSigned=*/true));
}

/// [first, last], both included.
ConstantRange between(int64_t first, int64_t last) {
  if (first > last)
    return ConstantRange::getEmpty(kWidth);
  return ConstantRange::getNonEmpty(APInt(kWidth, first, true),
                                    APInt(kWidth, last, true) + 1);
}

bool isNonNegative(const ConstantRange &range) {
  return !range.isFullSet() && !range.isSignWrappedSet() &&
         range.isAllNonNegative();
}

std::optional<unsigned> integerWidth(Type type) {
  if (type.isIndex())
    return 64;
  if (auto integer = dyn_cast<IntegerType>(type))
    return integer.getWidth();
  return std::nullopt;
}

/// A range computed in 64 bits, read as a `width`-bit value: unchanged
/// when every value fits, else full (the value may have wrapped).
ConstantRange fitTo(const ConstantRange &range, unsigned width) {
  if (width >= kWidth || range.isEmptySet())
    return range;
  if (range.isFullSet() || range.isSignWrappedSet())
    return full();
  int64_t lowest = -(int64_t(1) << (width - 1));
  int64_t highest = (int64_t(1) << (width - 1)) - 1;
  if (range.getSignedMin().getSExtValue() < lowest ||
      range.getSignedMax().getSExtValue() > highest)
    return full();
  return range;
}

ConstantIntRanges toIntRanges(const ConstantRange &range, unsigned width) {
  ConstantRange fitted = fitTo(range, width);
  if (fitted.isEmptySet() || fitted.isFullSet() || fitted.isSignWrappedSet())
    return ConstantIntRanges::maxRange(width);
  return ConstantIntRanges::fromSigned(fitted.getSignedMin().trunc(width),
                                       fitted.getSignedMax().trunc(width));
}

ConstantRange fromIntRanges(const ConstantIntRanges &ranges) {
  return between(ranges.smin().getSExtValue(), ranges.smax().getSExtValue());
}

/// LLVM's predicate of an arith.cmpi or llvm.icmp. Both dialects number
/// their predicates as LLVM orders them, eq to uge.
std::optional<llvm::CmpInst::Predicate> predicateOf(Operation *op) {
  using P = llvm::CmpInst::Predicate;
  static constexpr P byNumber[] = {
      P::ICMP_EQ,  P::ICMP_NE,  P::ICMP_SLT, P::ICMP_SLE, P::ICMP_SGT,
      P::ICMP_SGE, P::ICMP_ULT, P::ICMP_ULE, P::ICMP_UGT, P::ICMP_UGE};
  static_assert(uint64_t(arith::CmpIPredicate::eq) == 0 &&
                    uint64_t(arith::CmpIPredicate::slt) == 2 &&
                    uint64_t(arith::CmpIPredicate::ult) == 6 &&
                    uint64_t(arith::CmpIPredicate::uge) == 9,
                "arith.cmpi predicates are numbered as LLVM orders them");
  static_assert(uint64_t(LLVM::ICmpPredicate::eq) == 0 &&
                    uint64_t(LLVM::ICmpPredicate::slt) == 2 &&
                    uint64_t(LLVM::ICmpPredicate::ult) == 6 &&
                    uint64_t(LLVM::ICmpPredicate::uge) == 9,
                "llvm.icmp predicates are numbered as LLVM orders them");
  std::optional<uint64_t> number;
  if (auto cmp = dyn_cast<arith::CmpIOp>(op))
    number = uint64_t(cmp.getPredicate());
  else if (auto cmp = dyn_cast<LLVM::ICmpOp>(op))
    number = uint64_t(cmp.getPredicate());
  if (!number || *number >= std::size(byNumber))
    return std::nullopt;
  return byNumber[*number];
}

bool isConstantTrue(Value value) {
  if (auto constant = value.getDefiningOp<arith::ConstantOp>())
    if (auto attr = dyn_cast<IntegerAttr>(constant.getValue()))
      return attr.getValue().isAllOnes();
  if (auto constant = value.getDefiningOp<LLVM::ConstantOp>())
    if (auto attr = dyn_cast<IntegerAttr>(constant.getValue()))
      return attr.getValue().isAllOnes();
  return false;
}

} // namespace

IndexRanges::IndexRanges(Operation *kernel,
                         std::optional<std::array<int64_t, 3>> blockSize,
                         std::optional<std::array<int64_t, 3>> gridSize)
    : kernel(kernel), blockSize(blockSize), gridSize(gridSize),
      dominance(kernel) {}

ConstantRange IndexRanges::compute(Value value, Overrides &known,
                                   unsigned depth) {
  if (auto it = known.find(value); it != known.end())
    return it->second;
  std::optional<unsigned> width = integerWidth(value.getType());
  if (!width || depth > kMaxDepth)
    return full();
  if (auto arg = dyn_cast<BlockArgument>(value))
    return computeBlockArgument(arg, known, depth);

  Operation *def = value.getDefiningOp();
  auto operand = [&](unsigned index) {
    return compute(def->getOperand(index), known, depth + 1);
  };
  auto size = [&](const std::optional<std::array<int64_t, 3>> &sizes,
                  unsigned dim) -> std::optional<int64_t> {
    if (!sizes || dim > 2)
      return std::nullopt;
    return (*sizes)[dim];
  };
  // Thread and block ids bounded by the launch (when it is known).
  auto idBelow = [](std::optional<int64_t> count) {
    return count ? between(0, *count - 1) : std::optional<ConstantRange>();
  };
  // Block and grid sizes as at most the known ones: nvvm.maxntid bounds a
  // launch's block without fixing it.
  auto count = [](std::optional<int64_t> count) {
    return count ? between(1, *count) : std::optional<ConstantRange>();
  };
  std::optional<ConstantRange> launch =
      llvm::TypeSwitch<Operation *, std::optional<ConstantRange>>(def)
          .Case([&](NVVM::ThreadIdXOp) { return idBelow(size(blockSize, 0)); })
          .Case([&](NVVM::ThreadIdYOp) { return idBelow(size(blockSize, 1)); })
          .Case([&](NVVM::ThreadIdZOp) { return idBelow(size(blockSize, 2)); })
          .Case([&](NVVM::BlockIdXOp) { return idBelow(size(gridSize, 0)); })
          .Case([&](NVVM::BlockIdYOp) { return idBelow(size(gridSize, 1)); })
          .Case([&](NVVM::BlockIdZOp) { return idBelow(size(gridSize, 2)); })
          .Case([&](NVVM::BlockDimXOp) { return count(size(blockSize, 0)); })
          .Case([&](NVVM::BlockDimYOp) { return count(size(blockSize, 1)); })
          .Case([&](NVVM::BlockDimZOp) { return count(size(blockSize, 2)); })
          .Case([&](NVVM::GridDimXOp) { return count(size(gridSize, 0)); })
          .Case([&](NVVM::GridDimYOp) { return count(size(gridSize, 1)); })
          .Case([&](NVVM::GridDimZOp) { return count(size(gridSize, 2)); })
          .Case([&](gpu::ThreadIdOp op) {
            return idBelow(size(blockSize, unsigned(op.getDimension())));
          })
          .Case([&](gpu::BlockIdOp op) {
            return idBelow(size(gridSize, unsigned(op.getDimension())));
          })
          .Case([&](gpu::BlockDimOp op) {
            return count(size(blockSize, unsigned(op.getDimension())));
          })
          .Case([&](gpu::GridDimOp op) {
            return count(size(gridSize, unsigned(op.getDimension())));
          })
          .Default([](Operation *) { return std::nullopt; });
  if (launch) {
    known.insert_or_assign(value, *launch);
    return *launch;
  }

  // The llvm dialect's integer arithmetic (no InferIntRangeInterface).
  // Unsigned operations on values that may be negative are not modelled.
  ConstantRange result =
      llvm::TypeSwitch<Operation *, ConstantRange>(def)
          .Case([&](LLVM::ConstantOp op) {
            if (auto attr = dyn_cast<IntegerAttr>(op.getValue()))
              return exactly(attr.getValue().getSExtValue());
            return full();
          })
          .Case([&](LLVM::AddOp) { return operand(0).add(operand(1)); })
          .Case([&](LLVM::SubOp) { return operand(0).sub(operand(1)); })
          .Case([&](LLVM::MulOp) { return operand(0).multiply(operand(1)); })
          .Case([&](LLVM::ShlOp) { return operand(0).shl(operand(1)); })
          .Case([&](LLVM::AShrOp) { return operand(0).ashr(operand(1)); })
          .Case([&](LLVM::LShrOp) {
            ConstantRange lhs = operand(0), rhs = operand(1);
            return isNonNegative(lhs) && isNonNegative(rhs) ? lhs.lshr(rhs)
                                                            : full();
          })
          .Case([&](LLVM::AndOp) {
            ConstantRange lhs = operand(0), rhs = operand(1);
            if (isNonNegative(lhs) && isNonNegative(rhs))
              return lhs.binaryAnd(rhs);
            // x & m with m >= 0 lies in [0, m].
            if (isNonNegative(rhs))
              return between(0, rhs.getSignedMax().getSExtValue());
            if (isNonNegative(lhs))
              return between(0, lhs.getSignedMax().getSExtValue());
            return full();
          })
          .Case([&](LLVM::OrOp) {
            ConstantRange lhs = operand(0), rhs = operand(1);
            return isNonNegative(lhs) && isNonNegative(rhs) ? lhs.binaryOr(rhs)
                                                            : full();
          })
          .Case([&](LLVM::SDivOp) { return operand(0).sdiv(operand(1)); })
          .Case([&](LLVM::SRemOp) { return operand(0).srem(operand(1)); })
          .Case([&](LLVM::UDivOp) {
            ConstantRange lhs = operand(0), rhs = operand(1);
            return isNonNegative(lhs) && isNonNegative(rhs) ? lhs.udiv(rhs)
                                                            : full();
          })
          .Case([&](LLVM::URemOp) {
            ConstantRange lhs = operand(0), rhs = operand(1);
            return isNonNegative(lhs) && isNonNegative(rhs) ? lhs.urem(rhs)
                                                            : full();
          })
          .Case([&](LLVM::SMinOp) { return operand(0).smin(operand(1)); })
          .Case([&](LLVM::SMaxOp) { return operand(0).smax(operand(1)); })
          .Case([&](LLVM::UMinOp) {
            ConstantRange lhs = operand(0), rhs = operand(1);
            return isNonNegative(lhs) && isNonNegative(rhs) ? lhs.smin(rhs)
                                                            : full();
          })
          .Case([&](LLVM::UMaxOp) {
            ConstantRange lhs = operand(0), rhs = operand(1);
            return isNonNegative(lhs) && isNonNegative(rhs) ? lhs.smax(rhs)
                                                            : full();
          })
          .Case([&](LLVM::SExtOp) { return operand(0); })
          .Case([&](LLVM::ZExtOp op) {
            ConstantRange source = operand(0);
            if (isNonNegative(source))
              return source;
            unsigned from = *integerWidth(op.getArg().getType());
            return from < kWidth - 1 ? between(0, (int64_t(1) << from) - 1)
                                     : full();
          })
          .Case([&](LLVM::TruncOp) { return operand(0); })
          .Case([&](LLVM::SelectOp) {
            return operand(1).unionWith(operand(2), ConstantRange::Signed);
          })
          .Default([&](Operation *op) {
            auto infer = dyn_cast<InferIntRangeInterface>(op);
            if (!infer || !llvm::all_of(op->getOperandTypes(),
                                        [](Type t) { return integerWidth(t); }))
              return full();
            SmallVector<ConstantIntRanges> operands;
            for (auto [index, input] : llvm::enumerate(op->getOperands()))
              operands.push_back(
                  toIntRanges(operand(index), *integerWidth(input.getType())));
            ConstantRange inferred = full();
            infer.inferResultRanges(
                operands, [&](Value result, const ConstantIntRanges &ranges) {
                  if (result == value)
                    inferred = fromIntRanges(ranges);
                });
            return inferred;
          });
  result = fitTo(result, *width);
  known.insert_or_assign(value, result);
  return result;
}

ConstantRange IndexRanges::computeBlockArgument(BlockArgument arg,
                                                Overrides &known,
                                                unsigned depth) {
  Block *block = arg.getOwner();
  Operation *parent = block->getParentOp();
  ConstantRange result = full();
  if (block->isEntryBlock()) {
    // Induction variables of structured loops with a positive step.
    if (auto loop = dyn_cast<LoopLikeOpInterface>(parent)) {
      auto ivs = loop.getLoopInductionVars();
      auto lowers = loop.getLoopLowerBounds();
      auto uppers = loop.getLoopUpperBounds();
      auto steps = loop.getLoopSteps();
      if (ivs && lowers && uppers && steps)
        for (auto [index, iv] : llvm::enumerate(*ivs)) {
          if (iv != arg)
            continue;
          auto rangeOf = [&](OpFoldResult bound) {
            if (auto attr = dyn_cast<Attribute>(bound))
              return exactly(cast<IntegerAttr>(attr).getValue().getSExtValue());
            return compute(cast<Value>(bound), known, depth + 1);
          };
          ConstantRange lower = rangeOf((*lowers)[index]);
          ConstantRange upper = rangeOf((*uppers)[index]);
          ConstantRange step = rangeOf((*steps)[index]);
          if (!lower.isFullSet() && !upper.isFullSet() &&
              !lower.isSignWrappedSet() && !upper.isSignWrappedSet() &&
              isNonNegative(step) && !step.contains(APInt(kWidth, 0)))
            result = between(lower.getSignedMin().getSExtValue(),
                             upper.getSignedMax().getSExtValue() - 1);
        }
    }
    known.insert_or_assign(arg, result);
    return result;
  }

  // A block argument of a CFG: the values its predecessors pass, computed
  // without this op's guards (those hold for this iteration's values, not
  // for what an earlier iteration passed). A loop header's argument that
  // each back edge increments by a non-negative amount only grows from
  // what enters the loop.
  if (!inProgress.insert(arg).second)
    return full();
  ConstantRange entering = ConstantRange::getEmpty(kWidth);
  bool grows = false, allKnown = true;
  for (auto it = block->pred_begin(); it != block->pred_end(); ++it) {
    Block *predecessor = *it;
    auto branch = dyn_cast<BranchOpInterface>(predecessor->getTerminator());
    if (!branch) {
      allKnown = false;
      break;
    }
    SuccessorOperands operands =
        branch.getSuccessorOperands(it.getSuccessorIndex());
    if (arg.getArgNumber() >= operands.size() ||
        operands.isOperandProduced(arg.getArgNumber())) {
      allKnown = false;
      break;
    }
    Value incoming = operands[arg.getArgNumber()];
    if (dominance.dominates(block, predecessor)) {
      Operation *def = incoming.getDefiningOp();
      bool increment = false;
      if (def && isa<LLVM::AddOp, arith::AddIOp>(def))
        for (unsigned i = 0; i < 2; ++i)
          if (def->getOperand(i) == arg &&
              isNonNegative(compute(def->getOperand(1 - i), unguarded, 0)))
            increment = true;
      if (!increment) {
        allKnown = false;
        break;
      }
      grows = true;
      continue;
    }
    entering = entering.unionWith(compute(incoming, unguarded, depth + 1),
                                  ConstantRange::Signed);
  }
  inProgress.erase(arg);
  if (allKnown && !entering.isEmptySet() && !entering.isFullSet() &&
      !entering.isSignWrappedSet())
    result = grows ? between(entering.getSignedMin().getSExtValue(),
                             std::numeric_limits<int64_t>::max())
                   : entering;
  known.insert_or_assign(arg, result);
  return result;
}

void IndexRanges::applyGuards(Operation *at, Overrides &known) {
  for (Operation *op = at; op && op != kernel;) {
    Block *block = op->getBlock();
    if (!block)
      break;
    Region *region = block->getParent();
    // Branches of a CFG: a block reached only through one side of a
    // conditional branch that dominates this one.
    if (!region->hasOneBlock())
      for (auto *node = dominance.getNode(block); node;
           node = node->getIDom()) {
        Block *dominator = node->getBlock();
        Operation *terminator = dominator->getTerminator();
        Value condition;
        Block *whenTrue = nullptr, *whenFalse = nullptr;
        if (auto branch = dyn_cast<LLVM::CondBrOp>(terminator)) {
          condition = branch.getCondition();
          whenTrue = branch.getTrueDest();
          whenFalse = branch.getFalseDest();
        } else if (auto branch = dyn_cast<cf::CondBranchOp>(terminator)) {
          condition = branch.getCondition();
          whenTrue = branch.getTrueDest();
          whenFalse = branch.getFalseDest();
        }
        if (!condition || whenTrue == whenFalse)
          continue;
        if (whenTrue->getSinglePredecessor() == dominator &&
            dominance.dominates(whenTrue, block))
          assume(condition, true, known, 0);
        else if (whenFalse->getSinglePredecessor() == dominator &&
                 dominance.dominates(whenFalse, block))
          assume(condition, false, known, 0);
      }
    Operation *parent = region->getParentOp();
    if (auto branch = dyn_cast_or_null<scf::IfOp>(parent))
      assume(branch.getCondition(), region == &branch.getThenRegion(), known,
             0);
    op = parent;
  }
}

void IndexRanges::assume(Value condition, bool holds, Overrides &known,
                         unsigned depth) {
  Operation *def = condition.getDefiningOp();
  if (!def || depth > 8)
    return;
  if (isa<LLVM::AndOp, arith::AndIOp>(def) && holds) {
    assume(def->getOperand(0), true, known, depth + 1);
    assume(def->getOperand(1), true, known, depth + 1);
    return;
  }
  if (isa<LLVM::OrOp, arith::OrIOp>(def) && !holds) {
    assume(def->getOperand(0), false, known, depth + 1);
    assume(def->getOperand(1), false, known, depth + 1);
    return;
  }
  if (isa<LLVM::XOrOp, arith::XOrIOp>(def)) {
    for (unsigned i = 0; i < 2; ++i)
      if (isConstantTrue(def->getOperand(i)))
        assume(def->getOperand(1 - i), !holds, known, depth + 1);
    return;
  }
  std::optional<llvm::CmpInst::Predicate> predicate = predicateOf(def);
  if (!predicate)
    return;
  if (!holds)
    predicate = llvm::CmpInst::getInversePredicate(*predicate);
  Value lhs = def->getOperand(0), rhs = def->getOperand(1);
  ConstantRange lhsRange = compute(lhs, known, 0);
  ConstantRange rhsRange = compute(rhs, known, 0);
  if (llvm::CmpInst::isUnsigned(*predicate)) {
    // Unsigned and signed order agree on non-negative values only.
    if (!isNonNegative(lhsRange) || !isNonNegative(rhsRange))
      return;
    predicate = llvm::ICmpInst::getSignedPredicate(*predicate);
  }
  known.insert_or_assign(
      lhs, lhsRange.intersectWith(
               ConstantRange::makeAllowedICmpRegion(*predicate, rhsRange),
               ConstantRange::Signed));
  known.insert_or_assign(
      rhs, rhsRange.intersectWith(
               ConstantRange::makeAllowedICmpRegion(
                   llvm::CmpInst::getSwappedPredicate(*predicate), lhsRange),
               ConstantRange::Signed));
}

std::optional<ByteInterval> IndexRanges::bytesReached(Operation *access,
                                                      Value base) {
  Overrides known;
  applyGuards(access, known);
  return llvm::TypeSwitch<Operation *, std::optional<ByteInterval>>(access)
      .Case([&](LLVM::LoadOp op) {
        return llvmBytes(op, op.getAddr(), op.getType(), known);
      })
      .Case([&](LLVM::StoreOp op) {
        return llvmBytes(op, op.getAddr(), op.getValue().getType(), known);
      })
      .Case([&](memref::LoadOp op) {
        return memrefBytes(op, op.getMemRef(), op.getIndices(), 1, known);
      })
      .Case([&](memref::StoreOp op) {
        return memrefBytes(op, op.getMemRef(), op.getIndices(), 1, known);
      })
      .Case([&](vector::LoadOp op) -> std::optional<ByteInterval> {
        if (op.getVectorType().getRank() != 1)
          return std::nullopt;
        return memrefBytes(op, op.getBase(), op.getIndices(),
                           op.getVectorType().getNumElements(), known);
      })
      .Case([&](vector::StoreOp op) -> std::optional<ByteInterval> {
        if (op.getVectorType().getRank() != 1)
          return std::nullopt;
        return memrefBytes(op, op.getBase(), op.getIndices(),
                           op.getVectorType().getNumElements(), known);
      })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<ByteInterval> IndexRanges::llvmBytes(Operation *access,
                                                   Value address, Type accessed,
                                                   Overrides &known) {
  DataLayout layout = DataLayout::closest(access);
  ConstantRange offset = exactly(0);
  Value pointer = address;
  for (unsigned steps = 0; steps < 64; ++steps) {
    Operation *def = pointer.getDefiningOp();
    if (!def)
      break;
    if (auto gep = dyn_cast<LLVM::GEPOp>(def)) {
      Type current = gep.getElemType();
      for (auto [position, index] : llvm::enumerate(gep.getIndices())) {
        if (position > 0) {
          // Into an array; a struct's field offsets are not modelled.
          auto array = dyn_cast<LLVM::LLVMArrayType>(current);
          if (!array)
            return std::nullopt;
          current = array.getElementType();
        }
        ConstantRange step =
            isa<Value>(index)
                ? compute(cast<Value>(index), known, 0)
                : exactly(cast<IntegerAttr>(cast<Attribute>(index))
                              .getValue()
                              .getSExtValue());
        int64_t bytes = layout.getTypeSize(current).getFixedValue();
        offset = offset.add(step.multiply(exactly(bytes)));
      }
      pointer = gep.getBase();
      continue;
    }
    if (isa<LLVM::AddrSpaceCastOp, LLVM::BitcastOp>(def)) {
      pointer = def->getOperand(0);
      continue;
    }
    if (auto extract = dyn_cast<LLVM::ExtractValueOp>(def)) {
      // The pointer field of a memref descriptor built in the kernel.
      Value container = extract.getContainer();
      Value field;
      while (auto insert = container.getDefiningOp<LLVM::InsertValueOp>()) {
        if (insert.getPosition() == extract.getPosition()) {
          field = insert.getValue();
          break;
        }
        container = insert.getContainer();
      }
      if (!field)
        break;
      pointer = field;
      continue;
    }
    break;
  }
  if (pointer != traceBufferRoot(address))
    return std::nullopt;
  if (offset.isFullSet() || offset.isSignWrappedSet() || offset.isEmptySet())
    return std::nullopt;
  int64_t size = layout.getTypeSize(accessed).getFixedValue();
  return ByteInterval{offset.getSignedMin().getSExtValue(),
                      offset.getSignedMax().getSExtValue() + size - 1};
}

std::optional<ByteInterval>
IndexRanges::memrefBytes(Operation *access, Value memref, ValueRange indices,
                         int64_t elementsAlongLast, Overrides &known) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || memref != traceBufferRoot(memref) ||
      !type.getElementType().isIntOrFloat())
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t elementOffset;
  if (failed(type.getStridesAndOffset(strides, elementOffset)) ||
      ShapedType::isDynamic(elementOffset) ||
      llvm::any_of(strides, ShapedType::isDynamic) ||
      strides.size() != indices.size())
    return std::nullopt;
  ConstantRange linear = exactly(elementOffset);
  for (auto [index, stride] : llvm::zip(indices, strides))
    linear = linear.add(compute(index, known, 0).multiply(exactly(stride)));
  if (linear.isFullSet() || linear.isSignWrappedSet() || linear.isEmptySet())
    return std::nullopt;
  int64_t elementBytes = type.getElementTypeBitWidth() / 8;
  int64_t last = linear.getSignedMax().getSExtValue();
  if (elementsAlongLast > 1)
    last += (elementsAlongLast - 1) * (strides.empty() ? 1 : strides.back());
  return ByteInterval{linear.getSignedMin().getSExtValue() * elementBytes,
                      last * elementBytes + elementBytes - 1};
}

//===----------------------------------------------------------------------===//
// Known bits
//===----------------------------------------------------------------------===//

namespace {

std::optional<unsigned> bitWidth(Type type) {
  if (std::optional<unsigned> width = integerWidth(type))
    return width;
  if (auto floatType = dyn_cast<FloatType>(type))
    return floatType.getWidth();
  return std::nullopt;
}

llvm::KnownBits knownBitsOf(Value value, unsigned depth,
                            llvm::DenseMap<Value, llvm::KnownBits> &memo) {
  std::optional<unsigned> width = bitWidth(value.getType());
  if (!width)
    return llvm::KnownBits(1);
  llvm::KnownBits unknown(*width);
  if (auto it = memo.find(value); it != memo.end())
    return it->second;
  Operation *def = value.getDefiningOp();
  if (!def || depth > 24)
    return unknown;
  auto operand = [&](unsigned index) {
    return knownBitsOf(def->getOperand(index), depth + 1, memo);
  };
  auto sameWidth = [&](const llvm::KnownBits &a, const llvm::KnownBits &b) {
    return a.getBitWidth() == *width && b.getBitWidth() == *width;
  };
  auto constant = [&](Attribute attr) {
    if (auto integer = dyn_cast<IntegerAttr>(attr))
      return llvm::KnownBits::makeConstant(
          integer.getValue().zextOrTrunc(*width));
    if (auto floating = dyn_cast<FloatAttr>(attr))
      return llvm::KnownBits::makeConstant(
          floating.getValue().bitcastToAPInt().zextOrTrunc(*width));
    return unknown;
  };
  llvm::KnownBits result =
      llvm::TypeSwitch<Operation *, llvm::KnownBits>(def)
          .Case([&](arith::ConstantOp op) { return constant(op.getValue()); })
          .Case([&](LLVM::ConstantOp op) { return constant(op.getValue()); })
          .Case<arith::AndIOp, LLVM::AndOp>([&](Operation *) {
            llvm::KnownBits a = operand(0), b = operand(1);
            return sameWidth(a, b) ? a & b : unknown;
          })
          .Case<arith::OrIOp, LLVM::OrOp>([&](Operation *) {
            llvm::KnownBits a = operand(0), b = operand(1);
            return sameWidth(a, b) ? a | b : unknown;
          })
          .Case<arith::XOrIOp, LLVM::XOrOp>([&](Operation *) {
            llvm::KnownBits a = operand(0), b = operand(1);
            return sameWidth(a, b) ? a ^ b : unknown;
          })
          .Case<arith::ShLIOp, LLVM::ShlOp>([&](Operation *) {
            llvm::KnownBits a = operand(0), b = operand(1);
            return sameWidth(a, b) ? llvm::KnownBits::shl(a, b) : unknown;
          })
          .Case<arith::ShRUIOp, LLVM::LShrOp>([&](Operation *) {
            llvm::KnownBits a = operand(0), b = operand(1);
            return sameWidth(a, b) ? llvm::KnownBits::lshr(a, b) : unknown;
          })
          .Case<arith::ShRSIOp, LLVM::AShrOp>([&](Operation *) {
            llvm::KnownBits a = operand(0), b = operand(1);
            return sameWidth(a, b) ? llvm::KnownBits::ashr(a, b) : unknown;
          })
          .Case<arith::AddIOp, LLVM::AddOp>([&](Operation *) {
            llvm::KnownBits a = operand(0), b = operand(1);
            return sameWidth(a, b) ? llvm::KnownBits::add(a, b) : unknown;
          })
          .Case<arith::SubIOp, LLVM::SubOp>([&](Operation *) {
            llvm::KnownBits a = operand(0), b = operand(1);
            return sameWidth(a, b) ? llvm::KnownBits::sub(a, b) : unknown;
          })
          .Case<arith::MulIOp, LLVM::MulOp>([&](Operation *) {
            llvm::KnownBits a = operand(0), b = operand(1);
            return sameWidth(a, b) ? llvm::KnownBits::mul(a, b) : unknown;
          })
          .Case<arith::TruncIOp, LLVM::TruncOp>([&](Operation *) {
            llvm::KnownBits a = operand(0);
            return a.getBitWidth() >= *width ? a.trunc(*width) : unknown;
          })
          .Case<arith::ExtUIOp, LLVM::ZExtOp>([&](Operation *) {
            llvm::KnownBits a = operand(0);
            return a.getBitWidth() <= *width ? a.zext(*width) : unknown;
          })
          .Case<arith::ExtSIOp, LLVM::SExtOp>([&](Operation *) {
            llvm::KnownBits a = operand(0);
            return a.getBitWidth() <= *width ? a.sext(*width) : unknown;
          })
          .Case<arith::BitcastOp, LLVM::BitcastOp>([&](Operation *) {
            llvm::KnownBits a = operand(0);
            return a.getBitWidth() == *width ? a : unknown;
          })
          .Case<arith::SelectOp, LLVM::SelectOp>([&](Operation *) {
            llvm::KnownBits a = operand(1), b = operand(2);
            return sameWidth(a, b) ? a.intersectWith(b) : unknown;
          })
          .Default([&](Operation *) { return unknown; });
  memo[value] = result;
  return result;
}

} // namespace

bool kf::isKnownConstant(Value value, KnownBitsCache &cache) {
  if (!bitWidth(value.getType()))
    return false;
  return knownBitsOf(value, 0, cache).isConstant();
}

bool kf::isKnownConstant(Value value) {
  KnownBitsCache cache;
  return isKnownConstant(value, cache);
}
