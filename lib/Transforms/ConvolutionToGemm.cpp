//===- ConvolutionToGemm.cpp - Convolutions as im2col and a GEMM ----------===//
//
// kf writes a convolution's kernel as a direct convolution: each thread
// walks C * R * S taps for its outputs, and the suite's convolutions ran at
// 0.01-0.4x eager. As a GEMM (ConvolutionGemm.h) the same sums run on the
// pipelined GEMM kernel, which reaches 0.8 of cuBLAS. This pass writes the
// GEMM's operands explicitly: the im2col matrix col[(c, r...), (b, p...)]
// (zero where a dimension is padded to the tile), the weight as an
// [F, C * R...] matrix (a view, or a zero-padded copy), the GEMM itself as
// a zero-filled linalg.generic contraction, and an elementwise op that
// adds the convolution's initial value (its bias) to the GEMM's output
// read back in the convolution's layout. Upstream's
// transform.structured.convert_conv2d_to_img2col covers 2-D NHWC/NCHW
// convolutions only and produces a batched matmul per image, which the
// GEMM kernel cannot take (its weight has no batch loop).
//
//===----------------------------------------------------------------------===//

#include "PaddedGather.h"

#include "kf/Analysis/ConvolutionGemm.h"
#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/FormatVariadic.h"

#include <array>

