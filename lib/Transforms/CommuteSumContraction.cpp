//===- CommuteSumContraction.cpp - Row sums of a GEMM as a GEMV -----------===//
//
// Several Level 2 problems sum a GEMM's output over N, through an epilogue
// that is linear in the GEMM's value (L2-14: sum(x W^T / 2); L2-18 and
// L2-51: sum or mean of x W^T + b - s). In exact arithmetic
//
//   sum_j (a_j * sum_k A[i,k] B[j,k] + b_j)
//     = sum_k A[i,k] * (sum_j a_j B[j,k]) + sum_j b_j,
//
// two matrix-vector products and a scalar sum instead of a GEMM: the work
// drops from M*N*K multiply-adds to (M + N)*K, and the GEMM's output is
// never formed. The sums are taken in another order, so the result rounds
// differently; whether it stays within the problem's tolerance is for the
// correctness trials to judge, as for any candidate. Upstream MLIR has no
// such rewrite (its reassociation patterns stop at elementwise fusion).
//
//===----------------------------------------------------------------------===//

#include "kf/Analysis/ContractionAnalysis.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace kf {
#define GEN_PASS_DEF_KFCOMMUTESUMCONTRACTION
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {
/// How a value of the epilogue's body depends on the GEMM's element c.
enum class Dependence { None, Linear, Other };

Dependence join(Dependence a, Dependence b) { return a > b ? a : b; }

/// Classifies `value` (in the epilogue's body) as independent of `c`,
/// affine in it (a * c + b with a and b independent of c), or anything
/// else.
Dependence dependenceOn(Value value, BlockArgument c) {
  if (value == c)
    return Dependence::Linear;
  Operation *op = value.getDefiningOp();
  // Another block argument, or a value from outside the body.
  if (!op || op->getBlock() != c.getOwner())
    return Dependence::None;
  auto of = [&](unsigned index) {
    return dependenceOn(op->getOperand(index), c);
  };
  if (isa<arith::AddFOp, arith::SubFOp>(op))
    return join(of(0), of(1));
  if (isa<arith::NegFOp>(op))
    return of(0);
  if (isa<arith::MulFOp>(op)) {
    Dependence x = of(0), y = of(1);
    if (x == Dependence::None || y == Dependence::None)
      return join(x, y);
    return Dependence::Other;
  }
  if (isa<arith::DivFOp>(op))
    return of(1) == Dependence::None ? of(0) : Dependence::Other;
  Dependence all = Dependence::None;
  for (unsigned index = 0; index < op->getNumOperands(); ++index)
    all = join(all, of(index));
  return all == Dependence::None ? Dependence::None : Dependence::Other;
}

/// Emits, at `builder`'s point, d value / d c for a value affine in c (see
/// dependenceOn): nullopt stands for 0. `mapping` holds the clones of the
/// body's ops independent of c that the derivative reads.
std::optional<Value> emitSlope(OpBuilder &builder, Value value, BlockArgument c,
                               IRMapping &mapping) {
  Location loc = value.getLoc();
  auto one = [&] {
    return arith::ConstantOp::create(builder, loc, builder.getF32FloatAttr(1.0))
        .getResult();
  };
  if (value == c)
    return one();
  Operation *op = value.getDefiningOp();
  if (!op || dependenceOn(value, c) == Dependence::None)
    return std::nullopt;
  auto slope = [&](unsigned index) {
    return emitSlope(builder, op->getOperand(index), c, mapping);
  };
  auto independent = [&](unsigned index) {
    return mapping.lookupOrDefault(op->getOperand(index));
  };
  if (isa<arith::NegFOp>(op)) {
    std::optional<Value> x = slope(0);
    return arith::NegFOp::create(builder, loc, *x).getResult();
  }
  if (isa<arith::AddFOp, arith::SubFOp>(op)) {
    std::optional<Value> x = slope(0), y = slope(1);
    if (!y)
      return x;
    if (!x)
      return isa<arith::AddFOp>(op)
                 ? *y
                 : arith::NegFOp::create(builder, loc, *y).getResult();
    return isa<arith::AddFOp>(op)
               ? arith::AddFOp::create(builder, loc, *x, *y).getResult()
               : arith::SubFOp::create(builder, loc, *x, *y).getResult();
  }
  if (isa<arith::MulFOp>(op)) {
    bool firstLinear = dependenceOn(op->getOperand(0), c) != Dependence::None;
    std::optional<Value> x = slope(firstLinear ? 0 : 1);
    return arith::MulFOp::create(builder, loc, *x,
                                 independent(firstLinear ? 1 : 0))
        .getResult();
  }
  // arith.divf with a divisor independent of c.
  std::optional<Value> x = slope(0);
  return arith::DivFOp::create(builder, loc, *x, independent(1)).getResult();
}

/// Clones into `builder` the ops of `body` that do not depend on `c` and
/// that `value` needs, mapping the body's arguments through `mapping`.
void cloneIndependent(OpBuilder &builder, Value value, BlockArgument c,
                      IRMapping &mapping) {
  Operation *op = value.getDefiningOp();
  if (!op || op->getBlock() != c.getOwner() || mapping.contains(value))
    return;
  for (Value operand : op->getOperands())
    cloneIndependent(builder, operand, c, mapping);
  if (dependenceOn(value, c) == Dependence::None)
    builder.clone(*op, mapping);
}

/// Whether a value affine in `c` (see dependenceOn) has a term independent
/// of c, as far as its ops show (c / 2 has none, c + b has one).
bool hasOffset(Value value, BlockArgument c) {
  if (value == c)
    return false;
  if (dependenceOn(value, c) == Dependence::None)
    return true;
  Operation *op = value.getDefiningOp();
  if (isa<arith::AddFOp, arith::SubFOp>(op))
    return hasOffset(op->getOperand(0), c) || hasOffset(op->getOperand(1), c);
  if (isa<arith::MulFOp>(op) &&
      dependenceOn(op->getOperand(0), c) == Dependence::None)
    return hasOffset(op->getOperand(1), c);
  return hasOffset(op->getOperand(0), c);
}

/// The sum over N this pass rewrites: a linalg.generic with loops (i, j),
/// j a reduction, reading one [M, N] input through the identity map into a
/// zero-filled [M] output with `out = in + acc`.
bool isRowSum(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != 2 || op.getNumReductionLoops() != 1 ||
      op.getIteratorTypesArray()[1] != utils::IteratorType::reduction)
    return false;
  MLIRContext *context = op.getContext();
  AffineExpr i = getAffineDimExpr(0, context);
  if (!op.getMatchingIndexingMap(op.getDpsInputOperand(0)).isIdentity() ||
      op.getMatchingIndexingMap(op.getDpsInitOperand(0)) !=
          AffineMap::get(2, 0, {i}, context))
    return false;
  auto fill = op.getDpsInitOperand(0)->get().getDefiningOp<linalg::FillOp>();
  if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
    return false;
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  auto add = yield.getValues()[0].getDefiningOp<arith::AddFOp>();
  Block *body = op.getBody();
  return add && add->getBlock() == body &&
         ((add.getLhs() == body->getArgument(0) &&
           add.getRhs() == body->getArgument(1)) ||
          (add.getLhs() == body->getArgument(1) &&
           add.getRhs() == body->getArgument(0)));
}

