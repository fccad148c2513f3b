//===- RowGroups.cpp - Reductions fused into their consumer's kernel ------===//
//
// A row group (Schedule::fuseReductions) is an all-parallel op, the
// consumer, with the reductions whose results it reads broadcast along its
// innermost loop, each reducing a row of that loop's length with reduction
// lanes: a norm's statistics and its normalization, a softmax's max, sum and
// division. Each op alone is a kernel that reads the whole input; the group
// is one kernel with one block per row, in which the lanes reduce the row
// (kf-distribute-reductions) and the same threads then compute the
// consumer's row from the results (kf-distribute-reductions' row lanes),
// reading the row again while the block's recent reads are still in the L2
// cache. The reductions' outputs reach global memory (one value per row,
// written by lane 0 before a barrier); the consumer's input is read again,
// but from cache where the rows in flight fit in it.
//
//===----------------------------------------------------------------------===//

#include "kf/Transforms/Passes.h"

#include "ScheduleStructure.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace kf::schedule_detail {

namespace {
/// Marks the reductions fused into row groups, for the script's steps after
/// all groups are rendered.
constexpr llvm::StringLiteral kRowReductionMark = "kf.row_reduction";
/// Marks the op whose output tile a thread group's thread owns.
constexpr llvm::StringLiteral kThreadGroupInitMark = "kf.thread_group_init";

/// The longest row a group with a reducing consumer takes: 64 KB of f32,
/// two blocks of which per SM stay in its L1 and L2 share while the block
/// reads the row again (kf-split-softmax-statistics' chunks).
constexpr int64_t kMaxReducingGroupRow = 16384;

/// The index of `value`'s defining op among `ops`, if it is one of them.
std::optional<unsigned> producerIndex(ArrayRef<ScheduledOp> ops, Value value) {
  Operation *producer = value.getDefiningOp();
  if (!producer)
    return std::nullopt;
  auto it = llvm::find_if(
      ops, [&](const ScheduledOp &info) { return info.op == producer; });
  if (it == ops.end())
    return std::nullopt;
  return it - ops.begin();
}

/// Whether `op` reads `input` broadcast along its loop `loop` alone: the
/// input's dimensions are the op's other loops, in order. For a reduction,
/// `loop` is its reduction loop (a result it reads per output); for the
/// consumer, its row loop.
bool readsBroadcastAlong(linalg::LinalgOp op, OpOperand *input, unsigned loop) {
  AffineMap map = op.getMatchingIndexingMap(input);
  if (map.getNumResults() + 1 != op.getNumLoops())
    return false;
  unsigned next = 0;
  for (AffineExpr result : map.getResults()) {
    if (next == loop)
      ++next;
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim || dim.getPosition() != next++)
      return false;
  }
  return true;
}

/// Whether `info` is a reduction a row group can hold for a consumer whose
/// rows are `rowSize` long over outer loops `outerSizes`: a lane reduction
/// (one reduction loop, innermost, reduced by `schedule`'s lanes, a
/// multiple of 32: one output per block) with one output per row.
bool isRowReduction(const ScheduledOp &info, const kf::OpSchedule &schedule,
                    ArrayRef<int64_t> outerSizes, int64_t rowSize) {
  linalg::LinalgOp op = info.op;
  if (!info.laneReduction || info.scanPosition || info.contraction ||
      schedule.contraction.isSet() || op.getNumDpsInits() != 1 ||
      info.numLoops != info.parallelLoops.size() + 1 ||
      info.innerReduction != info.numLoops - 1 ||
      info.innerReductionSize != rowSize ||
      ArrayRef<int64_t>(info.parallelSizes) != outerSizes)
    return false;
  int64_t lanes = schedule.reductionLanes;
  if (lanes < 32 || lanes % 32 != 0 || lanes > 1024)
    return false;
  // One output per row: the output's dimensions are the parallel loops.
  return readsBroadcastAlong(op, op.getDpsInitOperand(0), info.numLoops - 1);
}
} // namespace

