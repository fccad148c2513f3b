//===- ContractionSchedule.h - The pipelined GEMM kernel kind ---*- C++ -*-===//
//
// A contraction (matmul, batch matmul, and linalg.generic contractions with
// transposed or permuted operands) can be scheduled as a register-tiled,
// software-pipelined GEMM kernel instead of the generic per-op mapping of
// Schedule.h: each block computes a BM x BN tile of the output, the K loop
// runs in steps of BK, every step's operand tiles are copied from global to
// shared memory with 16-byte cp.async copies into a multi-stage ring buffer,
// and each thread accumulates a TM x TN tile in registers with
// outer-product FMAs. The kernel is built from upstream transform ops (the
// chain of ../shared/notes/contractions.md): pad, map_copy_to_threads,
// bufferize_to_allocation into workgroup memory, multibuffer,
// create_async_groups, and kf-pipeline-async-copies (one barrier per stage).
//
//===----------------------------------------------------------------------===//

#ifndef KF_SCHEDULE_CONTRACTIONSCHEDULE_H
#define KF_SCHEDULE_CONTRACTIONSCHEDULE_H

#include "kf/Analysis/ContractionAnalysis.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace kf {

/// The shortest K for which the GEMM kernel's choices count a contraction
/// as compute-bound: from there its FMAs, not its output's writes, set its
/// time (the tile model's 8x8 tiles on a K-major A, the default's K-outer
/// copy of A).
constexpr int64_t kMinComputeBoundK = 1024;

/// The genes of the pipelined GEMM kernel. A tile with blockM == 0 is unset:
/// the op uses the generic mapping of OpSchedule instead.
struct ContractionTile {
  /// The block's output tile: rows (M) and columns (N).
  int64_t blockM = 0, blockN = 0;
  /// The K step: the depth of each operand tile staged in shared memory.
  int64_t blockK = 0;
  /// Each thread's output tile in registers; the block has
  /// (blockM / threadM) x (blockN / threadN) threads.
  int64_t threadM = 8, threadN = 8;
  /// Shared-memory stages of the cp.async pipeline (the ring buffer's
  /// depth); 2 is double buffering.
  int64_t stages = 3;
  /// When > 0, the kernel asks ptxas to fit this many blocks on an SM
  /// (`.minnctapersm`): registers are capped at 64K / (threads x blocks).
  int64_t minBlocksPerSM = 0;
  /// When > 1, blocks run in groups of this many output tile rows, each
  /// group down its columns (kf-swizzle-block-order), so that the blocks
  /// resident at once share operand rows and columns in L2; 0 or 1 is the
  /// grid's row-major order.
  int64_t blockGroup = 0;
  /// Whether operand tiles that threads read several 16-byte chunks of
  /// per row (B under 8 contiguous columns per thread) are stored with
  /// their chunks interleaved (kf-interleave-shared-columns), which keeps
  /// those reads free of bank conflicts. On unless the genome says
  /// "interleave": false.
  bool interleave = true;

  bool isSet() const { return blockM > 0; }
  int64_t numThreads() const { return (blockM / threadM) * (blockN / threadN); }
  /// Shared memory of the ring buffer, in bytes, for 4-byte elements.
  int64_t sharedBytes() const {
    return stages * (blockM * blockK + blockK * blockN) * 4;
  }
  bool operator==(const ContractionTile &other) const {
    return blockM == other.blockM && blockN == other.blockN &&
           blockK == other.blockK && threadM == other.threadM &&
           threadN == other.threadN && stages == other.stages &&
           minBlocksPerSM == other.minBlocksPerSM &&
           blockGroup == other.blockGroup && interleave == other.interleave;
  }
};

/// {"bm", "bn", "bk", "tm", "tn", "stages", "min_blocks" (optional, 0),
/// "group" (optional, 0), "interleave" (optional, true)}.
llvm::json::Value toJSON(const ContractionTile &tile);
bool fromJSON(const llvm::json::Value &value, ContractionTile &tile,
              llvm::json::Path path);

/// Why `tile` cannot compute `loops` (tiles that do not divide the loops,
/// too many threads, too much shared memory, ...), or nullopt when it can.
std::optional<std::string> checkContractionTile(const ContractionLoops &loops,
                                                const ContractionTile &tile);

/// The tile the analytic model picks: the largest output tile that still
/// gives every SM a block (132 SMs on the H200), a K step of 16 where K
/// allows, and as many stages as fit in 48 KB of static shared memory;
/// where A's tile is K-major and K is long (a compute-bound GEMM), 8x8
/// outputs per thread with two blocks per SM (128x128x8 at 4096^3).
/// Nullopt when no tile of the model's list divides the loops.
std::optional<ContractionTile>
defaultContractionTile(const ContractionLoops &loops);

/// How many ways to split the K loop of `loops` (split-K) so that blocks of
/// `tile` fill the SMs: each part becomes a batch of the same GEMM kernel
/// writing its partial sums, and a small kernel adds them up (in a fixed
/// order: the result does not depend on scheduling). 0 when the output
/// alone gives every SM a block, or when K is too short to split.
int64_t splitKFactor(const ContractionLoops &loops,
                     const ContractionTile &tile);

/// The tiles the rule experts try beside the default (each valid for
/// `loops`), best guesses first.
llvm::SmallVector<ContractionTile>
alternativeContractionTiles(const ContractionLoops &loops);

/// Renders the transform ops that tile op handle `%op<index>` (before
/// bufferization): blocks, the fused fill, the K loop, padded operand tiles
/// copied into workgroup memory by every thread with 16-byte vectors, the
/// threads' register tiles, vectorized. `fillHandle` names the handle of
/// the output's fill. With `epilogueHandle` (an elementwise op computing in
/// place on the contraction's result, see kf-fuse-contraction-epilogues),
/// the epilogue is what is tiled over blocks, the contraction is fused into
/// each block's tile through its destination, and each thread applies the
/// epilogue to its own output tile after the K loop. Leaves
/// `%bforall<index>` as the block forall.
void renderContractionTiling(llvm::raw_ostream &os, unsigned index,
                             mlir::linalg::LinalgOp op,
                             const ContractionLoops &loops,
                             const ContractionTile &tile,
                             llvm::StringRef fillHandle,
                             llvm::StringRef epilogueHandle = {});

/// Renders the transform ops that finish the kernel once it is a
/// gpu.launch (handle `%mapped<index>`) in function `funcHandle`:
/// contraction lowering to outer products, the multi-stage ring buffer in
/// workgroup memory, async copy groups and the software pipeline.
void renderContractionPipeline(llvm::raw_ostream &os, unsigned index,
                               const ContractionTile &tile,
                               llvm::StringRef funcHandle);

/// The block dimensions (x, y, z) of the kernel.
llvm::SmallVector<int64_t, 3> contractionBlockDims(const ContractionTile &tile);

} // namespace kf

#endif // KF_SCHEDULE_CONTRACTIONSCHEDULE_H
