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
//===----------------------------------------------------------------------===//

#ifndef KF_TRANSFORMS_CONVOLUTIONGEMM_H
#define KF_TRANSFORMS_CONVOLUTIONGEMM_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace kf {

/// The GEMM of a convolution, each dimension padded with zeros to what the
/// GEMM kernel's tiles divide (filters to 64, taps to 16, pixels to 128).
struct ConvolutionGemm {
  /// Spatial dimensions (1, 2 or 3).
  unsigned spatialRank = 0;
  /// M: the filters (output channels).
  int64_t filters = 0, paddedFilters = 0;
  /// K: input channels times kernel taps.
  int64_t taps = 0, paddedTaps = 0;
  /// N: batch times output pixels.
  int64_t pixels = 0, paddedPixels = 0;
  llvm::SmallVector<int64_t, 3> strides, dilations;

  /// The bytes of the im2col matrix in global memory.
  int64_t columnBytes() const { return paddedTaps * paddedPixels * 4; }
};

/// The largest im2col matrix the rewrite writes by default: 32 GiB of the
/// H200's 141 (the Level 2 convolutions over 256x256 and 512x512 images
/// need 9-10 GB, the transposed ones over 256x256 outputs 19-20 GB; the
/// five larger transposed ones stay direct convolutions).
constexpr int64_t kDefaultMaxColumnBytes = int64_t(32) << 30;

/// The GEMM of `op` when it is a convolution kf-convolution-to-gemm
/// rewrites (a named non-grouped convolution with static f32 operands whose
/// im2col fits in `maxColumnBytes`); the reason otherwise.
llvm::FailureOr<ConvolutionGemm>
analyzeConvolutionGemm(mlir::Operation *op,
                       int64_t maxColumnBytes = kDefaultMaxColumnBytes,
                       std::string *whyNot = nullptr);

} // namespace kf

#endif // KF_TRANSFORMS_CONVOLUTIONGEMM_H