namespace kf {
#define GEN_PASS_DEF_KFCONVOLUTIONTOGEMM
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;
using kf::buildPaddedGather;
using kf::zeroOutside;

namespace {
/// Splits `flat` into the coordinates of a row-major index over `sizes`.
SmallVector<Value> delinearize(OpBuilder &builder, Location loc, Value flat,
                               ArrayRef<int64_t> sizes) {
  SmallVector<Value> coordinates(sizes.size());
  for (int dim = sizes.size() - 1; dim > 0; --dim) {
    Value size = arith::ConstantIndexOp::create(builder, loc, sizes[dim]);
    coordinates[dim] = arith::RemUIOp::create(builder, loc, flat, size);
    flat = arith::DivUIOp::create(builder, loc, flat, size);
  }
  coordinates[0] = flat;
  return coordinates;
}

/// The im2col matrix col[k, m] of `input`: k = (c, r...) over the weight's
/// [C, R...] (`tapSizes`), m = (b, p...) over the output's [B, P...]
/// (`pixelSizes`), zero in the padding rows and columns.
Value buildColumns(OpBuilder &rewriter, Location loc, Value input,
                   const kf::ConvolutionGemm &gemm, ArrayRef<int64_t> tapSizes,
                   ArrayRef<int64_t> pixelSizes) {
  return buildPaddedGather(
      rewriter, loc,
      {{gemm.taps, gemm.paddedTaps}, {gemm.pixels, gemm.paddedPixels}},
      [&](OpBuilder &builder, Location loc, ArrayRef<Value> indices) {
        SmallVector<Value> tap =
            delinearize(builder, loc, indices[0], tapSizes);
        SmallVector<Value> pixel =
            delinearize(builder, loc, indices[1], pixelSizes);
        SmallVector<Value> coordinates = {pixel[0], tap[0]};
        for (unsigned dim = 0; dim < gemm.spatialRank; ++dim) {
          Value stride =
              arith::ConstantIndexOp::create(builder, loc, gemm.strides[dim]);
          Value dilation =
              arith::ConstantIndexOp::create(builder, loc, gemm.dilations[dim]);
          coordinates.push_back(arith::AddIOp::create(
              builder, loc,
              arith::MulIOp::create(builder, loc, pixel[1 + dim], stride),
              arith::MulIOp::create(builder, loc, tap[1 + dim], dilation)));
        }
        return tensor::ExtractOp::create(builder, loc, input, coordinates)
            .getResult();
      });
}

/// The weight as an [F, K] matrix: a view of its rows, zero-padded by a
/// copy where the tiles need it.
Value buildWeightRows(OpBuilder &rewriter, Location loc, Value weight,
                      const kf::ConvolutionGemm &gemm) {
  SmallVector<ReassociationIndices> weightRows = {{0}, {}};
  for (unsigned dim = 1; dim < 2 + gemm.spatialRank; ++dim)
    weightRows[1].push_back(dim);
  Value rows =
      tensor::CollapseShapeOp::create(rewriter, loc, weight, weightRows);
  if (gemm.paddedFilters == gemm.filters && gemm.paddedTaps == gemm.taps)
    return rows;
  return buildPaddedGather(
      rewriter, loc,
      {{gemm.filters, gemm.paddedFilters}, {gemm.taps, gemm.paddedTaps}},
      [&](OpBuilder &builder, Location loc, ArrayRef<Value> indices) {
        return tensor::ExtractOp::create(builder, loc, rows, indices)
            .getResult();
      });
}

/// Field `field` (the kernel index or the source offset) of tap `tap` of
/// phase `phase` along one spatial dimension, as a chain of selects over
/// the phases' taps (a few per dimension), and whether the phase has that
/// tap (the phases with fewer taps than the most are padded with zeros).
std::pair<Value, Value> phaseTapField(OpBuilder &builder, Location loc,
                                      ArrayRef<kf::ConvolutionGemm::Taps> taps,
                                      Value phase, Value tap,
                                      int64_t kf::PhaseTap::*field) {
  Value result = arith::ConstantIndexOp::create(builder, loc, 0);
  Value exists;
  for (auto [phaseIndex, phaseTaps] : llvm::enumerate(taps)) {
    Value inPhase = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::eq, phase,
        arith::ConstantIndexOp::create(builder, loc, phaseIndex));
    for (auto [tapIndex, phaseTap] : llvm::enumerate(phaseTaps)) {
      Value isTap = arith::AndIOp::create(
          builder, loc, inPhase,
          arith::CmpIOp::create(
              builder, loc, arith::CmpIPredicate::eq, tap,
              arith::ConstantIndexOp::create(builder, loc, tapIndex)));
      result = arith::SelectOp::create(
          builder, loc, isTap,
          arith::ConstantIndexOp::create(builder, loc, phaseTap.*field),
          result);
      exists =
          exists ? arith::OrIOp::create(builder, loc, exists, isTap).getResult()
                 : isTap;
    }
  }
  if (!exists)
    exists = arith::ConstantIntOp::create(builder, loc, 0, 1);
  return {result, exists};
}

/// The im2col matrices of a zero-inserted input's stride phases,
/// col[phase, (c, t...), (b, q...)] = source[b, c, q + offset(phase, t)...]
/// over the gather's source (zero for a tap the phase lacks, a source index
/// outside the source, and the padding).
Value buildPhaseColumns(OpBuilder &rewriter, Location loc,
                        const kf::ConvolutionGemm &gemm,
                        ArrayRef<int64_t> tapSizes,
                        ArrayRef<int64_t> pixelSizes) {
  const kf::ZeroInsertion &insertion = *gemm.zeroInsertion;
  ArrayRef<int64_t> sourceShape =
      cast<RankedTensorType>(insertion.source.getType()).getShape();
  return buildPaddedGather(
      rewriter, loc,
      {{gemm.phases, gemm.phases},
       {gemm.taps, gemm.paddedTaps},
       {gemm.pixels, gemm.paddedPixels}},
      [&](OpBuilder &builder, Location loc, ArrayRef<Value> indices) {
        SmallVector<Value> phase =
            delinearize(builder, loc, indices[0], insertion.stride);
        SmallVector<Value> tap =
            delinearize(builder, loc, indices[1], tapSizes);
        SmallVector<Value> pixel =
            delinearize(builder, loc, indices[2], pixelSizes);
        SmallVector<Value> coordinates = {pixel[0], tap[0]}, valid;
        Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
        for (unsigned dim = 0; dim < gemm.spatialRank; ++dim) {
          auto [offset, exists] =
              phaseTapField(builder, loc, gemm.tapsOfPhase[dim], phase[dim],
                            tap[1 + dim], &kf::PhaseTap::sourceOffset);
          Value index =
              arith::AddIOp::create(builder, loc, pixel[1 + dim], offset);
          Value last = arith::ConstantIndexOp::create(builder, loc,
                                                      sourceShape[2 + dim] - 1);
          valid.push_back(exists);
          valid.push_back(arith::CmpIOp::create(
              builder, loc, arith::CmpIPredicate::sge, index, zero));
          valid.push_back(arith::CmpIOp::create(
              builder, loc, arith::CmpIPredicate::sle, index, last));
          coordinates.push_back(arith::MaxSIOp::create(
              builder, loc, arith::MinSIOp::create(builder, loc, index, last),
              zero));
        }
        Value value = tensor::ExtractOp::create(builder, loc, insertion.source,
                                                coordinates);
        return zeroOutside(builder, loc, value, valid);
      });
}

/// The weight rows of each stride phase, w[phase, f, (c, t...)] =
/// weight[f, c, kernelIndex(phase, t)...], zero for a tap the phase lacks
/// and in the padding.
Value buildPhaseWeights(OpBuilder &rewriter, Location loc, Value weight,
                        const kf::ConvolutionGemm &gemm,
                        ArrayRef<int64_t> tapSizes) {
  return buildPaddedGather(
      rewriter, loc,
      {{gemm.phases, gemm.phases},
       {gemm.filters, gemm.paddedFilters},
       {gemm.taps, gemm.paddedTaps}},
      [&](OpBuilder &builder, Location loc, ArrayRef<Value> indices) {
        SmallVector<Value> phase =
            delinearize(builder, loc, indices[0], gemm.zeroInsertion->stride);
        SmallVector<Value> tap =
            delinearize(builder, loc, indices[2], tapSizes);
        SmallVector<Value> coordinates = {indices[1], tap[0]}, valid;
        for (unsigned dim = 0; dim < gemm.spatialRank; ++dim) {
          auto [kernelIndex, exists] =
              phaseTapField(builder, loc, gemm.tapsOfPhase[dim], phase[dim],
                            tap[1 + dim], &kf::PhaseTap::kernelIndex);
          coordinates.push_back(kernelIndex);
          valid.push_back(exists);
        }
        Value value =
            tensor::ExtractOp::create(builder, loc, weight, coordinates);
        return zeroOutside(builder, loc, value, valid);
      });
}

/// out[f, m] = sum_k weights[f, k] * col[k, m], zero-filled: loops
/// (f, m, k), the GEMM kernel's M, N and K; with stride phases, a batch of
/// them: loops (phase, f, m, k).
Value buildProduct(OpBuilder &rewriter, Location loc, Value weights,
                   Value columns, const kf::ConvolutionGemm &gemm) {
  MLIRContext *context = rewriter.getContext();
  Type f32 = rewriter.getF32Type();
  bool batched = gemm.zeroInsertion.has_value();
  SmallVector<int64_t, 3> productShape = {gemm.paddedFilters,
                                          gemm.paddedPixels};
  if (batched)
    productShape.insert(productShape.begin(), gemm.phases);
  auto productType = RankedTensorType::get(productShape, f32);
  Value zero =
      arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0.0));
  Value zeros =
      linalg::FillOp::create(
          rewriter, loc, zero,
          tensor::EmptyOp::create(rewriter, loc, productType.getShape(), f32)
              .getResult())
          .getResult(0);
  unsigned first = batched ? 1 : 0, numLoops = first + 3;
  AffineExpr f = getAffineDimExpr(first, context),
             m = getAffineDimExpr(first + 1, context),
             k = getAffineDimExpr(first + 2, context);
  auto map = [&](ArrayRef<AffineExpr> results) {
    SmallVector<AffineExpr, 3> all;
    if (batched)
      all.push_back(getAffineDimExpr(0, context));
    llvm::append_range(all, results);
    return AffineMap::get(numLoops, 0, all, context);
  };
  SmallVector<utils::IteratorType> iterators = kf::allParallel(numLoops);
  iterators.back() = utils::IteratorType::reduction;
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{productType},
             ValueRange{weights, columns}, ValueRange{zeros},
             ArrayRef<AffineMap>{map({f, k}), map({k, m}), map({f, m})},
             iterators,
             [&](OpBuilder &builder, Location loc, ValueRange args) {
               Value term =
                   arith::MulFOp::create(builder, loc, args[0], args[1]);
               linalg::YieldOp::create(
                   builder, loc,
                   arith::AddFOp::create(builder, loc, term, args[2])
                       .getResult());
             })
      .getResult(0);
}

