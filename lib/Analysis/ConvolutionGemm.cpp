//===- ConvolutionGemm.cpp - The GEMM of a convolution --------------------===//
//
// The analyses of ConvolutionGemm.h: a convolution's GEMM sizes, and the
// zero-inserting gather in front of a transposed convolution, whose stride
// phases split the GEMM so that no inserted zero is multiplied.
//
//===----------------------------------------------------------------------===//

#include "kf/Analysis/ConvolutionGemm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

namespace {
SmallVector<int64_t, 3> windowAttribute(Operation *op, StringRef name,
                                        unsigned rank) {
  if (auto attribute = op->getAttrOfType<DenseIntElementsAttr>(name))
    return llvm::to_vector<3>(attribute.getValues<int64_t>());
  return SmallVector<int64_t, 3>(rank, 1);
}

/// The linalg.index dimensions `value` depends on inside a generic's body;
/// nullopt when it depends on a block argument (an element, not an index)
/// or on an op with regions.
std::optional<llvm::SmallSet<unsigned, 2>> indexDependences(Value value) {
  llvm::SmallSet<unsigned, 2> dims;
  SmallVector<Value> worklist = {value};
  llvm::DenseSet<Value> seen;
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    if (!seen.insert(current).second)
      continue;
    Operation *op = current.getDefiningOp();
    if (!op || op->getNumRegions() != 0)
      return std::nullopt;
    if (auto index = dyn_cast<linalg::IndexOp>(op)) {
      dims.insert(index.getDim());
      continue;
    }
    llvm::append_range(worklist, op->getOperands());
  }
  return dims;
}

/// Evaluates the index and i1 arithmetic of a gather's body with one loop
/// index set to a value, by MLIR's own folders: each pure op is folded on
/// its operands' constant values, so whatever arith folds, the evaluator
/// knows. Anything that does not fold to an integer (an element, a float,
/// another loop's index) makes the value unknown.
class IndexEvaluator {
public:
  IndexEvaluator(unsigned dim, int64_t at) : dim(dim), at(at) {}

  std::optional<int64_t> evaluate(Value value) {
    IntegerAttr known = fold(value);
    if (!known)
      return std::nullopt;
    if (known.getType().isInteger(1))
      return int64_t(known.getValue().getBoolValue());
    return known.getValue().getSExtValue();
  }

private:
  IntegerAttr fold(Value value) {
    auto cached = values.find(value);
    if (cached != values.end())
      return cached->second;
    IntegerAttr result = compute(value);
    if (result)
      values[value] = result;
    return result;
  }

  IntegerAttr compute(Value value) {
    Operation *op = value.getDefiningOp();
    if (!op)
      return {};
    if (auto index = dyn_cast<linalg::IndexOp>(op))
      return index.getDim() == dim
                 ? IntegerAttr::get(IndexType::get(op->getContext()), at)
                 : IntegerAttr();
    if (op->getNumRegions() != 0 || !isPure(op))
      return {};
    SmallVector<Attribute> operands;
    for (Value operand : op->getOperands()) {
      IntegerAttr known = fold(operand);
      if (!known)
        return {};
      operands.push_back(known);
    }
    SmallVector<OpFoldResult> results;
    if (failed(op->fold(operands, results)) ||
        results.size() != op->getNumResults())
      return {};
    OpFoldResult result = results[cast<OpResult>(value).getResultNumber()];
    if (auto attribute = dyn_cast<Attribute>(result))
      return dyn_cast<IntegerAttr>(attribute);
    return fold(cast<Value>(result));
  }

  unsigned dim;
  int64_t at;
  llvm::DenseMap<Value, IntegerAttr> values;
};

/// The leaves of an and-tree of conditions.
void collectConjuncts(Value condition, SmallVectorImpl<Value> &leaves) {
  if (auto conjunction = condition.getDefiningOp<arith::AndIOp>()) {
    collectConjuncts(conjunction.getLhs(), leaves);
    collectConjuncts(conjunction.getRhs(), leaves);
    return;
  }
  leaves.push_back(condition);
}
} // namespace