/// A 2-D GEMM the rewrite can take: the GEMM kernel's conditions, no batch
/// loop, output [M, N] as (m, n).
std::optional<kf::ContractionLoops> plainGemm(Operation *op) {
  auto linalgOp = dyn_cast_or_null<linalg::LinalgOp>(op);
  if (!linalgOp)
    return std::nullopt;
  FailureOr<kf::ContractionLoops> loops = kf::analyzeContraction(linalgOp);
  if (failed(loops) || !loops->outerLoops.empty() || loops->outputMDim != 0 ||
      loops->outputNDim != 1)
    return std::nullopt;
  return *loops;
}

/// `map` (over the GEMM's loops) over two new loops: `first` and `second`
/// of the GEMM become d0 and d1; fails if it uses another loop.
std::optional<AffineMap> remap(AffineMap map, unsigned first, unsigned second) {
  SmallVector<AffineExpr> results;
  for (AffineExpr result : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim || (dim.getPosition() != first && dim.getPosition() != second))
      return std::nullopt;
    results.push_back(
        getAffineDimExpr(dim.getPosition() == first ? 0 : 1, map.getContext()));
  }
  return AffineMap::get(2, 0, results, map.getContext());
}

struct Match {
  linalg::GenericOp sum;
  /// The elementwise op between the GEMM and the sum, if any.
  linalg::GenericOp epilogue;
  linalg::LinalgOp gemm;
  kf::ContractionLoops loops;
};