/// The product back in the convolution's layout, read transposed by an op
/// that adds the convolution's initial value `init`: the exact product is
/// viewed as [F, B, P...] (an expand_shape); a padded one is flattened and
/// read in place by a map that linearizes (f, b, p...) into its element,
/// since a slice of it would be a strided view on the host, which kf's
/// launch plans do not make (and linalg wants a plain loop's operand
/// dimension to be the loop's size).
Value readBack(OpBuilder &rewriter, Location loc, Value product, Value init,
               const kf::ConvolutionGemm &gemm, ArrayRef<int64_t> pixelSizes) {
  MLIRContext *context = rewriter.getContext();
  Type f32 = rewriter.getF32Type();
  auto outputType = cast<RankedTensorType>(init.getType());
  ArrayRef<int64_t> outputShape = outputType.getShape();
  unsigned outputRank = 2 + gemm.spatialRank;
  Value view = product;
  SmallVector<AffineExpr> transposed;
  if (gemm.paddedFilters == gemm.filters && gemm.paddedPixels == gemm.pixels) {
    SmallVector<int64_t> viewShape = {gemm.filters};
    viewShape.append(pixelSizes.begin(), pixelSizes.end());
    SmallVector<ReassociationIndices> pixelDims = {{0}, {}};
    for (unsigned dim = 1; dim < outputRank; ++dim)
      pixelDims[1].push_back(dim);
    view = tensor::ExpandShapeOp::create(rewriter, loc,
                                         RankedTensorType::get(viewShape, f32),
                                         product, pixelDims);
    transposed = {getAffineDimExpr(1, context), getAffineDimExpr(0, context)};
    for (unsigned dim = 2; dim < outputRank; ++dim)
      transposed.push_back(getAffineDimExpr(dim, context));
  } else {
    view = tensor::CollapseShapeOp::create(
        rewriter, loc, product, ArrayRef<ReassociationIndices>{{0, 1}});
    AffineExpr column = getAffineDimExpr(0, context);
    for (unsigned dim = 2; dim < outputRank; ++dim)
      column = column * outputShape[dim] + getAffineDimExpr(dim, context);
    transposed = {getAffineDimExpr(1, context) * gemm.paddedPixels + column};
  }
  AffineMap identity = AffineMap::getMultiDimIdentityMap(outputRank, context);
  // The initial value is an input, so that elementwise fusion can fuse
  // its producer (a broadcast bias) into this op, and this op into the
  // elementwise ops after the convolution.
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{outputType}, ValueRange{view, init},
             ValueRange{tensor::EmptyOp::create(rewriter, loc,
                                                outputType.getShape(), f32)},
             ArrayRef<AffineMap>{
                 AffineMap::get(outputRank, 0, transposed, context), identity,
                 identity},
             kf::allParallel(outputRank),
             [&](OpBuilder &builder, Location loc, ValueRange args) {
               linalg::YieldOp::create(
                   builder, loc,
                   arith::AddFOp::create(builder, loc, args[0], args[1])
                       .getResult());
             })
      .getResult(0);
}

