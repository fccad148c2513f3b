//===- DefaultSchedule.cpp - The default schedule of a reference ----------===//
//
// What kf compiles a problem with before any search: the structure genes
// decided from the reference's ops (fusion, scans, poolings, convolutions
// as GEMMs, collapsed and decomposed reductions, epilogues, K-outer
// copies, splits, row and thread groups), each chosen by comparing the
// restructured references, and every op's default mapping.
//
//===----------------------------------------------------------------------===//

#include "kf/Schedule/ContractionSchedule.h"
#include "kf/Schedule/Schedule.h"
#include "kf/Transforms/Passes.h"

#include "ScheduleStructure.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace kf::schedule_detail;

/// The shortest chunk kf-split-softmax-statistics makes (half its chunk).
static constexpr int64_t kMinSoftmaxChunk = 8192;

/// The narrowest product (N) whose A gets a K-outer copy by default.
static constexpr int64_t kMinNForACopy = 2048;

/// Turns row and thread groups on where they form with `schedule`'s ops:
/// reductions whose rows one all-parallel op consumes run in its kernel,
/// the row read again from cache and the reductions' kernels gone. A row
/// group's block-wide lanes become 1024: fewer rows in flight keep the rows
/// in L2 for the second read. Measured on the H200 (docs/perf-notes.md,
/// 2026-12-04): L1-38 L1Norm 9.88 ms in four kernels, 11.51 ms as a group
/// of 256 lanes, 6.79 ms with 1024; L1-23 Softmax 6.67 ms with 256, 6.33
/// with 1024. `structure` is the restructured reference whose defaults
/// `schedule`'s ops are: its groupedReductions are the groups that form with
/// them.
static void setRowGroupLanes(kf::Schedule &schedule,
                             const kf::Restructured &structure) {
  if (!schedule.fuseReductions)
    return;
  for (ArrayRef<unsigned> indices :
       {ArrayRef<unsigned>(structure.groupedReductions),
        ArrayRef<unsigned>(structure.reducingGroupConsumers)})
    for (unsigned index : indices) {
      kf::OpSchedule &op = schedule.ops[index];
      // A softmax's chunks (8K-16K elements, kf-split-softmax-statistics)
      // take 512: L1-23 4.85 ms against 5.04 with 1024 and 5.80 with 256
      // (H200, perf-notes 2026-12-04, second section).
      int64_t lanes =
          schedule.splitSoftmaxStatistics &&
                  structure.shapes[index].innerReductionSize >= kMinSoftmaxChunk
              ? 512
              : 1024;
      if (op.reductionLanes == 256)
        kf::setReductionLanes(op, structure.shapes[index], lanes);
    }
}

/// The default turns row groups on wherever they form with its ops.
static void setRowGroups(kf::Schedule &schedule,
                         const kf::Restructured &structure) {
  if (structure.groupedReductions.empty())
    return;
  schedule.fuseReductions = true;
  setRowGroupLanes(schedule, structure);
}

/// With a softmax's statistics split, the division is a plain elementwise
/// kernel over the whole input: a wide row of 1024 elements per block, four
/// per thread in 16-byte accesses (L1-23 5.04 ms against 7.56 with the
/// generic 4 x 64 scalar mapping, H200). Only for 2-D ops whose rows
/// 1024 divides.
static void setWideRows(kf::Schedule &schedule,
                        const kf::Restructured &structure) {
  if (!schedule.splitSoftmaxStatistics)
    return;
  for (auto [op, shape] : llvm::zip_equal(schedule.ops, structure.shapes)) {
    if (shape.reductionLoops != 0 || !shape.vectorizable ||
        shape.parallelSizes.size() != 2 || shape.parallelSizes[1] % 1024 != 0 ||
        op.contraction.isSet() || op.reductionLanes != 0)
      continue;
    op.blockTile = {1, 1024};
    op.threads = {1, 256};
    op.vectorWidth = 4;
  }
}

