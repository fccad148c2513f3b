//===- LibrarySnapshot.cpp - What a run takes from the library ------------===//
//
// The library's side that needs no database: problem features and their
// similarity (which runs' schedules seed a new problem), the action weights
// frozen at a run's start, and the snapshot a run keeps so that --resume
// sees what the run started with.
//
//===----------------------------------------------------------------------===//

#include "kf/Search/ExperienceLibrary.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace kf;

//===----------------------------------------------------------------------===//
// Problem features and similarity
//===----------------------------------------------------------------------===//

std::string ProblemFeatures::signature() const {
  std::string text = elementType;
  for (const OpShape &op : ops) {
    text += "|";
    for (auto [index, size] : llvm::enumerate(op.parallelSizes))
      text += (index ? "x" : "") + std::to_string(size);
    if (op.reductionLoops)
      text +=
          llvm::formatv("/r{0}:{1}", op.reductionLoops, op.innerReductionSize)
              .str();
  }
  return text;
}

llvm::json::Value kf::toJSON(const ProblemFeatures &features) {
  llvm::json::Array opsJSON;
  for (const OpShape &op : features.ops)
    opsJSON.push_back(
        llvm::json::Object{{"parallel", llvm::json::Array(op.parallelSizes)},
                           {"reduction_loops", op.reductionLoops},
                           {"inner_reduction", op.innerReductionSize}});
  return llvm::json::Object{{"problem", features.problem},
                            {"element_type", features.elementType},
                            {"ops", std::move(opsJSON)}};
}

bool kf::fromJSON(const llvm::json::Value &value, ProblemFeatures &features,
                  llvm::json::Path path) {
  const llvm::json::Object *object = value.getAsObject();
  const llvm::json::Array *ops = object ? object->getArray("ops") : nullptr;
  if (!ops) {
    path.report("expected an object with ops");
    return false;
  }
  features = ProblemFeatures();
  features.problem = object->getString("problem").value_or("").str();
  features.elementType = object->getString("element_type").value_or("").str();
  for (auto [index, opValue] : llvm::enumerate(*ops)) {
    const llvm::json::Object *op = opValue.getAsObject();
    const llvm::json::Array *parallel = op ? op->getArray("parallel") : nullptr;
    if (!parallel) {
      path.field("ops").index(index).report("expected parallel sizes");
      return false;
    }
    OpShape shape;
    for (const llvm::json::Value &size : *parallel)
      shape.parallelSizes.push_back(size.getAsInteger().value_or(0));
    shape.reductionLoops = op->getInteger("reduction_loops").value_or(0);
    shape.innerReductionSize = op->getInteger("inner_reduction").value_or(0);
    features.ops.push_back(std::move(shape));
  }
  return true;
}

double kf::similarity(const ProblemFeatures &a, const ProblemFeatures &b) {
  if (a.ops.size() != b.ops.size() || a.elementType != b.elementType)
    return 0;
  // Sum of |log2 ratio| of every loop range: 0 for identical shapes.
  double distance = 0;
  auto logRatio = [](int64_t x, int64_t y) {
    return std::fabs(std::log2(double(std::max<int64_t>(x, 1))) -
                     std::log2(double(std::max<int64_t>(y, 1))));
  };
  for (auto [x, y] : llvm::zip_equal(a.ops, b.ops)) {
    if (x.parallelSizes.size() != y.parallelSizes.size() ||
        x.reductionLoops != y.reductionLoops)
      return 0;
    for (auto [p, q] : llvm::zip_equal(x.parallelSizes, y.parallelSizes))
      distance += logRatio(p, q);
    distance += logRatio(x.innerReductionSize, y.innerReductionSize);
  }
  return 1 / (1 + distance / 4);
}

//===----------------------------------------------------------------------===//
// Frozen weights
//===----------------------------------------------------------------------===//

ActionWeights::ActionWeights(llvm::ArrayRef<ActionStats> stats) {
  for (const ActionStats &s : stats)
    expected[{s.trigger, s.action}] = s.expectedSuccess();
}

double ActionWeights::weight(llvm::ArrayRef<std::string> triggers,
                             llvm::StringRef action) const {
  double sum = 0;
  unsigned count = 0;
  for (const std::string &trigger : triggers) {
    auto it = expected.find({trigger, action.str()});
    sum += it == expected.end() ? 0.5 : it->second;
    ++count;
  }
  return std::max(0.05, count ? sum / count : 0.5);
}

std::vector<std::string>
ActionWeights::describe(llvm::ArrayRef<std::string> triggers,
                        unsigned limit) const {
  std::vector<std::pair<double, std::string>> lines;
  for (const auto &[key, value] : expected)
    if (llvm::is_contained(triggers, key.first))
      lines.push_back(
          {value, llvm::formatv("after {0}, {1} helped in {2:F0}% of tries",
                                key.first, key.second, value * 100)
                      .str()});
  std::stable_sort(
      lines.begin(), lines.end(),
      [](const auto &a, const auto &b) { return a.first > b.first; });
  std::vector<std::string> result;
  for (auto &line : lines)
    if (result.size() < limit)
      result.push_back(std::move(line.second));
  return result;
}