/// Whether `sum` sums the output of a plain GEMM over N, directly or
/// through one elementwise op affine in the GEMM's value whose other inputs
/// are indexed by N alone.
std::optional<Match> match(linalg::GenericOp sum) {
  if (!isRowSum(sum))
    return std::nullopt;
  Match found;
  found.sum = sum;
  Value summed = sum.getDpsInputOperand(0)->get();
  if (!summed.hasOneUse())
    return std::nullopt;
  Operation *producer = summed.getDefiningOp();
  if (std::optional<kf::ContractionLoops> loops = plainGemm(producer)) {
    found.gemm = cast<linalg::LinalgOp>(producer);
    found.loops = *loops;
    return found;
  }
  auto epilogue = dyn_cast_or_null<linalg::GenericOp>(producer);
  if (!epilogue || epilogue.getNumDpsInits() != 1 ||
      epilogue.getNumLoops() != 2 || epilogue.getNumReductionLoops() != 0 ||
      !epilogue.getMatchingIndexingMap(epilogue.getDpsInitOperand(0))
           .isIdentity())
    return std::nullopt;
  // The GEMM's value reaches the epilogue as one input or as its init (an
  // epilogue computing in place, kf-fuse-contraction-epilogues).
  std::optional<BlockArgument> c;
  MLIRContext *context = sum.getContext();
  AffineMap byN = AffineMap::get(2, 0, {getAffineDimExpr(1, context)}, context);
  for (OpOperand &operand : epilogue->getOpOperands()) {
    BlockArgument argument = epilogue.getMatchingBlockArgument(&operand);
    AffineMap map = epilogue.getMatchingIndexingMap(&operand);
    if (std::optional<kf::ContractionLoops> loops =
            plainGemm(operand.get().getDefiningOp())) {
      if (c || !map.isIdentity() || !operand.get().hasOneUse())
        return std::nullopt;
      c = argument;
      found.gemm = cast<linalg::LinalgOp>(operand.get().getDefiningOp());
      found.loops = *loops;
      continue;
    }
    if (epilogue.isDpsInit(&operand)) {
      if (!argument.use_empty())
        return std::nullopt;
      continue;
    }
    // Factors and offsets: per column (N) or scalars.
    if (map != byN && map.getNumResults() != 0)
      return std::nullopt;
  }
  if (!c)
    return std::nullopt;
  auto yield = cast<linalg::YieldOp>(epilogue.getBody()->getTerminator());
  if (dependenceOn(yield.getValues()[0], *c) != Dependence::Linear)
    return std::nullopt;
  // An offset is summed over N by an op of its own, whose loop needs an
  // input indexed by N.
  if (hasOffset(yield.getValues()[0], *c) &&
      llvm::none_of(epilogue.getDpsInputOperands(), [&](OpOperand *input) {
        return epilogue.getMatchingIndexingMap(input) == byN;
      }))
    return std::nullopt;
  found.epilogue = epilogue;
  return found;
}