/// The stride phases' product back in the convolution's layout, plus the
/// convolution's initial value `init`: output o = phase + stride * q is
/// element [phase, f, (b, q...)] of the [phases, F, B * Q...] product. The
/// op reads it with tensor.extract, not through an indexing map: a map with
/// `o mod stride` is not monotonic, and tiling slices an operand between
/// the map's values at a tile's first and last point, which would cut the
/// phases a tile reads out of its slice.
Value readBackPhases(OpBuilder &rewriter, Location loc, Value product,
                     Value init, const kf::ConvolutionGemm &gemm) {
  MLIRContext *context = rewriter.getContext();
  Type f32 = rewriter.getF32Type();
  auto outputType = cast<RankedTensorType>(init.getType());
  unsigned outputRank = 2 + gemm.spatialRank;
  AffineMap identity = AffineMap::getMultiDimIdentityMap(outputRank, context);
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{outputType}, ValueRange{init},
             ValueRange{tensor::EmptyOp::create(rewriter, loc,
                                                outputType.getShape(), f32)},
             ArrayRef<AffineMap>{identity, identity},
             kf::allParallel(outputRank),
             [&](OpBuilder &builder, Location loc, ValueRange args) {
               auto constant = [&](int64_t value) -> Value {
                 return arith::ConstantIndexOp::create(builder, loc, value);
               };
               Value phase = constant(0);
               Value column = linalg::IndexOp::create(builder, loc, 0);
               for (unsigned dim = 0; dim < gemm.spatialRank; ++dim) {
                 Value stride = constant(gemm.zeroInsertion->stride[dim]);
                 Value o = linalg::IndexOp::create(builder, loc, 2 + dim);
                 phase = arith::AddIOp::create(
                     builder, loc,
                     arith::MulIOp::create(builder, loc, phase, stride),
                     arith::RemUIOp::create(builder, loc, o, stride));
                 column = arith::AddIOp::create(
                     builder, loc,
                     arith::MulIOp::create(builder, loc, column,
                                           constant(gemm.phasePixels[dim])),
                     arith::DivUIOp::create(builder, loc, o, stride));
               }
               Value filter = linalg::IndexOp::create(builder, loc, 1);
               Value element = tensor::ExtractOp::create(
                   builder, loc, product, ValueRange{phase, filter, column});
               linalg::YieldOp::create(
                   builder, loc,
                   arith::AddFOp::create(builder, loc, element, args[0])
                       .getResult());
             })
      .getResult(0);
}