SmallVector<RowGroup> findRowGroups(ArrayRef<ScheduledOp> ops,
                                    ArrayRef<kf::OpSchedule> schedules) {
  SmallVector<RowGroup> groups;
  if (ops.size() != schedules.size())
    return groups;
  SmallVector<bool> grouped(ops.size(), false);
  // Consumers last first: a reduction belongs to the last consumer that
  // takes it.
  for (int c = static_cast<int>(ops.size()) - 1; c >= 0; --c) {
    const ScheduledOp &consumer = ops[c];
    linalg::LinalgOp op = consumer.op;
    if (!isa<linalg::GenericOp>(op.getOperation()) || grouped[c] ||
        consumer.numLoops < 2 || op.getNumDpsInits() != 1 ||
        schedules[c].contraction.isSet())
      continue;
    // A reducing consumer: a row reduction itself, over its own rows, short
    // enough that the second read hits the cache: without a consumer to
    // save, a group over rows that miss it only trades two kernels for
    // one.
    bool reducing = consumer.parallelLoops.size() != consumer.numLoops;
    if (reducing &&
        (consumer.innerReductionSize > kMaxReducingGroupRow ||
         !isRowReduction(consumer, schedules[c], consumer.parallelSizes,
                         consumer.innerReductionSize)))
      continue;
    int64_t rowSize =
        reducing ? consumer.innerReductionSize : consumer.parallelSizes.back();
    ArrayRef<int64_t> outerSizes =
        reducing ? ArrayRef<int64_t>(consumer.parallelSizes)
                 : ArrayRef<int64_t>(consumer.parallelSizes).drop_back();
    unsigned rowLoop = consumer.numLoops - 1;
    // The reductions the consumer reads per row, then those they read per
    // output (a softmax's sum reads its max), while every one has the
    // group's lanes.
    RowGroup group;
    group.consumer = c;
    group.reducingConsumer = reducing;
    if (reducing)
      group.lanes = schedules[c].reductionLanes;
    SmallVector<std::pair<linalg::LinalgOp, unsigned>> readers = {
        {op, rowLoop}};
    bool valid = true;
    while (!readers.empty() && valid) {
      auto [reader, loop] = readers.pop_back_val();
      for (OpOperand *input : reader.getDpsInputOperands()) {
        std::optional<unsigned> r = producerIndex(ops, input->get());
        if (!r || llvm::is_contained(group.reductions, *r) ||
            !readsBroadcastAlong(reader, input, loop))
          continue;
        if (grouped[*r] ||
            !isRowReduction(ops[*r], schedules[*r], outerSizes, rowSize))
          continue;
        int64_t lanes = schedules[*r].reductionLanes;
        if (group.lanes != 0 && lanes != group.lanes) {
          valid = false;
          break;
        }
        group.lanes = lanes;
        group.reductions.push_back(*r);
        readers.push_back({ops[*r].op, ops[*r].numLoops - 1});
      }
    }
    if (!valid || group.reductions.empty())
      continue;
    // Every reduction's result must stay inside the group: it never reaches
    // a kernel of its own. A reducing consumer's block forall gives it to
    // readers after the consumer (the new result fuse_into_containing_op
    // adds for them).
    auto inGroup = [&](Operation *user) {
      std::optional<unsigned> index = std::nullopt;
      for (auto [i, info] : llvm::enumerate(ops))
        if (info.op == user)
          index = i;
      if (reducing && user->getBlock() == op->getBlock() &&
          op->isBeforeInBlock(user))
        return true;
      return index && (*index == unsigned(c) ||
                       llvm::is_contained(group.reductions, *index));
    };
    if (!llvm::all_of(group.reductions, [&](unsigned r) {
          return llvm::all_of(ops[r].op->getUsers(), inGroup);
        }))
      continue;
    llvm::sort(group.reductions);
    grouped[c] = true;
    for (unsigned r : group.reductions)
      grouped[r] = true;
    groups.push_back(std::move(group));
  }
  llvm::sort(groups, [](const RowGroup &a, const RowGroup &b) {
    return a.consumer < b.consumer;
  });
  return groups;
}

