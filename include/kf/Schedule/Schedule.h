//===- Schedule.h - Schedules: transform scripts for a problem --*- C++ -*-===//
//
// A candidate for an MLIR problem is the problem plus a schedule: a
// transform-dialect script that tiles the reference's linalg operations onto
// blocks and threads, bufferizes, and maps the result to gpu.launch ops.
// Scripts are generated from a small structured description (OpSchedule per
// linalg op) so that experts can mutate parameters rather than text, and the
// text is what is stored, printed and applied.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SCHEDULE_SCHEDULE_H
#define KF_SCHEDULE_SCHEDULE_H

#include "kf/Schedule/ContractionSchedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace kf {

/// How one linalg operation of the reference is mapped to the GPU. Sizes are
/// given per *parallel* loop of the op, outermost first. Up to three
/// parallel loops are mapped to the grid (the innermost to x); a block tile
/// of 0 leaves that loop untiled, so each thread iterates over all of it.
/// Reduction loops always stay sequential inside a thread.
struct OpSchedule {
  /// Tile of the op's iteration space that one thread block computes.
  llvm::SmallVector<int64_t> blockTile;
  /// Threads per block along each parallel loop (0 for loops not mapped to
  /// threads); each thread gets an equal share of the block tile.
  llvm::SmallVector<int64_t> threads;
  /// Consecutive elements of the innermost parallel loop each thread
  /// computes as one vector (1: scalar). Needs the block tile of that loop
  /// to be threads x vectorWidth and to divide the loop.
  int64_t vectorWidth = 1;
  /// When > 0, the innermost reduction loop runs in steps of this many
  /// iterations, vectorized, with the accumulator kept in registers (one
  /// read of the output before the loop, one write after) instead of going
  /// through memory each iteration. Needs static per-thread tiles: block
  /// tiles dividing their loops and thread counts dividing the tiles.
  int64_t reductionStep = 0;
  /// When > 0, the op's innermost reduction loop is tiled by this many
  /// iterations at the block level, and each tile of every input is copied
  /// into shared memory by the whole block (rows padded by 4 elements
  /// against bank conflicts) before its threads compute from it, with each
  /// thread's outputs kept in registers across the tiles. Each thread then
  /// computes blockTile / threads consecutive elements of every parallel
  /// loop (the register tile); a reductionStep, when given, divides this
  /// and is the inner step over which the thread's tile is vectorized.
  /// Needs every parallel loop tiled and mapped to threads, and vectorWidth
  /// 1. What makes a matmul reuse its operands from shared memory.
  int64_t stageTile = 0;
  /// When > 0, this many threads along the block's x dimension (its lanes)
  /// share the op's one reduction loop, element t going to lane t mod
  /// lanes, and combine their partials with warp shuffles (lanes <= 32, a
  /// power of two) or across the block (a multiple of 32, up to 1024; the
  /// block then computes one output at a time): kf-distribute-reductions.
  /// `threads` then counts groups of lanes (their product, along the
  /// block's y), which take the block tile's outputs in turn; under 32
  /// lanes, block tiles must divide their loops and give each group as
  /// many outputs. vectorWidth 1, no reductionStep or stageTile. What makes
  /// a long contiguous reduction (a norm's or a softmax's row) read at the
  /// memory's speed.
  int64_t reductionLanes = 0;
  /// When set, the op (a contraction, see analyzeContraction) becomes the
  /// pipelined GEMM kernel of ContractionSchedule.h and the fields above
  /// only describe it (block tile and threads over its parallel loops);
  /// the linalg.fill that zeroes its output is fused into it, and that
  /// fill's own OpSchedule is then ignored.
  ContractionTile contraction;
};

/// Which inputs of a contraction kf-transpose-contraction-operands copies.
enum class KOuterCopies { None, B, AB };