/// All-parallel ops read and write 16-byte vectors: each thread takes four
/// consecutive elements of the innermost loop (vector width 4, tiles made
/// static), as the search's vectorized seed does. The suite's searches
/// chose it wherever they ran (H200, bench/results): every elementwise
/// problem of Level 1 (19-22, 25-30) ran at its floor so, 2.99-3.22 ms,
/// against 5.12-5.57 ms for the scalar default; most Level 2 bests
/// vectorize their elementwise ops (L2-57 1.38 ms against 4.32 for the
/// default). Only elementwise ops along contiguous memory
/// (OpShape::contiguousElementwise; a transposing copy or a gather keeps
/// its mapping), and not where the vectorizer refuses the op, 4 does not
/// divide the innermost loop, a loop stays whole in each thread, or the
/// op's mapping is another kind's (GEMM kernels, lanes).
static void setVectorWidths(kf::Schedule &schedule,
                            const kf::Restructured &structure) {
  for (auto [op, shape] : llvm::zip_equal(schedule.ops, structure.shapes)) {
    if (!shape.contiguousElementwise || shape.parallelSizes.empty() ||
        !shape.vectorizable || op.contraction.isSet() ||
        op.reductionLanes != 0 || op.vectorWidth != 1 ||
        op.threads.size() != shape.parallelSizes.size() ||
        op.blockTile.size() != shape.parallelSizes.size() ||
        op.threads.back() == 0 || shape.parallelSizes.back() % 4 != 0)
      continue;
    bool untiledLoop = false;
    for (auto [tile, size] : llvm::zip_equal(op.blockTile, shape.parallelSizes))
      untiledLoop |= tile == 0 && size > 1;
    if (untiledLoop)
      continue;
    kf::OpSchedule vectorized = op;
    vectorized.vectorWidth = 4;
    kf::makeStaticTiles(vectorized, shape);
    // Static tiles of a loop whose size has no divisor near the thread
    // count would leave blocks of a few threads (4 x 67 elements: one
    // thread along it) or warps across rows (100 columns: 25 threads):
    // whole warps along the contiguous loop, or the scalar mapping.
    if (vectorized.threads.back() % 32 == 0)
      op = vectorized;
  }
}

/// A transposing copy (OpShape::transposedInputLoop: a K-outer operand
/// copy) moves 4 x 4 tiles: each thread loads four 16-byte vectors along
/// the input's rows, transposes them in registers and stores four 16-byte
/// vectors along the output's rows. Four threads along the output's
/// innermost loop (x) and 32 or 64 along the input's (y), so that each
/// load of a warp reads four rows of 128 contiguous bytes and each store
/// writes eight rows of 64: whole 32-byte sectors both ways. The generic
/// mapping (a thread per element, a warp along the output's rows) read a
/// 4-byte word of 32 input rows per warp load, about 1.1 TB/s on the
/// H100 (docs/perf-notes.md). Only up to three loops (the others one per
/// block), both transposed loops divisible by the tile.
static void setTransposeTiles(kf::Schedule &schedule,
                              const kf::Restructured &structure) {
  for (auto [op, shape] : llvm::zip_equal(schedule.ops, structure.shapes)) {
    unsigned n = shape.parallelSizes.size();
    if (!shape.transposedInputLoop || !shape.vectorizable || n > 3 ||
        op.contraction.isSet() || op.reductionLanes != 0 ||
        op.threads.size() != n || op.blockTile.size() != n)
      continue;
    unsigned inner = n - 1, across = *shape.transposedInputLoop;
    int64_t threadsAcross = shape.parallelSizes[across] % 256 == 0   ? 64
                            : shape.parallelSizes[across] % 128 == 0 ? 32
                                                                     : 0;
    if (threadsAcross == 0 || shape.parallelSizes[inner] % 16 != 0)
      continue;
    kf::OpSchedule tiles = op;
    for (unsigned p = 0; p < n; ++p) {
      tiles.blockTile[p] = 1;
      tiles.threads[p] = 1;
    }
    tiles.blockTile[inner] = 16;
    tiles.threads[inner] = 4;
    tiles.blockTile[across] = 4 * threadsAcross;
    tiles.threads[across] = threadsAcross;
    tiles.vectorWidth = 4;
    op = tiles;
  }
}