SmallVector<ThreadGroup> findThreadGroups(ArrayRef<ScheduledOp> ops,
                                          ArrayRef<kf::OpSchedule> schedules,
                                          ArrayRef<RowGroup> rowGroups) {
  SmallVector<ThreadGroup> groups;
  if (ops.size() != schedules.size())
    return groups;
  SmallVector<bool> taken(ops.size(), false);
  for (const RowGroup &group : rowGroups) {
    taken[group.consumer] = true;
    for (unsigned r : group.reductions)
      taken[r] = true;
  }
  for (auto [c, consumer] : llvm::enumerate(ops)) {
    linalg::LinalgOp op = consumer.op;
    if (taken[c] || !isa<linalg::GenericOp>(op.getOperation()) ||
        consumer.numLoops < 2 ||
        consumer.parallelLoops.size() != consumer.numLoops ||
        op.getNumDpsInits() != 1 || schedules[c].contraction.isSet() ||
        schedules[c].stageTile != 0 || schedules[c].reductionLanes != 0)
      continue;
    int64_t outputs = 1;
    for (int64_t size : consumer.parallelSizes)
      outputs *= size;
    for (OpOperand *input : op.getDpsInputOperands()) {
      std::optional<unsigned> r = producerIndex(ops, input->get());
      if (!r || taken[*r])
        continue;
      const ScheduledOp &reduction = ops[*r];
      linalg::LinalgOp reductionOp = reduction.op;
      // One reduction loop, innermost, whose outputs are the consumer's
      // loops but one, in order; each thread reduces alone.
      if (!isa<linalg::GenericOp>(reductionOp.getOperation()) ||
          reduction.contraction || reduction.scanPosition ||
          schedules[*r].reductionLanes != 0 ||
          schedules[*r].contraction.isSet() ||
          reductionOp.getNumDpsInits() != 1 ||
          reduction.numLoops != reduction.parallelLoops.size() + 1 ||
          reduction.innerReduction != reduction.numLoops - 1 ||
          !readsBroadcastAlong(reductionOp, reductionOp.getDpsInitOperand(0),
                               reduction.numLoops - 1))
        continue;
      std::optional<unsigned> loop;
      for (unsigned l = 0; l < consumer.numLoops && !loop; ++l)
        if (readsBroadcastAlong(op, input, l))
          loop = l;
      // The consumer's threads stay along its innermost loop, which the
      // group's loop must not be: each thread taking the innermost loop
      // whole would read and write it a row apart from its neighbours
      // (L2-37's group norm over rows of 1024: 8.04 -> 10.02 ms, H200).
      if (!loop || *loop + 1 == consumer.numLoops ||
          schedules[c].threads.back() == 0 ||
          reduction.innerReductionSize != consumer.parallelSizes[*loop] ||
          reduction.innerReductionSize > kMaxThreadGroupLoop ||
          outputs / reduction.innerReductionSize < (int64_t(1) << 20))
        continue;
      SmallVector<int64_t> otherSizes(consumer.parallelSizes);
      otherSizes.erase(otherSizes.begin() + *loop);
      if (reduction.parallelSizes != otherSizes ||
          !llvm::all_of(reductionOp->getUsers(),
                        [&](Operation *user) { return user == op; }))
        continue;
      ThreadGroup group;
      group.consumer = c;
      group.reduction = *r;
      group.loop = *loop;
      // The fill the reduction starts from goes into the threads too, where
      // nothing else reads it.
      auto fill = reductionOp.getDpsInitOperand(0)
                      ->get()
                      .getDefiningOp<linalg::FillOp>();
      std::optional<unsigned> f =
          fill ? producerIndex(ops, fill.getResult(0)) : std::nullopt;
      if (f && !taken[*f] && fill.getResult(0).hasOneUse())
        group.fill = f;
      taken[c] = taken[*r] = true;
      if (group.fill)
        taken[*group.fill] = true;
      groups.push_back(group);
      break;
    }
  }
  return groups;
}