/// The schedule of a whole reference function. Its structure genes first
/// rewrite the reference (in this order: selections gathered, blocked scans
/// folded, convolutions
/// as GEMMs, fusion,
/// collapsing, decomposing, collapsing contraction loops, epilogues, sums
/// through contractions, K-outer operand copies, splitting); then each linalg
/// op of the rewritten function, in the order the ops appear, gets its own
/// kernel, mapped by one OpSchedule, except the ops fused into a GEMM kernel
/// (its output's fill and its epilogue), whose OpSchedules are ignored.
struct Schedule {
  /// Compute each reduction output that picks the element at a given index
  /// (cross-entropy's logit at the target class) as a gather, the reduction
  /// keeping its other outputs (kf-gather-selected-elements): the same
  /// values, read once. Set by the default schedule where it applies; the
  /// rule experts leave it (an exact rewrite has nothing to trade). First
  /// of the rewrites.
  bool gatherSelections = false;
  /// Rewrite each scan written in blocks (a scan within each block, the
  /// blocks' totals scanned, and the two combined: Level 1's cumsum family)
  /// as one scan over the whole dimension (kf-fold-blocked-scans), which
  /// reduction lanes then run in one pass (kf-lower-scans). First of the
  /// structure genes.
  bool foldScans = false;
  /// Fuse elementwise producers into every consumer, recomputing them
  /// (kf-fuse-elementwise): intermediate tensors are never stored.
  bool fuseElementwise = false;
  /// Compute each convolution as an explicit im2col matrix and a GEMM on
  /// the pipelined GEMM kernel (kf-convolution-to-gemm,
  /// ConvolutionGemm.h), instead of a direct convolution.
  bool convolutionsAsGemm = false;
  /// Collapse adjacent reduction loops into one
  /// (kf-collapse-reduction-dims), so that a split applies to them.
  bool collapseReductions = false;
  /// Rewrite each reduction still over several loops (with a long innermost
  /// one) into a partial reduction over its innermost loop and a combining
  /// reduction (kf-decompose-reductions), so that a split applies.
  bool decomposeReductions = false;
  /// Reorder each op's parallel loops as its output's dimensions, reduction
  /// loops last (kf-interchange-to-output-order), so that the threads' x
  /// runs along the output's contiguous dimension: a depthwise convolution
  /// iterates (n, oh, ow, c, ...) over NCHW tensors.
  bool interchangeLoops = false;
  /// Collapse each contraction's adjacent M loops into one, and its N loops
  /// (kf-collapse-contraction-dims): a 4-D tensor times a matrix becomes a
  /// GEMM.
  bool collapseContractionLoops = false;
  /// The elementwise ops after each GEMM-kernel contraction become one op
  /// computing in place on its result (kf-fuse-contraction-epilogues),
  /// which the GEMM kernel's threads apply to their accumulators before
  /// the single store: one kernel for the group, and the contraction's
  /// result never reaches global memory before its epilogue.
  bool fuseEpilogues = false;
  /// Each contraction C = A B^T with both operands' rows along K, a short
  /// M (at most 256: x @ W.T with 128 rows) and N of at least 16 M
  /// (kf::qualifiesForTransposedProduct) is computed as the
  /// transpose of B A^T (kf-transpose-contraction-products): the GEMM
  /// kernel reads the weight as given instead of through a K-outer copy of
  /// it. Set by the default schedule where it applies; not mutated by the
  /// rule experts.
  bool transposeProducts = false;
  /// A sum over N of a GEMM's output (directly or through an epilogue
  /// affine in it) becomes two matrix-vector products
  /// (kf-commute-sum-contraction): an algebraic rewrite, whose rounding
  /// the correctness trials judge.
  bool commuteSums = false;
  /// A row's max and its sum of exp(x - max) (a softmax's statistics) are
  /// computed per chunk of the row and combined, each chunk's sum rescaled
  /// by exp(chunk max - max) (kf-split-softmax-statistics): a row group of
  /// the two chunk reductions reads each chunk twice while it is in cache,
  /// where the whole row's second read came from DRAM. An algebraic
  /// rewrite, whose rounding the correctness trials judge.
  bool splitSoftmaxStatistics = false;
  /// Contractions that no GEMM tile divides (odd sizes: L1-8) are padded
  /// with zeros to tile multiples (kf-pad-contractions): zero-padding
  /// copies of the operands, the padded contraction on the GEMM kernel,
  /// and a copy of the result out of the padded product.
  bool padContractions = false;
  /// Inputs of the GEMM kernel's contractions whose rows run along K get a
  /// K-outer copy, transposed once by a kernel of its own
  /// (kf-transpose-contraction-operands): B alone ([N, K], as nn.Linear's
  /// weight), or both A ([M, K]) and B.
  KOuterCopies kOuterCopies = KOuterCopies::None;
  /// Reductions fused into the kernel of the op that consumes them (row
  /// groups, RowGroups.cpp): an all-parallel op reading, broadcast along
  /// its innermost loop, the results of reductions that reduction lanes
  /// share over that same row (a norm's statistics, a softmax's max and
  /// sum) computes each row in one block: the lanes reduce the row, then
  /// the same threads compute the consumer's row from it, reading the row
  /// again while it is still in cache. Applied last, on the ops after
  /// splitting; the reductions' lanes size the block, and the consumer's
  /// own OpSchedule is then ignored. Thread groups, likewise: an
  /// all-parallel op reading, broadcast along one loop, the result of a
  /// reduction each thread runs alone over that loop (RMS norm over
  /// strided channels) gives each thread that loop whole, and the
  /// reduction and its fill run in those threads first.
  bool fuseReductions = false;
  /// Per linalg op after fusion, collapsing, decomposing and K-outer copies:
  /// split its single
  /// reduction loop this many ways (0: no split;
  /// transform.structured.split_reduction with the split innermost). The op
  /// becomes a fill, a partial reduction with the split as a new parallel loop,
  /// and a combining reduction, three ops with their own kernels. Empty: no op
  /// is split.
  llvm::SmallVector<int64_t> splitFactors;
  /// One per op of the rewritten reference. Empty (a genome without "ops"):
  /// each op gets its default schedule for the structure the genes above
  /// give (completeSchedule).
  llvm::SmallVector<OpSchedule> ops;
};

