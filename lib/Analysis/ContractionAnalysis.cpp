//===- ContractionAnalysis.cpp - The loops of a GEMM-shaped contraction ---===//

#include "kf/Analysis/ContractionAnalysis.h"
#include "kf/Analysis/LoopRuns.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineExpr.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

FailureOr<kf::ContractionLoops> kf::analyzeContraction(linalg::LinalgOp op,
                                                       std::string *whyNot) {
  auto refuse = [&](const Twine &reason) -> FailureOr<ContractionLoops> {
    if (whyNot)
      *whyNot = reason.str();
    return failure();
  };
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1)
    return refuse("not two inputs and one output");
  if (!linalg::isaContractionOpInterface(op))
    return refuse("not a multiply-add contraction");
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.getElementType().isF32() || !type.hasStaticShape())
      return refuse("operands must be statically shaped f32 tensors");
  }
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->k.size() != 1 || dims->n.size() != 1 ||
      dims->m.empty())
    return refuse("needs one K loop, one N loop and at least one M loop");
  ContractionLoops loops;
  loops.numLoops = op.getNumLoops();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  loops.kLoop = dims->k.front();
  loops.nLoop = dims->n.front();
  // The innermost M loop is the block's M; the others are tiled by 1.
  loops.mLoop = *llvm::max_element(dims->m);
  loops.m = ranges[loops.mLoop];
  loops.n = ranges[loops.nLoop];
  loops.k = ranges[loops.kLoop];
  unsigned outerLarger = 0;
  for (unsigned loop = 0; loop < loops.numLoops; ++loop) {
    if (loop == loops.mLoop || loop == loops.nLoop || loop == loops.kLoop)
      continue;
    loops.outerLoops.push_back(loop);
    loops.outerSizes.push_back(ranges[loop]);
    if (ranges[loop] > 1)
      ++outerLarger;
  }
  if (outerLarger > 1)
    return refuse("more than one batch loop larger than 1 (the grid's z "
                  "dimension takes one)");
  // The output must be zeroed by a fill the contraction alone uses: the
  // kernel fuses it into its accumulators.
  OpOperand *init = op.getDpsInitOperand(0);
  auto fill = init->get().getDefiningOp<linalg::FillOp>();
  if (!fill || !fill->hasOneUse())
    return refuse("the output is not initialised by a linalg.fill that only "
                  "this op uses");
  AffineMap outMap = op.getMatchingIndexingMap(init);
  std::optional<unsigned> outM =
      outMap.getResultPosition(getAffineDimExpr(loops.mLoop, op.getContext()));
  std::optional<unsigned> outN =
      outMap.getResultPosition(getAffineDimExpr(loops.nLoop, op.getContext()));
  if (!outM || !outN)
    return refuse("the output is not indexed by the M and N loops directly");
  loops.outputMDim = *outM;
  loops.outputNDim = *outN;
  for (unsigned index = 0; index < 2; ++index) {
    OpOperand *operand = op.getDpsInputOperand(index);
    AffineMap map = op.getMatchingIndexingMap(operand);
    if (map.getNumResults() == 0 || !map.isProjectedPermutation())
      return refuse("operands must be indexed by plain loops");
    auto last = dyn_cast<AffineDimExpr>(map.getResults().back());
    if (!last)
      return refuse("operands must be indexed by plain loops");
    unsigned contiguous = last.getPosition();
    if (contiguous != loops.mLoop && contiguous != loops.nLoop &&
        contiguous != loops.kLoop)
      return refuse("an operand's contiguous dimension is a batch loop; the "
                    "kernel copies operand tiles along M, N or K");
    int64_t rowLength =
        cast<ShapedType>(operand->get().getType()).getShape().back();
    (index == 0 ? loops.aContiguousLoop : loops.bContiguousLoop) = contiguous;
    (index == 0 ? loops.aRowLength : loops.bRowLength) = rowLength;
    unsigned rank = map.getNumResults();
    unsigned sideLoop = index == 0 ? loops.mLoop : loops.nLoop;
    (index == 0 ? loops.aRowsAlongK : loops.bRowsAlongK) =
        contiguous == loops.kLoop && rank >= 2 &&
        map.getResult(rank - 2) == getAffineDimExpr(sideLoop, op.getContext());
  }
  return loops;
}

bool kf::qualifiesForTransposedProduct(const ContractionLoops &loops,
                                       int64_t maxM) {
  // The copies the rewrite adds (A's M K elements where A had none, the
  // product's M N) stay small against the weight's N K only where B is
  // much taller than A.
  return loops.numLoops == 3 && loops.aRowsAlongK && loops.bRowsAlongK &&
         loops.outputMDim == 0 && loops.outputNDim == 1 && loops.m <= maxM &&
         loops.n >= 16 * loops.m;
}

std::optional<kf::ContractionLoops>
kf::paddedContractionLoops(const ContractionLoops &loops, double maxOverhead) {
  if (loops.m % 64 == 0 && loops.n % 64 == 0 && loops.k % 8 == 0)
    return std::nullopt;
  auto padSide = [](int64_t size) {
    return size % 64 == 0 ? size : llvm::alignTo(size, size >= 1024 ? 128 : 64);
  };
  ContractionLoops padded = loops;
  padded.m = padSide(loops.m);
  padded.n = padSide(loops.n);
  padded.k = loops.k % 8 == 0 ? loops.k : llvm::alignTo(loops.k, 16);
  double work = double(loops.m) * double(loops.n) * double(loops.k);
  double paddedWork = double(padded.m) * double(padded.n) * double(padded.k);
  if (paddedWork > work * (1.0 + maxOverhead))
    return std::nullopt;
  auto sizeOf = [&](unsigned loop, int64_t size) {
    return loop == loops.mLoop   ? padded.m
           : loop == loops.nLoop ? padded.n
           : loop == loops.kLoop ? padded.k
                                 : size;
  };
  padded.aRowLength = sizeOf(loops.aContiguousLoop, loops.aRowLength);
  padded.bRowLength = sizeOf(loops.bContiguousLoop, loops.bRowLength);
  return padded;
}

SmallVector<ReassociationIndices>
kf::collapsibleContractionLoops(linalg::LinalgOp op) {
  SmallVector<ReassociationIndices> runs;
  if (!linalg::isaContractionOpInterface(op))
    return runs;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims))
    return runs;
  // Batch loops too: the kernel maps one batch loop over the grid's z, and
  // attention's two (batch and head, L1-97) are one batch loop in disguise.
  for (SmallVector<unsigned, 2> loops : {dims->batch, dims->m, dims->n}) {
    llvm::sort(loops);
    runs.append(kf::preservedLoopRuns(maps, loops));
  }
  return runs;
}
