//===- ScanAnalysis.cpp - Scans written as masked reductions --------------===//

#include "kf/Analysis/ScanAnalysis.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace {

/// The predicate `l pred k` equivalent to `k pred l`.
arith::CmpIPredicate swapped(arith::CmpIPredicate pred) {
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::ult:
    return P::ugt;
  case P::ule:
    return P::uge;
  case P::ugt:
    return P::ult;
  case P::uge:
    return P::ule;
  case P::slt:
    return P::sgt;
  case P::sle:
    return P::sge;
  case P::sgt:
    return P::slt;
  case P::sge:
    return P::sle;
  default:
    return pred;
  }
}

/// Whether `op` combines two values the way a scan can fold them: an
/// associative and commutative add, mul, max or min.
bool isScanCombiner(Operation *op) {
  return isa<arith::AddFOp, arith::MulFOp, arith::MaximumFOp, arith::MinimumFOp,
             arith::MaxNumFOp, arith::MinNumFOp, arith::AddIOp, arith::MulIOp,
             arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp>(
      op);
}

/// Whether `value` (in `body`) depends on the block argument `arg` or on
/// linalg.index `dim`, through the ops of the body.
bool dependsOn(Value value, Block *body, Value arg, unsigned dim) {
  SmallVector<Value> worklist = {value};
  llvm::SmallPtrSet<Operation *, 16> seen;
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    if (current == arg)
      return true;
    Operation *def = current.getDefiningOp();
    if (!def || def->getBlock() != body || !seen.insert(def).second)
      continue;
    if (auto index = dyn_cast<linalg::IndexOp>(def))
      if (index.getDim() == dim)
        return true;
    llvm::append_range(worklist, def->getOperands());
  }
  return false;
}

} // namespace

bool kf::isNeutralFor(Operation *combiner, Value value) {
  std::optional<TypedAttr> neutral = arith::getNeutralElement(combiner);
  Attribute constant;
  if (!neutral || !matchPattern(value, m_Constant(&constant)))
    return false;
  if (isa<arith::AddFOp>(combiner))
    if (auto floatAttr = dyn_cast<FloatAttr>(constant))
      return floatAttr.getValue().isZero();
  return constant == *neutral;
}

TypedAttr kf::foldIdentity(Operation *combiner, Type elementType) {
  if (isa<arith::AddFOp>(combiner))
    return FloatAttr::get(elementType, -0.0);
  return *arith::getNeutralElement(combiner);
}

Value kf::buildCombine(OpBuilder &b, Location loc, Operation *combiner,
                       Value lhs, Value rhs) {
  OperationState state(loc, combiner->getName());
  state.addOperands({lhs, rhs});
  state.addTypes(lhs.getType());
  state.addAttributes(combiner->getAttrs());
  return b.create(state)->getResult(0);
}

FailureOr<kf::ScanLoops> kf::analyzeScan(linalg::LinalgOp linalgOp,
                                         std::string *whyNot) {
  auto fail = [&](const char *reason) -> FailureOr<ScanLoops> {
    if (whyNot)
      *whyNot = reason;
    return failure();
  };
  auto op = dyn_cast<linalg::GenericOp>(linalgOp.getOperation());
  if (!op || op.getNumDpsInits() != 1 || op.getNumReductionLoops() != 1)
    return fail("a scan is a linalg.generic with one output and one "
                "reduction loop");
  SmallVector<unsigned> reductionDims;
  op.getReductionDims(reductionDims);
  unsigned l = reductionDims.front();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ShapedType::isDynamic(ranges[l]))
    return fail("a scan needs a static range");

  Block *body = op.getBody();
  auto yield = cast<linalg::YieldOp>(body->getTerminator());
  BlockArgument acc = body->getArgument(op.getNumDpsInputs());
  Operation *combiner = yield.getOperand(0).getDefiningOp();
  if (!combiner || !isScanCombiner(combiner) || !acc.hasOneUse() ||
      *acc.getUsers().begin() != combiner)
    return fail("a scan's body folds the masked element into the output "
                "with one add, mul, max or min");
  Value masked = combiner->getOperand(0) == acc ? combiner->getOperand(1)
                                                : combiner->getOperand(0);
  auto select = masked.getDefiningOp<arith::SelectOp>();
  if (!select || select->getBlock() != body)
    return fail("a scan's body masks the element with a select");
  auto cmp = select.getCondition().getDefiningOp<arith::CmpIOp>();
  if (!cmp)
    return fail("a scan's mask compares two loop indices");
  arith::CmpIPredicate pred = cmp.getPredicate();
  Value element = select.getTrueValue();
  if (!isNeutralFor(combiner, select.getFalseValue())) {
    // select(cond, neutral, element) is select(!cond, element, neutral).
    if (!isNeutralFor(combiner, select.getTrueValue()))
      return fail("a scan's mask selects the combiner's neutral element "
                  "where the element is left out");
    element = select.getFalseValue();
    pred = arith::invertPredicate(pred);
  }
  auto lhs = cmp.getLhs().getDefiningOp<linalg::IndexOp>();
  auto rhs = cmp.getRhs().getDefiningOp<linalg::IndexOp>();
  if (!lhs || !rhs || lhs->getBlock() != body || rhs->getBlock() != body)
    return fail("a scan's mask compares two loop indices");
  unsigned k;
  if (lhs.getDim() == l) {
    k = rhs.getDim();
  } else if (rhs.getDim() == l) {
    k = lhs.getDim();
    pred = swapped(pred);
  } else {
    return fail("a scan's mask compares the reduction loop's index");
  }
  if (k == l ||
      op.getIteratorTypesArray()[k] != utils::IteratorType::parallel ||
      ranges[k] != ranges[l])
    return fail("a scan's mask compares the reduction loop with a parallel "
                "loop of the same range");
  ScanLoops scan;
  scan.scanLoop = k;
  scan.reductionLoop = l;
  scan.length = ranges[l];
  using P = arith::CmpIPredicate;
  switch (pred) {
  case P::ult:
  case P::slt:
    scan.exclusive = true;
    break;
  case P::ule:
  case P::sle:
    break;
  case P::ugt:
  case P::sgt:
    scan.reverse = scan.exclusive = true;
    break;
  case P::uge:
  case P::sge:
    scan.reverse = true;
    break;
  default:
    return fail("a scan's mask orders the two indices (<, <=, >, >=)");
  }
  if (dependsOn(element, body, acc, k))
    return fail("a scan's element depends on neither the output nor the "
                "scanned loop");
  for (OpOperand *input : op.getDpsInputOperands())
    if (op.getMatchingIndexingMap(input).isFunctionOfDim(k))
      return fail("a scan's inputs are not indexed by the scanned loop");
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!outputMap.isProjectedPermutation() || !outputMap.isFunctionOfDim(k))
    return fail("a scan's output is indexed by the scanned loop");
  // The select and compare must serve the fold alone: another use would see
  // them per (k, l) pair.
  if (!select->hasOneUse() || !cmp->hasOneUse())
    return fail("a scan's mask serves the fold alone");
  scan.combiner = combiner;
  scan.mask = select;
  scan.element = element;
  return scan;
}
