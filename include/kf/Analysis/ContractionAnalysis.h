//===- ContractionAnalysis.h - Loops of a GEMM-shaped contraction *- C++
//-*-===//
//
// Which loops of a linalg contraction are its M, N, K and batch loops, how
// its operands lie in memory, and which runs of loops can be collapsed into
// one: what the pipelined GEMM kernel (kf/Schedule/ContractionSchedule.h)
// and the passes that prepare contractions for it
// (kf-collapse-contraction-dims, kf-transpose-contraction-operands,
// kf-fuse-contraction-epilogues, kf-commute-sum-contraction) ask of an op.
//
//===----------------------------------------------------------------------===//

#ifndef KF_ANALYSIS_CONTRACTIONANALYSIS_H
#define KF_ANALYSIS_CONTRACTIONANALYSIS_H

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <string>

namespace kf {

/// The loops of a contraction that the GEMM kernel maps: one M loop, one N
/// loop, one K loop, and outer parallel loops (batch, or further M loops of
/// size 1 per block) of which at most one may be larger than 1.
struct ContractionLoops {
  unsigned numLoops = 0;
  unsigned mLoop = 0, nLoop = 0, kLoop = 0;
  int64_t m = 0, n = 0, k = 0;
  /// The other parallel loops (each tiled by 1 over blocks), with sizes.
  llvm::SmallVector<unsigned, 2> outerLoops;
  llvm::SmallVector<int64_t, 2> outerSizes;
  /// The output's dimension of the M and N loops.
  unsigned outputMDim = 0, outputNDim = 0;
  /// The contiguous (innermost) loop of each operand: the copy of its tile
  /// into shared memory runs 16-byte vectors along it.
  unsigned aContiguousLoop = 0, bContiguousLoop = 0;
  /// The extent of each operand's innermost dimension in memory (its row
  /// length): 16-byte copies need rows that start 16-byte aligned.
  int64_t aRowLength = 0, bRowLength = 0;
  /// Whether each operand's rows run along K with its M (A) or N (B) loop
  /// just outside: the GEMM kernel then reads it down the columns of its
  /// shared-memory tile, which a swap of its last two dimensions
  /// (kf-transpose-contraction-operands) makes contiguous along M or N.
  bool aRowsAlongK = false, bRowsAlongK = false;

  bool rowsAlongK(unsigned operand) const {
    return operand == 0 ? aRowsAlongK : bRowsAlongK;
  }
};

/// Whether `op` is a contraction the GEMM kernel can compute: two f32
/// inputs and one f32 output, a multiply-add body, static shapes, one K
/// loop, and its output initialised by a linalg.fill used by `op` alone
/// (the kernel zeroes its accumulators itself). The reason otherwise.
llvm::FailureOr<ContractionLoops>
analyzeContraction(mlir::linalg::LinalgOp op, std::string *whyNot = nullptr);

/// The loops of a contraction that no GEMM tile divides (M or N not a
/// multiple of 64, K not a multiple of 8: L1-8's 8205 x 5921 x 2949) padded
/// with zeros until tiles do: M and N to multiples of 128 (64 below 1024),
/// K to a multiple of 16; the operands' row lengths follow, so that their
/// rows start 16-byte aligned. Nullopt where the loops need no padding, or
/// where it would add more than `maxOverhead` of the multiply-adds (a
/// matrix-vector product's N of 1 padded to 64). kf-pad-contractions pads
/// to these sizes.
std::optional<ContractionLoops>
paddedContractionLoops(const ContractionLoops &loops,
                       double maxOverhead = 0.125);

/// Whether kf-transpose-contraction-products rewrites the contraction
/// C = A B^T of `loops` as the transpose of B A^T: no batch loop, the
/// output [M, N], both operands' rows along K (x @ W.T), M at most `maxM`
/// and N at least 16 M.
bool qualifiesForTransposedProduct(const ContractionLoops &loops, int64_t maxM);

/// The runs of a contraction's batch loops, of its M loops and of its N
/// loops that every indexing map keeps adjacent and in order, each of which
/// can become one loop (kf-collapse-contraction-dims); none for other ops.
llvm::SmallVector<mlir::ReassociationIndices>
collapsibleContractionLoops(mlir::linalg::LinalgOp op);

} // namespace kf

#endif // KF_ANALYSIS_CONTRACTIONANALYSIS_H
