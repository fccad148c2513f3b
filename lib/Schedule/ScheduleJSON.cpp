//===- ScheduleJSON.cpp - Schedules as JSON -------------------------------===//
//
// The genome's wire format: what the experience library stores, what
// `kf-evolve compile --emit genome` writes and `--schedule` reads back.
// Kept apart from the default schedule (DefaultSchedule.cpp) and the
// structure genes (Schedule.cpp).
//
//===----------------------------------------------------------------------===//

#include "kf/Schedule/Schedule.h"

#include "llvm/Support/JSON.h"

using namespace mlir;

namespace {
llvm::json::Array toArray(ArrayRef<int64_t> values) {
  return llvm::json::Array(values);
}

/// Reads an array of integers (llvm::json maps std::vector, not
/// SmallVector).
bool mapSizes(const llvm::json::Value &value, llvm::StringLiteral key,
              SmallVectorImpl<int64_t> &out, llvm::json::Path path) {
  std::vector<int64_t> values;
  const llvm::json::Value *field = value.getAsObject()->get(key);
  if (!field || !llvm::json::fromJSON(*field, values, path.field(key))) {
    if (!field)
      path.field(key).report("expected an array of integers");
    return false;
  }
  out.assign(values.begin(), values.end());
  return true;
}
} // namespace

llvm::json::Value kf::toJSON(const Schedule &schedule) {
  llvm::json::Array ops;
  for (const OpSchedule &op : schedule.ops) {
    llvm::json::Object object{{"block", toArray(op.blockTile)},
                              {"threads", toArray(op.threads)},
                              {"vector", op.vectorWidth},
                              {"step", op.reductionStep},
                              {"stage", op.stageTile}};
    if (op.reductionLanes > 0)
      object["lanes"] = op.reductionLanes;
    if (op.contraction.isSet())
      object["gemm"] = toJSON(op.contraction);
    ops.push_back(std::move(object));
  }
  llvm::json::Object object{{"fuse", schedule.fuseElementwise},
                            {"collapse", schedule.collapseReductions},
                            {"decompose", schedule.decomposeReductions},
                            {"splits", toArray(schedule.splitFactors)},
                            {"ops", std::move(ops)}};
  if (schedule.convolutionsAsGemm)
    object["im2col"] = true;
  if (schedule.interchangeLoops)
    object["interchange"] = true;
  if (schedule.collapseContractionLoops)
    object["collapse_mn"] = true;
  if (schedule.fuseEpilogues)
    object["epilogue"] = true;
  if (schedule.transposeProducts)
    object["transpose_product"] = true;
  if (schedule.commuteSums)
    object["commute_sums"] = true;
  if (schedule.foldScans)
    object["fold_scans"] = true;
  if (schedule.fuseReductions)
    object["fuse_reductions"] = true;
  if (schedule.splitSoftmaxStatistics)
    object["split_softmax"] = true;
  if (schedule.padContractions)
    object["pad_contractions"] = true;
  if (schedule.gatherSelections)
    object["gather_selections"] = true;
  if (schedule.kOuterCopies != KOuterCopies::None)
    object["transpose"] = kOuterCopiesName(schedule.kOuterCopies);
  return object;
}

llvm::StringRef kf::kOuterCopiesName(KOuterCopies copies) {
  switch (copies) {
  case KOuterCopies::None:
    return "none";
  case KOuterCopies::B:
    return "b";
  case KOuterCopies::AB:
    return "ab";
  }
  llvm_unreachable("unknown KOuterCopies");
}

/// Reads the optional "transpose" gene ("none", "b" or "ab").
static bool mapKOuterCopies(const llvm::json::Value &value,
                            kf::KOuterCopies &copies, llvm::json::Path path) {
  copies = kf::KOuterCopies::None;
  const llvm::json::Value *field = value.getAsObject()->get("transpose");
  if (!field)
    return true;
  std::optional<llvm::StringRef> name = field->getAsString();
  for (kf::KOuterCopies candidate :
       {kf::KOuterCopies::None, kf::KOuterCopies::B, kf::KOuterCopies::AB})
    if (name && *name == kf::kOuterCopiesName(candidate)) {
      copies = candidate;
      return true;
    }
  path.field("transpose").report("expected \"none\", \"b\" or \"ab\"");
  return false;
}

bool kf::fromJSON(const llvm::json::Value &value, Schedule &schedule,
                  llvm::json::Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  if (!mapper || !mapper.map("fuse", schedule.fuseElementwise) ||
      !mapper.map("collapse", schedule.collapseReductions) ||
      // Absent in schedules stored before the gene existed.
      !mapper.mapOptional("decompose", schedule.decomposeReductions) ||
      !mapper.mapOptional("im2col", schedule.convolutionsAsGemm) ||
      !mapper.mapOptional("interchange", schedule.interchangeLoops) ||
      !mapper.mapOptional("collapse_mn", schedule.collapseContractionLoops) ||
      !mapper.mapOptional("epilogue", schedule.fuseEpilogues) ||
      !mapper.mapOptional("transpose_product", schedule.transposeProducts) ||
      !mapper.mapOptional("commute_sums", schedule.commuteSums) ||
      !mapper.mapOptional("fold_scans", schedule.foldScans) ||
      !mapper.mapOptional("fuse_reductions", schedule.fuseReductions) ||
      !mapper.mapOptional("split_softmax", schedule.splitSoftmaxStatistics) ||
      !mapper.mapOptional("pad_contractions", schedule.padContractions) ||
      !mapper.mapOptional("gather_selections", schedule.gatherSelections) ||
      !mapKOuterCopies(value, schedule.kOuterCopies, path) ||
      !mapSizes(value, "splits", schedule.splitFactors, path))
    return false;
  schedule.ops.clear();
  // A genome without "ops" gives only the structure genes: every op then
  // gets its default schedule for that structure (renderSchedule).
  const llvm::json::Value *opsField = value.getAsObject()->get("ops");
  if (!opsField)
    return true;
  const llvm::json::Array *ops = opsField->getAsArray();
  if (!ops) {
    path.field("ops").report("expected an array of op schedules");
    return false;
  }
  for (auto [index, opValue] : llvm::enumerate(*ops)) {
    OpSchedule op;
    llvm::json::ObjectMapper opMapper(opValue, path.field("ops").index(index));
    llvm::json::Path opPath = path.field("ops").index(index);
    if (!opMapper || !mapSizes(opValue, "block", op.blockTile, opPath) ||
        !mapSizes(opValue, "threads", op.threads, opPath) ||
        !opMapper.map("vector", op.vectorWidth) ||
        !opMapper.map("step", op.reductionStep) ||
        // Absent in schedules stored before the gene existed.
        !opMapper.mapOptional("stage", op.stageTile) ||
        !opMapper.mapOptional("lanes", op.reductionLanes) ||
        !opMapper.mapOptional("gemm", op.contraction))
      return false;
    schedule.ops.push_back(std::move(op));
  }
  return true;
}