/// Emits the rewrite of `found` and returns the new row sums.
Value rewrite(RewriterBase &rewriter, Match found) {
  Location loc = found.sum.getLoc();
  MLIRContext *context = rewriter.getContext();
  const kf::ContractionLoops &loops = found.loops;
  Type f32 = rewriter.getF32Type();
  rewriter.setInsertionPoint(found.sum);
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0));
  auto zeros = [&](ArrayRef<int64_t> shape) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, shape, f32);
    return linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  };
  AffineExpr d0 = getAffineDimExpr(0, context),
             d1 = getAffineDimExpr(1, context);
  AffineMap byFirst = AffineMap::get(2, 0, {d0}, context);
  AffineMap bySecond = AffineMap::get(2, 0, {d1}, context);
  SmallVector<utils::IteratorType> parallelReduction = {
      utils::IteratorType::parallel, utils::IteratorType::reduction};

  // The epilogue's inputs other than the GEMM's value, and the maps that
  // read them by N (d1) in the new ops.
  SmallVector<Value> factors;
  SmallVector<AffineMap> factorMaps;
  SmallVector<BlockArgument> factorArguments;
  std::optional<BlockArgument> c;
  if (found.epilogue) {
    for (OpOperand &operand : found.epilogue->getOpOperands()) {
      BlockArgument argument =
          found.epilogue.getMatchingBlockArgument(&operand);
      if (operand.get() == found.gemm->getResult(0)) {
        c = argument;
        continue;
      }
      if (found.epilogue.isDpsInit(&operand))
        continue;
      factors.push_back(operand.get());
      factorArguments.push_back(argument);
      factorMaps.push_back(
          found.epilogue.getMatchingIndexingMap(&operand).getNumResults() == 0
              ? AffineMap::get(2, 0, {}, context)
              : bySecond);
    }
  }
  Value yielded =
      found.epilogue
          ? cast<linalg::YieldOp>(found.epilogue.getBody()->getTerminator())
                .getValues()[0]
          : Value();

  // w[k] = sum_j slope(j) * B(j, k): loops (k, j).
  AffineMap bMap = *remap(
      found.gemm.getMatchingIndexingMap(found.gemm.getDpsInputOperand(1)),
      loops.kLoop, loops.nLoop);
  SmallVector<Value> wInputs = {found.gemm.getDpsInputOperand(1)->get()};
  SmallVector<AffineMap> wMaps = {bMap};
  wInputs.append(factors);
  wMaps.append(factorMaps);
  wMaps.push_back(byFirst);
  Value w =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{RankedTensorType::get({loops.k}, f32)},
          wInputs, ValueRange{zeros({loops.k})}, wMaps, parallelReduction,
          [&](OpBuilder &builder, Location loc, ValueRange args) {
            Value product = args.front();
            if (found.epilogue) {
              IRMapping mapping;
              for (auto [index, argument] : llvm::enumerate(factorArguments))
                mapping.map(argument, args[1 + index]);
              cloneIndependent(builder, yielded, *c, mapping);
              std::optional<Value> slope =
                  emitSlope(builder, yielded, *c, mapping);
              product = arith::MulFOp::create(builder, loc, *slope, product);
            }
            Value sum =
                arith::AddFOp::create(builder, loc, product, args.back());
            linalg::YieldOp::create(builder, loc, sum);
          })
          .getResult(0);

  // y[i] = sum_k A(i, k) * w[k]: loops (i, k).
  AffineMap aMap = *remap(
      found.gemm.getMatchingIndexingMap(found.gemm.getDpsInputOperand(0)),
      loops.mLoop, loops.kLoop);
  Value y = linalg::GenericOp::create(
                rewriter, loc, TypeRange{RankedTensorType::get({loops.m}, f32)},
                ValueRange{found.gemm.getDpsInputOperand(0)->get(), w},
                ValueRange{zeros({loops.m})},
                ArrayRef<AffineMap>{aMap, bySecond, byFirst}, parallelReduction,
                [&](OpBuilder &builder, Location loc, ValueRange args) {
                  Value product =
                      arith::MulFOp::create(builder, loc, args[0], args[1]);
                  Value sum =
                      arith::AddFOp::create(builder, loc, product, args[2]);
                  linalg::YieldOp::create(builder, loc, sum);
                })
                .getResult(0);
  if (!found.epilogue || !hasOffset(yielded, *c))
    return y;

  // The offsets: t = sum_j epilogue(c = 0), one value added to every row
  // (loops (p, j) with p of size 1: schedules map parallel loops).
  AffineMap scalar = AffineMap::get(2, 0, {}, context);
  SmallVector<AffineMap> tMaps;
  for (AffineMap map : factorMaps)
    tMaps.push_back(map.getNumResults() == 0 ? scalar : bySecond);
  tMaps.push_back(byFirst);
  Value t =
      linalg::GenericOp::create(
          rewriter, loc, TypeRange{RankedTensorType::get({1}, f32)}, factors,
          ValueRange{zeros({1})}, tMaps, parallelReduction,
          [&](OpBuilder &builder, Location loc, ValueRange args) {
            IRMapping mapping;
            for (auto [index, argument] : llvm::enumerate(factorArguments))
              mapping.map(argument, args[index]);
            mapping.map(*c, arith::ConstantOp::create(
                                builder, loc, builder.getF32FloatAttr(0.0)));
            for (Operation &op : found.epilogue.getBody()->without_terminator())
              builder.clone(op, mapping);
            Value sum = arith::AddFOp::create(
                builder, loc, mapping.lookupOrDefault(yielded), args.back());
            linalg::YieldOp::create(builder, loc, sum);
          })
          .getResult(0);
  AffineMap identity = AffineMap::getMultiDimIdentityMap(1, context);
  AffineMap first =
      AffineMap::get(1, 0, {getAffineConstantExpr(0, context)}, context);
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{RankedTensorType::get({loops.m}, f32)},
             ValueRange{y, t},
             ValueRange{tensor::EmptyOp::create(
                 rewriter, loc, ArrayRef<int64_t>{loops.m}, f32)},
             ArrayRef<AffineMap>{identity, first, identity},
             ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
             [&](OpBuilder &builder, Location loc, ValueRange args) {
               linalg::YieldOp::create(
                   builder, loc,
                   arith::AddFOp::create(builder, loc, args[0], args[1])
                       .getResult());
             })
      .getResult(0);
}

/// Erases `op` and then, transitively, the producers it leaves unused.
void eraseWithDeadProducers(RewriterBase &rewriter, Operation *op) {
  SmallVector<Operation *> worklist = {op};
  while (!worklist.empty()) {
    Operation *next = worklist.pop_back_val();
    if (!next->use_empty() || (!isPure(next) && !isa<linalg::LinalgOp>(next)))
      continue;
    SmallVector<Operation *> producers;
    for (Value operand : next->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        producers.push_back(producer);
    rewriter.eraseOp(next);
    for (Operation *producer : producers)
      if (llvm::find(worklist, producer) == worklist.end())
        worklist.push_back(producer);
  }
}

struct KFCommuteSumContractionPass
    : kf::impl::KFCommuteSumContractionBase<KFCommuteSumContractionPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<Match> matches;
    getOperation().walk([&](linalg::GenericOp op) {
      if (std::optional<Match> found = match(op))
        matches.push_back(*found);
    });
    IRRewriter rewriter(&getContext());
    for (Match found : matches) {
      Value sums = rewrite(rewriter, found);
      rewriter.replaceAllUsesWith(found.sum->getResult(0), sums);
      eraseWithDeadProducers(rewriter, found.sum);
    }
  }
};
} // namespace