FailureOr<kf::ZeroInsertion> kf::analyzeZeroInsertion(Value input,
                                                      std::string *whyNot) {
  auto refuse = [&](const Twine &reason) -> FailureOr<ZeroInsertion> {
    if (whyNot)
      *whyNot = reason.str();
    return failure();
  };
  auto gather = input.getDefiningOp<linalg::GenericOp>();
  if (!gather || gather.getNumDpsInputs() != 0 || gather.getNumResults() != 1 ||
      gather.getNumParallelLoops() != gather.getNumLoops() ||
      !gather.getIndexingMapsArray()[0].isIdentity())
    return refuse("the input is not a gather (an all-parallel generic "
                  "without inputs)");
  auto outputType = dyn_cast<RankedTensorType>(input.getType());
  if (!outputType || !outputType.hasStaticShape())
    return refuse("the gather's result is not statically shaped");
  Block &body = gather.getRegion().front();
  Value yielded = body.getTerminator()->getOperand(0);
  Value condition;
  if (auto select = yielded.getDefiningOp<arith::SelectOp>()) {
    FloatAttr zero;
    if (!matchPattern(select.getFalseValue(), m_Constant(&zero)) ||
        !zero.getValue().isZero())
      return refuse("the gather's value outside the source is not zero");
    condition = select.getCondition();
    yielded = select.getTrueValue();
  }
  auto extract = yielded.getDefiningOp<tensor::ExtractOp>();
  if (!extract || extract->getParentRegion() != &gather.getRegion())
    return refuse("the gather does not yield an element of its source");
  ZeroInsertion insertion;
  insertion.source = extract.getTensor();
  if (insertion.source.getParentRegion() == &gather.getRegion())
    return refuse("the gather's source is computed in its body");
  auto sourceType = cast<RankedTensorType>(insertion.source.getType());
  ArrayRef<int64_t> outputShape = outputType.getShape();
  ArrayRef<int64_t> sourceShape = sourceType.getShape();
  unsigned rank = outputShape.size();
  if (sourceType.getRank() != rank || rank < 3 ||
      !sourceType.hasStaticShape() || sourceShape[0] != outputShape[0] ||
      sourceShape[1] != outputShape[1])
    return refuse("the gather's source is not the input before padding");
  // Batch and channels pass through; each spatial index depends on its own
  // loop alone, and so does each part of the condition.
  for (unsigned dim = 0; dim < 2; ++dim) {
    auto index = extract.getIndices()[dim].getDefiningOp<linalg::IndexOp>();
    if (!index || index.getDim() != dim)
      return refuse("the gather moves the batch or channel dimension");
  }
  SmallVector<SmallVector<Value>> conditionsOfDim(rank);
  if (condition) {
    SmallVector<Value> leaves;
    collectConjuncts(condition, leaves);
    for (Value leaf : leaves) {
      std::optional<llvm::SmallSet<unsigned, 2>> dims = indexDependences(leaf);
      if (!dims || dims->size() != 1 || *dims->begin() < 2)
        return refuse("a condition of the gather is not on one spatial "
                      "index");
      conditionsOfDim[*dims->begin()].push_back(leaf);
    }
  }
  for (unsigned dim = 2; dim < rank; ++dim) {
    Value sourceIndex = extract.getIndices()[dim];
    std::optional<llvm::SmallSet<unsigned, 2>> dims =
        indexDependences(sourceIndex);
    if (!dims || dims->size() > 1 ||
        (dims->size() == 1 && *dims->begin() != dim))
      return refuse("a spatial source index depends on another loop");
    // Element z of this dimension: whether it holds a source element, and
    // which.
    SmallVector<std::pair<int64_t, int64_t>> held;
    for (int64_t z = 0; z < outputShape[dim]; ++z) {
      IndexEvaluator evaluator(dim, z);
      bool valid = true;
      for (Value leaf : conditionsOfDim[dim]) {
        std::optional<int64_t> holds = evaluator.evaluate(leaf);
        if (!holds)
          return refuse("a condition of the gather cannot be evaluated");
        valid = valid && *holds;
      }
      if (!valid)
        continue;
      std::optional<int64_t> source = evaluator.evaluate(sourceIndex);
      if (!source)
        return refuse("a source index of the gather cannot be evaluated");
      if (*source < 0 || *source >= sourceShape[dim])
        return refuse("the gather reads outside its source");
      held.push_back({z, *source});
    }
    if (held.empty())
      return refuse("the gather holds no source element along a dimension");
    int64_t stride = held.size() > 1 ? held[1].first - held[0].first : 1;
    if (stride < 1)
      return refuse("the gather's positions do not grow");
    int64_t low = held[0].first - stride * held[0].second;
    // The positions held must be exactly the lattice low + stride * j,
    // j over the source, that falls inside the result.
    size_t next = 0;
    for (int64_t z = 0; z < outputShape[dim]; ++z) {
      int64_t offset = z - low;
      bool onLattice = llvm::mod(offset, stride) == 0 && offset >= 0 &&
                       offset / stride < sourceShape[dim];
      bool isHeld = next < held.size() && held[next].first == z;
      if (onLattice != isHeld ||
          (isHeld && held[next].second != offset / stride))
        return refuse("the gather is not a zero insertion with one stride");
      if (isHeld)
        ++next;
    }
    insertion.stride.push_back(stride);
    insertion.low.push_back(low);
  }
  return insertion;
}