kf::OpSchedule threadGroupMapping(const ScheduledOp &consumer,
                                  const kf::OpSchedule &schedule,
                                  const ThreadGroup &group) {
  kf::OpSchedule mapping = schedule;
  mapping.vectorWidth = 1;
  mapping.reductionStep = 0;
  unsigned position = llvm::find(consumer.parallelLoops, group.loop) -
                      consumer.parallelLoops.begin();
  mapping.blockTile[position] = 0;
  mapping.threads[position] = 0;
  // The grid has three dimensions: outer loops left whole in each thread
  // go onto the one the group's loop freed, one block row each.
  unsigned gridLoops =
      llvm::count_if(mapping.blockTile, [](int64_t tile) { return tile != 0; });
  for (unsigned p = 0; p < mapping.blockTile.size() && gridLoops < 3; ++p)
    if (p != position && mapping.blockTile[p] == 0) {
      mapping.blockTile[p] = 1;
      ++gridLoops;
    }
  return mapping;
}

void renderThreadGroup(llvm::raw_ostream &os, const ThreadGroup &group) {
  // Into the block, then into the consumer's threads: each thread reduces
  // the column its outputs read. The fill after the reduction, whose
  // fused copy reads it.
  auto fuse = [&](unsigned op) {
    os << llvm::formatv(
        "    %tgb{0}, %tgbforall{0} = "
        "transform.structured.fuse_into_containing_op %op{0} into "
        "%bforall{1} : (!transform.any_op, !transform.any_op) -> "
        "(!transform.any_op, !transform.any_op)\n"
        "    %tgt{0}, %tgtforall{0} = "
        "transform.structured.fuse_into_containing_op %tgb{0} into "
        "%tforall{1} : (!transform.any_op, !transform.any_op) -> "
        "(!transform.any_op, !transform.any_op)\n",
        op, group.consumer);
  };
  fuse(group.reduction);
  if (group.fill)
    fuse(*group.fill);
  // The reduction's output tile is the thread's own (a register once
  // bufferized to an alloca): marked for renderThreadGroupBuffers.
  os << llvm::formatv("    transform.annotate %tgt{0} \"{1}\" : "
                      "!transform.any_op\n",
                      group.fill ? *group.fill : group.reduction,
                      kThreadGroupInitMark);
}

void renderThreadGroupBuffers(llvm::raw_ostream &os, StringRef funcHandle) {
  // Without it the tile of the reduction's output would be allocated per
  // thread on the heap (a malloc in the kernel).
  os << llvm::formatv(
      "    %tginits = transform.structured.match attributes{{{0}} in {1} : "
      "(!transform.any_op) -> !transform.any_op\n"
      "    %tgbuffers, %tgallocs = "
      "transform.structured.bufferize_to_allocation %tginits "
      "{{alloc_op = \"memref.alloca\", bufferize_destination_only} : "
      "!transform.any_op\n",
      kThreadGroupInitMark, funcHandle);
}

void renderRowGroupBuffers(llvm::raw_ostream &os, ArrayRef<RowGroup> groups) {
  // A reduction read twice inside its group was fused once per use: one
  // copy must remain (lane 0 adds its total to the output: two copies of a
  // sum would add it twice). CSE confined to each group's block forall:
  // over the whole function it would also merge equal kernels (two fills of
  // the same shape, a group norm's sum and sum of squares). The ops fused
  // away stay outside until they are dead code.
  for (const RowGroup &group : groups)
    os << llvm::formatv("    transform.apply_cse to %bforall{0} : "
                        "!transform.any_op\n",
                        group.consumer);
  os << "    %rgfunc = transform.structured.match ops{[\"func.func\"]} in "
        "%root : (!transform.any_op) -> !transform.any_op\n"
        "    transform.apply_dce to %rgfunc : !transform.any_op\n";
  // Each block's results in its shared memory: a tensor the block forall
  // writes without its shared outputs would be bufferized to a private
  // copy per block, which a kernel cannot allocate. The copy of the fill's
  // value into it becomes a block-wide copy (kf-materialize-workgroup-memory).
  os << llvm::formatv(
      "    %rgreductions = transform.structured.match attributes{{{0}} in "
      "%rgfunc : (!transform.any_op) -> !transform.any_op\n"
      "    %rgbuffers, %rgallocs = "
      "transform.structured.bufferize_to_allocation %rgreductions "
      "{{memory_space = #gpu.address_space<workgroup>, "
      "bufferize_destination_only} : !transform.any_op\n",
      kRowReductionMark);
}