llvm::json::Value kf::toJSON(const ActionWeights &weights) {
  llvm::json::Array entries;
  for (const auto &[key, value] : weights.table())
    entries.push_back(llvm::json::Object{
        {"trigger", key.first}, {"action", key.second}, {"expected", value}});
  return entries;
}

bool kf::fromJSON(const llvm::json::Value &value, ActionWeights &weights,
                  llvm::json::Path path) {
  const llvm::json::Array *entries = value.getAsArray();
  if (!entries) {
    path.report("expected an array");
    return false;
  }
  ActionWeights::Table table;
  for (auto [index, entry] : llvm::enumerate(*entries)) {
    std::string trigger, action;
    double expected = 0;
    llvm::json::ObjectMapper mapper(entry, path.index(index));
    if (!mapper || !mapper.map("trigger", trigger) ||
        !mapper.map("action", action) || !mapper.map("expected", expected))
      return false;
    table[{trigger, action}] = expected;
  }
  weights = ActionWeights(std::move(table));
  return true;
}

//===----------------------------------------------------------------------===//
// Snapshots
//===----------------------------------------------------------------------===//

llvm::Expected<LibrarySnapshot>
LibrarySnapshot::take(ExperienceLibrary &library,
                      const ProblemFeatures &features,
                      const RestructureFn &restructure, unsigned limit) {
  LibrarySnapshot snapshot;
  llvm::Expected<std::vector<ActionStats>> stats = library.actionStats();
  if (!stats)
    return stats.takeError();
  snapshot.weights = ActionWeights(*stats);
  llvm::Expected<std::vector<Experience>> similar =
      library.retrieve(features, limit);
  if (!similar)
    return similar.takeError();
  for (const Experience &experience : *similar) {
    std::optional<Schedule> adapted =
        adaptGenome(experience.schedule, restructure);
    if (!adapted)
      continue;
    std::string name = "library:" + experience.features.problem;
    snapshot.seeds.push_back({name, *adapted});
    snapshot.notes.push_back(
        llvm::formatv("{0}: the best schedule of {1} ({2}, {3:F2}x over its "
                      "default; similarity {4:F2})",
                      name, experience.features.problem, experience.evaluator,
                      experience.speedup, experience.similarity)
            .str());
  }
  return snapshot;
}

llvm::json::Value kf::toJSON(const LibrarySnapshot &snapshot) {
  llvm::json::Array seedsJSON;
  for (const auto &[name, genome] : snapshot.seeds)
    seedsJSON.push_back(
        llvm::json::Object{{"name", name}, {"schedule", toJSON(genome)}});
  llvm::json::Object object{{"weights", toJSON(snapshot.weights)},
                            {"seeds", std::move(seedsJSON)},
                            {"notes", llvm::json::Array(snapshot.notes)}};
  if (snapshot.settings)
    object["search_settings"] = toJSON(*snapshot.settings);
  return object;
}

bool kf::fromJSON(const llvm::json::Value &value, LibrarySnapshot &snapshot,
                  llvm::json::Path path) {
  const llvm::json::Object *object = value.getAsObject();
  const llvm::json::Value *weights = object ? object->get("weights") : nullptr;
  const llvm::json::Array *seeds = object ? object->getArray("seeds") : nullptr;
  const llvm::json::Array *notes = object ? object->getArray("notes") : nullptr;
  if (!weights || !seeds || !notes) {
    path.report("expected weights, seeds and notes");
    return false;
  }
  snapshot = LibrarySnapshot();
  if (!fromJSON(*weights, snapshot.weights, path.field("weights")))
    return false;
  for (auto [index, seed] : llvm::enumerate(*seeds)) {
    const llvm::json::Object *seedObject = seed.getAsObject();
    const llvm::json::Value *schedule =
        seedObject ? seedObject->get("schedule") : nullptr;
    Schedule genome;
    llvm::json::Path seedPath = path.field("seeds").index(index);
    if (!schedule) {
      seedPath.report("expected a schedule");
      return false;
    }
    if (!fromJSON(*schedule, genome, seedPath.field("schedule")))
      return false;
    snapshot.seeds.push_back(
        {seedObject->getString("name").value_or("").str(), genome});
  }
  for (const llvm::json::Value &note : *notes)
    snapshot.notes.push_back(note.getAsString().value_or("").str());
  if (const llvm::json::Value *settings = object->get("search_settings")) {
    SearchSettings read;
    if (!fromJSON(*settings, read, path.field("search_settings")))
      return false;
    snapshot.settings = read;
  }
  return true;
}