FailureOr<kf::ConvolutionGemm>
kf::analyzeConvolutionGemm(Operation *op, int64_t maxColumnBytes,
                           std::string *whyNot) {
  auto refuse = [&](const Twine &reason) -> FailureOr<ConvolutionGemm> {
    if (whyNot)
      *whyNot = reason.str();
    return failure();
  };
  if (!isa<linalg::Conv1DNcwFcwOp, linalg::Conv2DNchwFchwOp,
           linalg::Conv3DNcdhwFcdhwOp>(op))
    return refuse("not a named non-grouped NC... convolution");
  SmallVector<ArrayRef<int64_t>, 3> shapes;
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.getElementType().isF32() || !type.hasStaticShape())
      return refuse("operands must be statically shaped f32 tensors");
    shapes.push_back(type.getShape());
  }
  ArrayRef<int64_t> weight = shapes[1], output = shapes[2];
  ConvolutionGemm gemm;
  gemm.spatialRank = output.size() - 2;
  gemm.strides = windowAttribute(op, "strides", gemm.spatialRank);
  gemm.dilations = windowAttribute(op, "dilations", gemm.spatialRank);
  gemm.filters = output[1];
  gemm.taps = weight[1];
  gemm.pixels = output[0];
  FailureOr<ZeroInsertion> insertion = analyzeZeroInsertion(op->getOperand(0));
  bool split =
      succeeded(insertion) &&
      llvm::any_of(insertion->stride, [](int64_t s) { return s > 1; }) &&
      llvm::all_of(gemm.strides, [](int64_t s) { return s == 1; });
  if (split)
    gemm.zeroInsertion = *insertion;
  for (unsigned dim = 0; dim < gemm.spatialRank; ++dim) {
    if (!split) {
      gemm.taps *= weight[2 + dim];
      gemm.pixels *= output[2 + dim];
      continue;
    }
    // Output o = phase + stride * q and tap k read element o + k * d of
    // the zero-inserted input, which holds source[q + offset] exactly when
    // phase + k * d - low is a multiple of the stride.
    int64_t stride = insertion->stride[dim], low = insertion->low[dim];
    auto &phaseTaps = gemm.tapsOfPhase.emplace_back(stride);
    int64_t most = 0;
    for (int64_t phase = 0; phase < stride; ++phase) {
      for (int64_t k = 0; k < weight[2 + dim]; ++k) {
        int64_t offset = phase + k * gemm.dilations[dim] - low;
        if (llvm::mod(offset, stride) == 0)
          phaseTaps[phase].push_back(
              {k, llvm::divideFloorSigned(offset, stride)});
      }
      most = std::max<int64_t>(most, phaseTaps[phase].size());
    }
    gemm.phases *= stride;
    gemm.phaseTaps.push_back(most);
    gemm.phasePixels.push_back((output[2 + dim] + stride - 1) / stride);
    gemm.taps *= most;
    gemm.pixels *= gemm.phasePixels.back();
  }
  gemm.paddedFilters = llvm::alignTo(gemm.filters, 64);
  gemm.paddedTaps = llvm::alignTo(gemm.taps, 16);
  gemm.paddedPixels = llvm::alignTo(gemm.pixels, 128);
  if (gemm.columnBytes() > maxColumnBytes)
    return refuse(llvm::formatv("its im2col matrix needs {0} bytes, more "
                                "than the {1} allowed",
                                gemm.columnBytes(), maxColumnBytes));
  return gemm;
}
