//===- ConvolutionGemm.h - Convolutions as an explicit im2col and a GEMM
//-*-===//
//
// A convolution (linalg's conv_1d_ncw_fcw, conv_2d_nchw_fchw and
// conv_3d_ncdhw_fcdhw, strided and dilated; padding and transposed
// convolutions reach them as gathers of the input) is a GEMM of
// M = F filters, N = B * P... output pixels and K = C * R... taps:
// out[f, (b, p...)] = sum_(c, r...) W[f, (c, r...)] * col[(c, r...), (b, p...)]
// with col the input's im2col. kf-convolution-to-gemm writes col into
// global memory once (an explicit im2col, not the implicit GEMM of cuDNN
// whose loader gathers while staging the tile) and computes the product
// with the pipelined GEMM kernel (ContractionSchedule.h).
//
// A transposed convolution reaches kf as a gather that inserts stride - 1
// zeros between the input's elements, followed by a stride-1 convolution;
// its im2col would be mostly those zeros (3/4 of it at stride 2 in 2-D,
// 7/8 in 3-D). Its GEMM is instead split by stride phase: the outputs
// o = phase + stride * q of one phase are reached only by the taps whose
// input lands on a source element, so each phase is a GEMM over the source
// itself with those taps, and the phases are one batched GEMM.
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_CONVOLUTIONGEMM_H
#define KF_ANALYSIS_CONVOLUTIONGEMM_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace kf {

/// A convolution's input written by a gather that inserts zeros: along
/// each spatial dimension, element z of the gather's result is
/// source[(z - low) / stride] where that is an integer index into the
/// source, and zero elsewhere (the zero-inserted, padded or cropped input
/// of a transposed convolution). Recognized by evaluating the gather's
/// index arithmetic, not by its spelling.
struct ZeroInsertion {
  /// The tensor the gather reads.
  mlir::Value source;
  llvm::SmallVector<int64_t, 3> stride, low;
};

/// One kernel tap of a stride phase: the tap's index in the kernel, and the
/// offset it adds to the phase's output index q to reach the source element
/// it multiplies (source index q + offset).
struct PhaseTap {
  int64_t kernelIndex = 0, sourceOffset = 0;
};

/// The GEMM of a convolution, each dimension padded with zeros to what the
/// GEMM kernel's tiles divide (filters to 64, taps to 16, pixels to 128).
struct ConvolutionGemm {
  /// Spatial dimensions (1, 2 or 3).
  unsigned spatialRank = 0;
  /// M: the filters (output channels).
  int64_t filters = 0, paddedFilters = 0;
  /// K: input channels times kernel taps (per phase: the most taps any
  /// phase has, `phaseTaps`).
  int64_t taps = 0, paddedTaps = 0;
  /// N: batch times output pixels (per phase: `phasePixels`).
  int64_t pixels = 0, paddedPixels = 0;
  llvm::SmallVector<int64_t, 3> strides, dilations;

  /// Set when the convolution reads a zero-inserting gather with a stride
  /// above 1: the GEMM is then batched over `phases` stride phases.
  std::optional<ZeroInsertion> zeroInsertion;
  int64_t phases = 1;
  /// Per spatial dimension and phase, the taps that reach a source element.
  using Taps = llvm::SmallVector<PhaseTap, 4>;
  llvm::SmallVector<llvm::SmallVector<Taps, 2>, 3> tapsOfPhase;
  /// Per spatial dimension: the most taps of any phase, and the outputs of
  /// a phase (ceil(output size / stride)).
  llvm::SmallVector<int64_t, 3> phaseTaps, phasePixels;

  /// The bytes of the im2col matrix in global memory.
  int64_t columnBytes() const { return phases * paddedTaps * paddedPixels * 4; }
};

/// The zero insertion of `input` when it is the result of such a gather
/// (a linalg.generic of parallel loops without inputs whose body yields a
/// tensor.extract of the source, or zero, per an index condition on each
/// dimension); the reason otherwise.
llvm::FailureOr<ZeroInsertion>
analyzeZeroInsertion(mlir::Value input, std::string *whyNot = nullptr);

/// The largest im2col matrix the rewrite writes by default: 32 GiB of the
/// H200's 141 (the Level 2 convolutions over 256x256 and 512x512 images
/// need 9-10 GB, the transposed ones over 256x256 outputs 19-20 GB; the
/// five larger transposed ones stay direct convolutions).
constexpr int64_t kDefaultMaxColumnBytes = int64_t(32) << 30;

/// The GEMM of `op` when it is a convolution kf-convolution-to-gemm
/// rewrites (a named non-grouped convolution with static f32 operands whose
/// im2col fits in `maxColumnBytes`), split by stride phase when it is a
/// stride-1 convolution of a zero-inserting gather; the reason otherwise.
llvm::FailureOr<ConvolutionGemm>
analyzeConvolutionGemm(mlir::Operation *op,
                       int64_t maxColumnBytes = kDefaultMaxColumnBytes,
                       std::string *whyNot = nullptr);

} // namespace kf

#endif // KF_ANALYSIS_CONVOLUTIONGEMM_H