/// Makes `schedule` the pipelined GEMM kernel with `tile` for contraction
/// `op` (whose loops are `loops`), with its block tile and thread fields
/// describing the same mapping.
void setContractionTile(OpSchedule &schedule, mlir::linalg::LinalgOp op,
                        const ContractionLoops &loops,
                        const ContractionTile &tile);

struct OpShape;

/// Maps `schedule` as `lanes` lanes sharing the reduction of an op of
/// `shape` (OpSchedule::reductionLanes): above 32 lanes, one output per
/// block; otherwise 256 / lanes outputs per block along the innermost
/// parallel loop (as many as divide it), one per group of lanes. A scan's
/// lanes (at most 32) walk whole rows instead: its scanned loop stays
/// untiled, and the groups take rows along the innermost other loop.
/// Returns false, leaving `schedule` unchanged, where the gene does not
/// apply.
bool setReductionLanes(OpSchedule &schedule, const OpShape &shape,
                       int64_t lanes);

/// Makes every mapped loop's block tile of `schedule` (an op of `shape`)
/// divide its loop and its thread count divide the tile, keeping the
/// innermost tile = threads x vector width: what vector widths and
/// reduction steps need.
void makeStaticTiles(OpSchedule &schedule, const OpShape &shape);

/// Whether `op`'s body reads at most one of its inputs (a pooling reads its
/// window's input, not the window shape's operand; a convolution reads
/// weights too). Named ops are taken as their generic form.
bool readsOneInput(mlir::linalg::LinalgOp op);

/// The lanes the default schedule gives an op of `shape`: 0 where the gene
/// does not apply or the reduction is short (under 32 elements), a warp
/// per output up to 4096 elements, a block of 256 beyond (1024 when there
/// are too few outputs to fill the GPU otherwise). A scan of n elements
/// gets min(32, n / 8) lanes (a power of two; none under 16 elements).
int64_t defaultReductionLanes(const OpShape &shape);

/// The split the default schedule gives a strided reduction of `shape`
/// (OpShape::stridedReduction: a column sum, batch norm's statistics after
/// a GEMM) whose outputs alone give the GPU fewer than 2^20 threads: the
/// reduction loop in that many parts (a power of two dividing it, each
/// part at least 32 long), as parallel partial sums that a second op
/// combines. 0 where that does not apply.
int64_t stridedSplitFactor(const OpShape &shape);