Value rewrite(RewriterBase &rewriter, linalg::LinalgOp conv,
              const kf::ConvolutionGemm &gemm) {
  Location loc = conv.getLoc();
  rewriter.setInsertionPoint(conv);
  Value input = conv.getDpsInputOperand(0)->get();
  Value weight = conv.getDpsInputOperand(1)->get();
  Value init = conv.getDpsInitOperand(0)->get();
  ArrayRef<int64_t> weightShape =
      cast<RankedTensorType>(weight.getType()).getShape();
  ArrayRef<int64_t> outputShape =
      cast<RankedTensorType>(init.getType()).getShape();
  // The GEMM's K = (c, r...) and N = (b, p...); per stride phase, the
  // phase's taps and outputs.
  SmallVector<int64_t> tapSizes = {weightShape[1]};
  SmallVector<int64_t> pixelSizes = {outputShape[0]};
  if (gemm.zeroInsertion) {
    llvm::append_range(tapSizes, gemm.phaseTaps);
    llvm::append_range(pixelSizes, gemm.phasePixels);
  } else {
    llvm::append_range(tapSizes, weightShape.drop_front(2));
    llvm::append_range(pixelSizes, outputShape.drop_front(2));
  }
  Value columns, weights;
  if (gemm.zeroInsertion) {
    columns = buildPhaseColumns(rewriter, loc, gemm, tapSizes, pixelSizes);
    weights = buildPhaseWeights(rewriter, loc, weight, gemm, tapSizes);
  } else {
    columns = buildColumns(rewriter, loc, input, gemm, tapSizes, pixelSizes);
    weights = buildWeightRows(rewriter, loc, weight, gemm);
  }
  Value product = buildProduct(rewriter, loc, weights, columns, gemm);
  if (gemm.zeroInsertion)
    return readBackPhases(rewriter, loc, product, init, gemm);
  return readBack(rewriter, loc, product, init, gemm, pixelSizes);
}

struct KFConvolutionToGemmPass
    : kf::impl::KFConvolutionToGemmBase<KFConvolutionToGemmPass> {
  using Base::Base;
  void runOnOperation() override {
    SmallVector<std::pair<linalg::LinalgOp, kf::ConvolutionGemm>, 1> convs;
    getOperation().walk([&](linalg::LinalgOp op) {
      FailureOr<kf::ConvolutionGemm> gemm =
          kf::analyzeConvolutionGemm(op, maxColumnBytes);
      if (succeeded(gemm))
        convs.push_back({op, *gemm});
    });
    IRRewriter rewriter(&getContext());
    for (auto &[conv, gemm] : convs) {
      Operation *input = conv.getDpsInputOperand(0)->get().getDefiningOp();
      rewriter.replaceOp(conv, rewrite(rewriter, conv, gemm));
      // The zero-inserting gather that the phases read past, and the
      // empty tensor it wrote.
      if (!gemm.zeroInsertion || !input || !input->use_empty())
        continue;
      Operation *destination = cast<linalg::GenericOp>(input)
                                   .getDpsInitOperand(0)
                                   ->get()
                                   .getDefiningOp();
      rewriter.eraseOp(input);
      if (isa_and_nonnull<tensor::EmptyOp>(destination) &&
          destination->use_empty())
        rewriter.eraseOp(destination);
    }
  }
};
} // namespace