kf::OpSchedule rowGroupBlocks(const ScheduledOp &consumer) {
  kf::OpSchedule blocks;
  blocks.blockTile.assign(consumer.parallelSizes.size(), 1);
  blocks.blockTile.back() = 0;
  blocks.threads.assign(consumer.parallelSizes.size(), 0);
  return blocks;
}

static void fuseGroupReductions(llvm::raw_ostream &os, const RowGroup &group,
                                ArrayRef<ScheduledOp> ops);

/// The group's lanes as the parameter %rlanes<consumer>.
static void renderGroupLanes(llvm::raw_ostream &os, const RowGroup &group) {
  os << llvm::formatv("    %rlanes{0} = transform.param.constant {1} : i64 -> "
                      "!transform.param<i64>\n",
                      group.consumer, group.lanes);
}

LogicalResult renderRowGroup(llvm::raw_ostream &os, const RowGroup &group,
                             ArrayRef<ScheduledOp> ops) {
  unsigned c = group.consumer;
  if (failed(renderBlockTiling(os, c, ops[c], rowGroupBlocks(ops[c]))))
    return failure();
  renderGroupLanes(os, group);
  os << llvm::formatv("    transform.annotate %block{0} \"{1}\" = %rlanes{0} : "
                      "!transform.any_op, !transform.param<i64>\n",
                      c, kf::kRowLanesAttrName);
  fuseGroupReductions(os, group, ops);
  return success();
}

void renderRowGroupReductions(llvm::raw_ostream &os, const RowGroup &group,
                              ArrayRef<ScheduledOp> ops) {
  renderGroupLanes(os, group);
  fuseGroupReductions(os, group, ops);
}

/// Fuses the group's reductions into the consumer's block forall, with the
/// lanes %rlanes<consumer> holds.
static void fuseGroupReductions(llvm::raw_ostream &os, const RowGroup &group,
                                ArrayRef<ScheduledOp> ops) {
  unsigned c = group.consumer;
  // Later reductions first: fusing one that reads an earlier one gives the
  // earlier one its uses inside the block. A reduction read twice there (a
  // softmax's max, by the sum and the division) is fused once per use; the
  // CSE after the groups leaves one.
  for (unsigned r : llvm::reverse(group.reductions)) {
    os << llvm::formatv(
        "    %rfused{0}, %rforall{1}_{0} = "
        "transform.structured.fuse_into_containing_op %op{0} into "
        "%bforall{1} : (!transform.any_op, !transform.any_op) -> "
        "(!transform.any_op, !transform.any_op)\n"
        "    transform.annotate %rfused{0} \"{2}\" = %rlanes{1} : "
        "!transform.any_op, !transform.param<i64>\n",
        r, c, kf::kReductionLanesAttrName);
    // A result read after the group reaches global memory through the
    // block forall's new result; one read only inside stays in the
    // block's shared memory.
    linalg::LinalgOp reduction = ops[r].op, consumer = ops[c].op;
    bool readAfter = llvm::any_of(reduction->getUsers(), [&](Operation *user) {
      return user != consumer.getOperation() &&
             llvm::none_of(group.reductions, [&](unsigned other) {
               linalg::LinalgOp otherOp = ops[other].op;
               return otherOp.getOperation() == user;
             });
    });
    if (!readAfter)
      os << llvm::formatv("    transform.annotate %rfused{0} \"{1}\" : "
                          "!transform.any_op\n",
                          r, kRowReductionMark);
  }
}

} // namespace kf::schedule_detail