/// The iteration space of one linalg op of the reference, as a schedule
/// sees it: the static ranges of its parallel loops (outermost first) and of
/// its innermost reduction loop (0 when it has none).
struct OpShape {
  llvm::SmallVector<int64_t> parallelSizes;
  int64_t innerReductionSize = 0;
  /// How many reduction loops the op has (a split needs exactly one).
  unsigned reductionLoops = 0;
  /// The op's loops as the pipelined GEMM kernel maps them, when it can.
  std::optional<ContractionLoops> contraction;
  /// For such an op: the index of the elementwise op that computes in place
  /// on its result (its epilogue, which the GEMM kernel then applies).
  std::optional<unsigned> epilogue;
  /// Whether the lanes gene applies: one reduction loop, which an input
  /// reads contiguously, and a body that folds each element into one
  /// 32-bit output with one add, mul, max or min.
  bool laneReduction = false;
  /// Whether the op is a strided reduction: one reduction loop, which no
  /// input reads contiguously, with an input read contiguously along the
  /// innermost parallel loop (threads along it coalesce; each steps down
  /// the reduction a row at a time). Its split parts are the partial op's
  /// outermost loop (`insert_split_dimension = 0`), not its innermost.
  bool stridedReduction = false;
  /// Whether upstream's vectorizer takes the op
  /// (linalg::vectorizeOpPrecondition, gathers with vectorize_nd_extract as
  /// the renderer asks): a vector width or reduction step on an op it
  /// refuses (a reversed index, as a transposed convolution's weight flip
  /// has; an argmax's two outputs) fails the whole candidate at the
  /// transform stage.
  bool vectorizable = true;
  /// For a scan written as a masked reduction (kf::analyzeScan, ScanAnalysis
  /// .h): the position of its scanned loop among the parallel loops. With
  /// reduction lanes, kf-lower-scans runs it in one pass over each row; the
  /// scanned loop then stays whole in every block.
  std::optional<unsigned> scanPosition;
  /// Whether the op is elementwise along contiguous memory: every loop
  /// parallel, the innermost one the last dimension of its output and of
  /// every input it indexes (others broadcast along it), and no gather
  /// (tensor.extract) in its body: 16-byte vectors load and store whole.
  bool contiguousElementwise = false;
  /// For a transposing copy (one input, an identity output map, an input
  /// map that permutes the loops, a body that yields the input element: a
  /// K-outer operand copy's linalg.transpose): the position among the
  /// parallel loops of the loop the input's last dimension runs along,
  /// when that is not the innermost loop (along which the output runs).
  std::optional<unsigned> transposedInputLoop;

  bool operator==(const OpShape &other) const {
    return parallelSizes == other.parallelSizes &&
           innerReductionSize == other.innerReductionSize &&
           reductionLoops == other.reductionLoops;
  }
};

/// The shapes of the reference's linalg ops, in schedule order. Fails with
/// an error for dynamic shapes.
mlir::FailureOr<llvm::SmallVector<OpShape>>
describeOps(mlir::func::FuncOp reference);

/// What a schedule's structure genes make of the reference.
struct Restructured {
  /// The ops after fusion, collapsing, decomposing and K-outer copies:
  /// what splitFactors index.
  llvm::SmallVector<OpShape> splittable;
  /// The ops after splitting too: what Schedule::ops index.
  llvm::SmallVector<OpShape> shapes;
  /// The default OpSchedule of each of those ops.
  llvm::SmallVector<OpSchedule> defaults;
  /// The ops (indices into shapes) that row and thread groups
  /// (Schedule::fuseReductions) would take into their consumers' kernels
  /// under those defaults: reductions, and fills thread groups take along.
  llvm::SmallVector<unsigned> groupedReductions;
  /// The row groups' consumers that are reductions themselves (a chunk's
  /// sum of exp(x - max) with its max): they keep their kernels, and
  /// their lanes are the group's.
  llvm::SmallVector<unsigned> reducingGroupConsumers;
};