namespace kf {
/// buildDefaultSchedule, with the fuse gene turned on where that lets
/// reductions join groups when `fuseForGroups`; `fusedForGroups` tells
/// whether it was.
static FailureOr<kf::Schedule> buildDefault(func::FuncOp reference,
                                            kf::DefaultSchedule kind,
                                            bool fuseForGroups,
                                            bool &fusedForGroups) {
  fusedForGroups = false;
  FailureOr<SmallVector<ScheduledOp>> ops = collectOps(reference);
  if (failed(ops))
    return failure();
  if (ops->empty())
    return reference.emitError()
           << "the reference has no linalg operation to schedule";
  Schedule schedule;
  SmallVector<OpShape> shapes;
  // The Tuned default's last restructured reference.
  std::optional<Restructured> tuned;
  if (kind == DefaultSchedule::Tuned) {
    // A reduction output picking the element at an index (cross-entropy's
    // target logit) becomes a gather, and the reduction keeps its other
    // outputs: an op more where it applies (L1-95's pick kept its sum of
    // exponentials to one thread per row).
    schedule.gatherSelections = true;
    FailureOr<Restructured> gathered = restructure(reference, schedule);
    if (failed(gathered))
      return failure();
    // The op count the rewrites below compare against.
    size_t opCount = gathered->shapes.size();
    if (opCount == ops->size())
      schedule.gatherSelections = false;
    // A scan written in blocks becomes one scan over the whole dimension,
    // which reduction lanes run in one pass; an elementwise op feeding it (a
    // masked cumsum's x * mask) is then fused into its single read.
    schedule.foldScans = true;
    FailureOr<Restructured> folded = restructure(reference, schedule);
    if (failed(folded))
      return failure();
    if (folded->shapes.size() < opCount) {
      schedule.fuseElementwise = true;
      FailureOr<Restructured> fused = restructure(reference, schedule);
      if (failed(fused))
        return failure();
      if (fused->shapes.size() >= folded->shapes.size())
        schedule.fuseElementwise = false;
    } else {
      schedule.foldScans = false;
    }
    // A pooling window reading its input's padded copy reads the input
    // through the padding's bounds checks instead (kf-fuse-elementwise,
    // which generalizes a named pooling op for it): the padded copy is
    // never written. Only where nothing else would fuse with it: no
    // contraction or convolution in the reference.
    if (!schedule.fuseElementwise &&
        llvm::any_of(*ops, isPoolingOfElementwise) &&
        llvm::none_of(*ops, [](const ScheduledOp &info) {
          return info.contraction ||
                 succeeded(analyzeConvolutionGemm(info.op)) ||
                 (linalg::isaConvolutionOpInterface(info.op) &&
                  !isPoolingOfElementwise(info));
        })) {
      schedule.fuseElementwise = true;
      FailureOr<Restructured> fused = restructure(reference, schedule);
      if (failed(fused))
        return failure();
      if (fused->shapes.size() >= opCount)
        schedule.fuseElementwise = false;
    }
    // An elementwise op between a row's reductions and their consumer (a
    // norm's mean, the sum divided by the row's length; a softmax's exp) is
    // fused into its neighbours where that lets the reductions join the
    // consumer's kernel (row groups, below) and leaves fewer kernels.
    if (!schedule.fuseElementwise && fuseForGroups) {
      Schedule probe = schedule;
      probe.collapseReductions = llvm::any_of(*ops, [](const ScheduledOp &op) {
        return op.numLoops - op.parallelLoops.size() > 1;
      });
      FailureOr<Restructured> apart = restructure(reference, probe);
      probe.fuseElementwise = true;
      FailureOr<Restructured> fused = restructure(reference, probe);
      if (failed(apart) || failed(fused))
        return failure();
      // Kernels left: the ops, less the reductions groups take in.
      auto kernels = [](const Restructured &structure) {
        return structure.shapes.size() - structure.groupedReductions.size();
      };
      schedule.fuseElementwise = !fused->groupedReductions.empty() &&
                                 kernels(*fused) < kernels(*apart);
      fusedForGroups = schedule.fuseElementwise;
    }
    // A softmax's statistics over rows too long for a row group to read
    // twice from cache are computed per chunk (a group each) and combined.
    if (schedule.fuseElementwise) {
      kf::KFSplitSoftmaxStatisticsOptions options;
      int64_t minRow = options.minChunks * options.chunk / 2;
      if (llvm::any_of(*ops, [&](const ScheduledOp &info) {
            return info.innerReductionSize >= minRow;
          })) {
        schedule.splitSoftmaxStatistics = true;
        FailureOr<Restructured> unsplit = restructure(reference, [&] {
          Schedule copy = schedule;
          copy.splitSoftmaxStatistics = false;
          return copy;
        }());
        FailureOr<Restructured> split = restructure(reference, schedule);
        if (failed(unsplit) || failed(split))
          return failure();
        schedule.splitSoftmaxStatistics =
            split->shapes.size() > unsplit->shapes.size();
      }
    }
    // Convolutions run on the GEMM kernel, through an im2col matrix in
    // global memory, where it fits.
    schedule.convolutionsAsGemm =
        llvm::any_of(*ops, [](const ScheduledOp &info) {
          return succeeded(analyzeConvolutionGemm(info.op));
        });
    // Around convolutions computed as GEMMs, elementwise ops are fused:
    // the input's padding into the im2col gather, and the bias and the
    // activations after the convolution into the op that reads the
    // product back, one kernel instead of one per op. Only where every
    // other op is elementwise (chains with norms, pools or softmax keep
    // their kernels: there the search's results were mixed). The suite's
    // results before this default (bench/results, H200, 6 evaluations): of
    // the 19 Level 2 problems this fuses, 18 had a fused best, up to 3.1
    // times faster than the unfused default (L2-57 4.32 -> 1.38 ms), the
    // other (L2-5) an unfused best 0.3% faster; of the 26 Level 1
    // convolutions, 18 had a fused best, and the 8 others' bests were
    // within 11% of the unfused default.
    if (schedule.convolutionsAsGemm && !schedule.fuseElementwise &&
        llvm::all_of(*ops, [](const ScheduledOp &info) {
          return info.numLoops == info.parallelLoops.size() ||
                 succeeded(analyzeConvolutionGemm(info.op));
        })) {
      schedule.fuseElementwise = true;
      FailureOr<Restructured> unfused = restructure(reference, [&] {
        Schedule copy = schedule;
        copy.fuseElementwise = false;
        return copy;
      }());
      FailureOr<Restructured> fused = restructure(reference, schedule);
      if (failed(unfused) || failed(fused))
        return failure();
      schedule.fuseElementwise = fused->shapes.size() < unfused->shapes.size();
    }
    // An op whose loops do not follow its output's memory order (a
    // depthwise convolution's channel loop after its pixels) gets them in
    // that order, so that the threads' x runs along contiguous memory.
    schedule.interchangeLoops = llvm::any_of(*ops, [](const ScheduledOp &info) {
      return outputOrderInterchange(info.op).has_value();
    });
    // Contractions the GEMM kernel refuses that have several M (or N)
    // loops in a row become GEMMs. Where the kernel already takes the op
    // (one batch loop over the grid's z: L1-10), the measured kernel stays.
    schedule.collapseContractionLoops =
        llvm::any_of(*ops, [](const ScheduledOp &info) {
          return !info.contraction &&
                 !collapsibleContractionLoops(info.op).empty();
        });
    // A reduction over several adjacent loops (a norm's H and W) becomes a
    // reduction over one, which reduction lanes can share.
    schedule.collapseReductions =
        llvm::any_of(*ops, [](const ScheduledOp &info) {
          return info.numLoops - info.parallelLoops.size() > 1;
        });
    // A short x @ W.T (M of 256 or less, N of 16 M or more, rows along K) is
    // computed as the transpose of W x^T: the GEMM kernel reads the weight
    // as its A, as given, where W's K-outer copy (below) would read and
    // write all of it. The copy moves 8 N K bytes against the GEMM's 2 M N
    // K multiply-adds: at 2.8-3 TB/s and 40-50 TFLOP/s it takes about 60/M
    // of the GEMM's time, half of it at M = 128 (L2 55, 56, 59: a 4 GB
    // weight). A as given cost the 4096^3 GEMM about 20% on the H100 (3.367
    // against 2.806 ms, docs/perf-notes.md); x's copy and the product's
    // transposed copy are M K and M N elements. On the H100, L2-59 ran 8.718
    // ms with the weight's copy and 6.787 transposed, L2-68 2.251 -> 1.715.
    // Only where the transposed product still gets the GEMM kernel.
    int64_t maxShortM = KFTransposeContractionProductsOptions().maxM;
    // The contractions of a restructured reference that get the GEMM
    // kernel.
    auto gemmKernels = [](const Restructured &shapes) {
      return llvm::count_if(shapes.shapes, [](const OpShape &shape) {
        return shape.contraction && defaultContractionTile(*shape.contraction);
      });
    };
    if (llvm::any_of(*ops, [&](const ScheduledOp &info) {
          return info.contraction &&
                 defaultContractionTile(*info.contraction) &&
                 qualifiesForTransposedProduct(*info.contraction, maxShortM);
        })) {
      FailureOr<Restructured> plain = restructure(reference, schedule);
      schedule.transposeProducts = true;
      FailureOr<Restructured> transposed = restructure(reference, schedule);
      if (failed(plain) || failed(transposed))
        return failure();
      schedule.transposeProducts =
          gemmKernels(*transposed) >= gemmKernels(*plain);
    }
    // The elementwise ops after a GEMM kernel's contraction run in that
    // kernel, on its accumulators.
    schedule.fuseEpilogues = true;
    FailureOr<Restructured> structure = restructure(reference, schedule);
    if (failed(structure))
      return failure();
    if (llvm::none_of(structure->shapes, [](const OpShape &shape) {
          return shape.contraction && shape.epilogue &&
                 defaultContractionTile(*shape.contraction);
        })) {
      schedule.fuseEpilogues = false;
      structure = restructure(reference, schedule);
      if (failed(structure))
        return failure();
    }
    // A row sum of a GEMM's output becomes two matrix-vector products
    // where the rewrite applies (fewer contractions remain).
    auto contractions = [](const Restructured &shapes) {
      return llvm::count_if(shapes.shapes, [](const OpShape &shape) {
        return shape.contraction.has_value();
      });
    };
    schedule.commuteSums = true;
    FailureOr<Restructured> commuted = restructure(reference, schedule);
    if (failed(commuted))
      return failure();
    if (contractions(*commuted) < contractions(*structure))
      structure = std::move(commuted);
    else
      schedule.commuteSums = false;
    // A reduction left over several loops that no reshape joins (batch
    // norm's n and d*h*w, with c between them in memory) would run in one
    // thread per output over 10^5-10^7 terms: slowly, and past fp32's
    // tolerance (L2-72's BatchNorm over 16M terms per channel was off by
    // 1.6e-2). Decomposed (kf-decompose-reductions), its partial reduction
    // over the inner loop gets reduction lanes. The pass would split a
    // contraction's K loops the same way, into partial products the size
    // of its output times the outer K: a reference with such a contraction
    // keeps its reductions whole.
    auto decomposable = [](const OpShape &shape) {
      return shape.reductionLoops > 1 &&
             shape.innerReductionSize >=
                 kf::KFDecomposeReductionsOptions().minInnerRange;
    };
    if (llvm::any_of(structure->shapes, decomposable) &&
        llvm::none_of(structure->shapes, [&](const OpShape &shape) {
          return shape.contraction && decomposable(shape);
        })) {
      schedule.decomposeReductions = true;
      FailureOr<Restructured> decomposed = restructure(reference, schedule);
      if (failed(decomposed))
        return failure();
      if (decomposed->shapes.size() > structure->shapes.size())
        structure = std::move(decomposed);
      else
        schedule.decomposeReductions = false;
    }
    // A contraction that no GEMM tile divides (odd sizes) is padded with
    // zeros to tile multiples where the padded one gets the GEMM kernel:
    // L1-8 ran at 0.14x eager on the generic mapping.
    if (llvm::any_of(structure->shapes, [](const OpShape &shape) {
          return shape.contraction &&
                 !defaultContractionTile(*shape.contraction) &&
                 paddedContractionLoops(*shape.contraction);
        })) {
      schedule.padContractions = true;
      FailureOr<Restructured> padded = restructure(reference, schedule);
      if (failed(padded))
        return failure();
      if (gemmKernels(*padded) > gemmKernels(*structure))
        structure = std::move(padded);
      else
        schedule.padContractions = false;
    }
    // A GEMM kernel reading an operand down the columns of its tile (rows
    // along K) reads a K-outer copy instead: B always (L1-17 ran at 0.28x
    // eager without), A ([M, K], the usual layout) where the product is
    // wide enough to repay the copy. With A's tile K-major each thread
    // reads its 8 rows as two 16-byte vectors per k, where as given it
    // holds them across 4 k (padding away the bank conflicts of A's rows 8
    // apart gained nothing, docs/perf-notes.md): on the H100 the 4096^3 GEMM
    // with a K-major A ran in 2.806 ms on 128x128x8 tiles against 3.124 ms with
    // A as given, and the copy (a read and a write of A) took 0.117 ms. It
    // saves about a tenth of a compute-bound GEMM and costs 8 M K bytes,
    // so it pays from N of about 1600 (2048 and up here) where K is long
    // enough for the GEMM to be compute-bound (1024 and up; with K = 64,
    // L1-7's time is its output's writes).
    bool copyA = false, copyB = false;
    for (const OpShape &shape : structure->shapes) {
      if (!shape.contraction || !defaultContractionTile(*shape.contraction))
        continue;
      const ContractionLoops &loops = *shape.contraction;
      copyA |= loops.aRowsAlongK && loops.n >= kMinNForACopy &&
               loops.k >= kMinComputeBoundK;
      copyB |= loops.bRowsAlongK;
    }
    if (copyA || copyB) {
      schedule.kOuterCopies = copyA ? KOuterCopies::AB : KOuterCopies::B;
      structure = restructure(reference, schedule);
      if (failed(structure))
        return failure();
    }
    schedule.ops = structure->defaults;
    shapes = structure->shapes;
    tuned = std::move(*structure);
  } else {
    for (ScheduledOp &info : *ops) {
      FailureOr<OpSchedule> op = defaultOpSchedule(info, kind);
      if (failed(op))
        return failure();
      schedule.ops.push_back(std::move(*op));
    }
    shapes = shapesOf(*ops);
  }
  bool anySplit = false;
  for (auto [op, shape] : llvm::zip_equal(schedule.ops, shapes)) {
    // A GEMM kernel whose blocks leave SMs idle splits its K loop.
    int64_t split = 0;
    if (op.contraction.isSet() && shape.contraction)
      split = kf::splitKFactor(*shape.contraction, op.contraction);
    // A column sum over few columns splits its rows among parallel parts.
    else if (!op.contraction.isSet() && op.reductionLanes == 0)
      split = kf::stridedSplitFactor(shape);
    schedule.splitFactors.push_back(split);
    anySplit |= split > 0;
  }
  if (!anySplit) {
    schedule.splitFactors.clear();
  } else {
    FailureOr<Restructured> split = restructure(reference, schedule);
    if (failed(split))
      return failure();
    schedule.ops = split->defaults;
    tuned = std::move(*split);
  }
  // The groups that form with the final ops, which are the last
  // restructured reference's defaults.
  if (kind == DefaultSchedule::Tuned) {
    setRowGroups(schedule, *tuned);
    kf::tuneDefaultOps(schedule, *tuned);
  }
  return schedule;
}
} // namespace kf

void kf::tuneDefaultOps(Schedule &schedule, const Restructured &structure) {
  setRowGroupLanes(schedule, structure);
  setWideRows(schedule, structure);
  setVectorWidths(schedule, structure);
  setTransposeTiles(schedule, structure);
}

FailureOr<kf::Schedule> kf::buildDefaultSchedule(func::FuncOp reference,
                                                 DefaultSchedule kind) {
  bool fusedForGroups;
  FailureOr<Schedule> schedule =
      buildDefault(reference, kind, /*fuseForGroups=*/true, fusedForGroups);
  // The groups the fusion was for may not form with the final ops (a
  // reduction split for parallelism is no row's reduction): then the
  // schedule is made without that fusion (L2-34's default ran 27.0 ms with
  // it, 15.95 without, H200).
  if (succeeded(schedule) && fusedForGroups && !schedule->fuseReductions)
    return buildDefault(reference, kind, /*fuseForGroups=*/false,
                        fusedForGroups);
  return schedule;
}
