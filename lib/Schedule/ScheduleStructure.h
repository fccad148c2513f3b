//===- ScheduleStructure.h - What schedules know of a reference -*- C++ -*-===//
//
// Private to lib/Schedule: the reference's linalg ops as a schedule sees
// them, and the reference after a genome's structure genes, shared by
// restructuring (Schedule.cpp), the default schedule (DefaultSchedule.cpp),
// row and thread groups (RowGroups.cpp) and the rendering of a genome as a
// script (ScheduleRendering.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef KF_LIB_TRANSFORMS_SCHEDULESTRUCTURE_H
#define KF_LIB_TRANSFORMS_SCHEDULESTRUCTURE_H

#include "kf/Schedule/ContractionSchedule.h"
#include "kf/Schedule/Schedule.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>

namespace kf::schedule_detail {

/// Facts about one linalg op of the reference that a schedule needs.
struct ScheduledOp {
  mlir::linalg::LinalgOp op;
  /// Static loop ranges of the parallel loops, outermost first.
  llvm::SmallVector<int64_t> parallelSizes;
  /// Positions of the parallel loops among all loops.
  llvm::SmallVector<unsigned> parallelLoops;
  /// The innermost reduction loop and its static range, if any.
  std::optional<unsigned> innerReduction;
  int64_t innerReductionSize = 0;
  /// Iterations of all reduction loops together (1 without any).
  int64_t reductionIterations = 1;
  unsigned numLoops = 0;
  /// Rank of the op's first output (where a split inserts its dimension).
  int64_t outputRank = 0;
  /// The op's loops when the GEMM kernel can compute it
  /// (kf::analyzeContraction); kept here because a split erases the op
  /// that was analyzed.
  /// (Shared: ScheduledOp stays small enough for SmallVector.)
  std::shared_ptr<const kf::ContractionLoops> contraction;
  /// For such an op: the index of its in-place epilogue among the ops.
  std::optional<unsigned> epilogue;
  /// Whether the lanes gene applies (kf::OpShape::laneReduction).
  bool laneReduction = false;
  /// Whether the op is a strided reduction (kf::OpShape::stridedReduction).
  bool stridedReduction = false;
  /// Whether upstream's vectorizer takes the op (kf::OpShape::vectorizable).
  bool vectorizable = true;
  /// kf::OpShape::contiguousElementwise.
  bool contiguousElementwise = false;
  /// kf::OpShape::transposedInputLoop.
  std::optional<unsigned> transposedInputLoop;
  /// For a scan (kf::analyzeScan): its scanned loop's position among the
  /// parallel loops (kf::OpShape::scanPosition).
  std::optional<unsigned> scanPosition;
};

/// The reference after the structure genes of `schedule`, in its own
/// module, with its ops before and after splitting.
struct AppliedStructure {
  mlir::OwningOpRef<mlir::ModuleOp> payload;
  llvm::SmallVector<ScheduledOp> splittable, ops;
};

/// The reference's linalg ops as schedules see them, in order; fails with
/// an error at an op a schedule cannot describe.
mlir::FailureOr<llvm::SmallVector<ScheduledOp>>
collectOps(mlir::func::FuncOp reference);

/// The shape the search sees of an op (kf::OpShape).
kf::OpShape shapeOf(const ScheduledOp &info);
llvm::SmallVector<kf::OpShape> shapesOf(llvm::ArrayRef<ScheduledOp> ops);

/// The default mapping of one op (see buildDefaultSchedule).
mlir::FailureOr<kf::OpSchedule>
defaultOpSchedule(const ScheduledOp &info,
                  kf::DefaultSchedule kind = kf::DefaultSchedule::Tuned);

/// Whether `info` is a pooling window reading an elementwise op (a padded
/// copy of its input) that kf-fuse-elementwise can read through.
bool isPoolingOfElementwise(const ScheduledOp &info);

/// The gpu mapping attribute for the `position`-th mapped loop counted from
/// the innermost (0 = x).
std::string mappingName(llvm::StringRef kind, unsigned position);

/// Whether the structure genes other than splits rewrite the reference.
bool rewritesOps(const Schedule &schedule);
bool hasSplits(const Schedule &schedule);

/// The transform ops that rewrite the reference (fusion, collapsing) or,
/// with `splits`, split its reductions; `numOps` is the op count before
/// splits. Emits into a sequence whose root handle is %root.
void renderStructure(llvm::raw_ostream &os, const Schedule &schedule,
                     bool splits, unsigned numOps,
                     llvm::ArrayRef<ScheduledOp> splittable);

mlir::FailureOr<AppliedStructure> applyStructure(mlir::func::FuncOp reference,
                                                 const Schedule &schedule);

/// Checks the block tiles of an op's generic mapping and renders its block
/// forall, %block<index> and %bforall<index> (ScheduleRendering.cpp).
mlir::LogicalResult renderBlockTiling(llvm::raw_ostream &os, unsigned index,
                                      const ScheduledOp &info,
                                      const kf::OpSchedule &schedule);

/// A row group (Schedule::fuseReductions, RowGroups.cpp): an all-parallel
/// consumer and the reductions whose results it reads broadcast along its
/// innermost loop (and those these read per output), each reducing a row of
/// that loop's length, all with the same reduction lanes. One kernel, one
/// block of `lanes` threads per row. The consumer may be a reduction too,
/// over the same rows with the same lanes (the last of a chain: a chunk's
/// sum of exp(x - max) reading the chunk's max, kf-split-softmax-statistics):
/// then the block is its lane reduction's, and the group's reductions may
/// have readers after it, which the block forall gives their results to.
struct RowGroup {
  unsigned consumer = 0;
  /// Whether the consumer is a lane reduction rather than all-parallel.
  bool reducingConsumer = false;
  /// The reductions, in op order.
  llvm::SmallVector<unsigned> reductions;
  int64_t lanes = 0;
};

/// The row groups among `ops` (after splitting) under `schedules`, one per
/// op, in consumer order. A reduction joins a group only where the lanes
/// its schedule gives are a multiple of 32 (one output per block) and its
/// result is read by the group alone.
llvm::SmallVector<RowGroup> findRowGroups(llvm::ArrayRef<ScheduledOp> ops,
                                          llvm::ArrayRef<OpSchedule> schedules);

/// A thread group (Schedule::fuseReductions, RowGroups.cpp): an
/// all-parallel consumer and a reduction that each thread runs alone (no
/// lanes), whose result the consumer reads broadcast along its loop `loop`,
/// the reduced loop's counterpart (RMS norm: x / rms over channels, the
/// channels strided in memory). The consumer's threads each take that loop
/// whole, and the reduction (with its fill) is fused into them: each thread
/// reduces its column, then computes the column's outputs, reading it again
/// from its recent loads.
struct ThreadGroup {
  unsigned consumer = 0;
  unsigned reduction = 0;
  /// The reduction's fill, fused into the threads with it.
  std::optional<unsigned> fill;
  unsigned loop = 0;
};

/// The longest loop a thread group gives each thread whole: the thread
/// reads its column twice, and keeps that many outputs' work in one thread.
constexpr int64_t kMaxThreadGroupLoop = 1024;

/// The thread groups among `ops` under `schedules`, in consumer order,
/// leaving out the ops of `rowGroups`. A reduction joins only where its
/// schedule gives it no lanes, its result is read by the consumer alone, its
/// reduced loop is at most kMaxThreadGroupLoop long and the consumer has at
/// least 2^20 outputs per element of that loop (threads enough without it).
llvm::SmallVector<ThreadGroup>
findThreadGroups(llvm::ArrayRef<ScheduledOp> ops,
                 llvm::ArrayRef<kf::OpSchedule> schedules,
                 llvm::ArrayRef<RowGroup> rowGroups);

/// The consumer's mapping in its thread group: its own, with the group's
/// loop whole in every thread (no block tile, no threads, no vectors), and
/// its outer loops given to the grid while it has dimensions free.
kf::OpSchedule threadGroupMapping(const ScheduledOp &consumer,
                                  const kf::OpSchedule &schedule,
                                  const ThreadGroup &group);

/// Renders the fusion of a thread group's reduction and fill into the
/// consumer's threads, after the consumer's block forall %bforall<c> and
/// thread forall %tforall<c> are rendered.
void renderThreadGroup(llvm::raw_ostream &os, const ThreadGroup &group);

/// The ops that row and thread groups (Schedule::fuseReductions) take into
/// their consumers' kernels among `ops` mapped by `schedules`: reductions,
/// and the fills thread groups take with them.
llvm::SmallVector<unsigned>
groupedReductions(llvm::ArrayRef<ScheduledOp> ops,
                  llvm::ArrayRef<kf::OpSchedule> schedules);

/// Renders the thread groups' output tiles as allocas, after the dead code
/// the fusions leave is gone from `funcHandle`, before bufferization.
void renderThreadGroupBuffers(llvm::raw_ostream &os,
                              llvm::StringRef funcHandle);

/// Renders what follows the row groups' fusion, before bufferization: one
/// copy of each reduction fused twice, and their results in shared memory.
void renderRowGroupBuffers(llvm::raw_ostream &os,
                           llvm::ArrayRef<RowGroup> groups);

/// The block tiling of a row group with `consumer`: one block per row,
/// every outer loop tiled by one.
kf::OpSchedule rowGroupBlocks(const ScheduledOp &consumer);

/// Renders a row group's block forall (the consumer's, one block per row)
/// with the reductions fused into it, marked for kf-distribute-reductions.
/// For a reducing consumer, whose block forall its lane tiling rendered,
/// only the reductions are fused.
mlir::LogicalResult renderRowGroup(llvm::raw_ostream &os, const RowGroup &group,
                                   llvm::ArrayRef<ScheduledOp> ops);
void renderRowGroupReductions(llvm::raw_ostream &os, const RowGroup &group,
                              llvm::ArrayRef<ScheduledOp> ops);

} // namespace kf::schedule_detail

#endif // KF_LIB_TRANSFORMS_SCHEDULESTRUCTURE_H