/// Applies the structure genes of `schedule` (its ops are ignored) to a
/// copy of the reference and describes the result. Fails with an error
/// when they do not apply (e.g. a split factor that does not divide its
/// reduction, or an op with several reduction loops).
mlir::FailureOr<Restructured> restructure(mlir::func::FuncOp reference,
                                          const Schedule &schedule);

/// Which default schedule buildDefaultSchedule makes.
enum class DefaultSchedule {
  /// Contractions become pipelined GEMM kernels (ContractionSchedule.h) with
  /// the analytic model's tiles; every other op is mapped naively.
  Tuned,
  /// Every op mapped naively, contractions included: what the trusted
  /// reference runs, so that it never shares the GEMM generator with the
  /// candidates it judges.
  Naive,
};

/// The default schedule: correct for every supported problem. Each linalg op
/// gets its own kernel; an op mapped naively has each thread compute one
/// element of its parallel iteration space (64 x 4 elements per block) and
/// run its reduction loops sequentially. Fails with an error at the
/// offending op when an op cannot be mapped (e.g. it has no parallel loop).
mlir::FailureOr<Schedule>
buildDefaultSchedule(mlir::func::FuncOp reference,
                     DefaultSchedule kind = DefaultSchedule::Tuned);

/// Gives the ops of `schedule`, the plain defaults of `structure` (its
/// restructured reference), what the Tuned default schedule gives an op of
/// that shape beyond them: 16-byte vectors for contiguous elementwise ops,
/// 4 x 4 tiles for transposing copies, wide rows after split softmax
/// statistics, and, where the schedule's row groups are on, their lanes.
/// The structure genes are left as they are.
void tuneDefaultOps(Schedule &schedule, const Restructured &structure);

/// `schedule` with every op given: where its ops are empty, each op of the
/// reference rewritten by its structure genes gets its default OpSchedule
/// (Restructured::defaults, tuned as the default schedule tunes them:
/// tuneDefaultOps); otherwise `schedule` unchanged.
mlir::FailureOr<Schedule> completeSchedule(mlir::func::FuncOp reference,
                                           const Schedule &schedule);

/// Renders `schedule` for `reference` as a transform-dialect script (a module
/// holding `@__transform_main`). Fails with an error when the schedule does
/// not fit the reference (wrong op count, sizes, more than 1024 threads).
/// A schedule without ops is completed first (completeSchedule).
mlir::FailureOr<std::string> renderSchedule(mlir::func::FuncOp reference,
                                            const Schedule &schedule);

/// A schedule as JSON (what the experience library stores and reuses):
/// {"fuse": bool, "collapse": bool, "decompose": bool (optional, false),
/// "im2col": bool (optional, false), "interchange": bool (optional, false),
/// "collapse_mn": bool (optional, false), "epilogue": bool (optional,
/// false), "commute_sums": bool (optional, false), "fold_scans": bool
/// (optional, false), "fuse_reductions": bool (optional, false),
/// "split_softmax": bool (optional, false), "pad_contractions": bool
/// (optional, false), "gather_selections": bool (optional, false),
/// "transpose": "none" | "b" |
/// "ab" (optional, "none"), "splits": [int], "ops": [{"block": [int],
/// "threads": [int], "vector": int, "step": int, "stage": int (optional, 0),
/// "lanes": int (optional, 0), "gemm": ContractionTile (optional,
/// unset)}]}.
llvm::json::Value toJSON(const Schedule &schedule);
/// The gene's JSON spelling: "none", "b" or "ab".
llvm::StringRef kOuterCopiesName(KOuterCopies copies);
bool fromJSON(const llvm::json::Value &value, Schedule &schedule,
              llvm::json::Path path);

/// Parses a transform script and checks it has an entry point.
mlir::OwningOpRef<mlir::ModuleOp> parseSchedule(llvm::StringRef text,
                                                llvm::StringRef bufferName,
                                                mlir::MLIRContext *context);

/// Applies the schedule `script` to `payload`, a module holding only the
/// reference function (see kf-extract-reference). On failure the
/// interpreter's diagnostics have been emitted.
mlir::LogicalResult applySchedule(mlir::ModuleOp payload,
                                  mlir::ModuleOp script);

} // namespace kf

#endif // KF_SCHEDULE_SCHEDULE_H
