//===- ExperienceLibraryTest.cpp - The SQLite experience library ----------===//

#include "kf/Search/ExperienceLibrary.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

using namespace kf;

namespace {

/// A fresh library file in a temporary directory, removed afterwards.
class LibraryTest : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_FALSE(llvm::sys::fs::createUniqueDirectory("kf-library", dir));
    path = std::string(dir) + "/library.sqlite";
  }
  void TearDown() override { llvm::sys::fs::remove_directories(dir); }

  std::unique_ptr<ExperienceLibrary> open() {
    llvm::Expected<std::unique_ptr<ExperienceLibrary>> library =
        ExperienceLibrary::open(path);
    if (!library) {
      ADD_FAILURE() << llvm::toString(library.takeError());
      return nullptr;
    }
    return std::move(*library);
  }

  llvm::SmallString<128> dir;
  std::string path;
};

ProblemFeatures rowReduction(llvm::StringRef name, int64_t rows,
                             int64_t columns) {
  ProblemFeatures features;
  features.problem = name.str();
  features.elementType = "f32";
  features.ops = {OpShape{{rows}, 0, 0}, OpShape{{rows}, columns, 1}};
  return features;
}

Schedule someSchedule(int64_t threads) {
  Schedule schedule;
  OpSchedule op;
  op.blockTile = {threads};
  op.threads = {threads};
  schedule.ops = {op, op};
  return schedule;
}

const ActionStats *find(llvm::ArrayRef<ActionStats> stats,
                        llvm::StringRef trigger, llvm::StringRef action) {
  for (const ActionStats &s : stats)
    if (s.trigger == trigger && s.action == action)
      return &s;
  return nullptr;
}

TEST_F(LibraryTest, IsSeededWithTheCuratedRulesAndTheirSources) {
  auto library = open();
  ASSERT_TRUE(library);
  llvm::Expected<std::vector<ActionStats>> stats = library->actionStats();
  ASSERT_TRUE(bool(stats));
  ASSERT_FALSE(stats->empty());
  for (const ActionStats &s : *stats) {
    EXPECT_FALSE(s.source.empty()) << s.trigger << " -> " << s.action;
    EXPECT_GT(s.priorTries, 0);
    EXPECT_EQ(s.tries, 0);
  }
  EXPECT_TRUE(find(*stats, "low-parallelism", "split-reduction"));
  // Opening again does not duplicate anything.
  library.reset();
  library = open();
  EXPECT_EQ(library->actionStats()->size(), stats->size());
  EXPECT_EQ(*library->integrityCheck(), "ok");
}

TEST_F(LibraryTest, CountsEachObservationOnce) {
  auto library = open();
  ASSERT_TRUE(library);
  std::vector<std::string> triggers = {"latency-bound", "low-parallelism"};
  ASSERT_FALSE(bool(
      library->recordTry("run-1", 7, triggers, "split-reduction", true, 3.0)));
  // The same candidate of the same run again (a resumed run): no change.
  ASSERT_FALSE(bool(
      library->recordTry("run-1", 7, triggers, "split-reduction", true, 3.0)));
  ASSERT_FALSE(bool(
      library->recordTry("run-1", 8, triggers, "split-reduction", false, 0)));
  llvm::Expected<std::vector<ActionStats>> stats = library->actionStats();
  ASSERT_TRUE(bool(stats));
  const ActionStats *split = find(*stats, "low-parallelism", "split-reduction");
  ASSERT_TRUE(split);
  EXPECT_EQ(split->tries, 2);
  EXPECT_EQ(split->successes, 1);
  EXPECT_DOUBLE_EQ(split->speedupSum, 3.0);
  // A pair no rule names starts from no prior.
  const ActionStats *fresh = find(*stats, "latency-bound", "split-reduction");
  ASSERT_TRUE(fresh);
  EXPECT_EQ(fresh->tries, 2);
}

TEST_F(LibraryTest, KeepsTheFastestScheduleAndRetrievesBySimilarity) {
  auto library = open();
  ASSERT_TRUE(library);
  ProblemFeatures small = rowReduction("sum-small", 128, 4096);
  ProblemFeatures large = rowReduction("sum-large", 4096, 393216);
  ASSERT_FALSE(bool(
      library->recordBest(small, "gpu", someSchedule(64), 2e-3, 2.0, "run-1")));
  // A slower schedule for the same problem does not replace the best.
  ASSERT_FALSE(bool(
      library->recordBest(small, "gpu", someSchedule(32), 3e-3, 1.5, "run-2")));
  ASSERT_FALSE(bool(library->recordBest(large, "gpu", someSchedule(256), 1e-3,
                                        9.0, "run-3")));
  // An elementwise problem cannot lend its schedule to a reduction.
  ProblemFeatures elementwise;
  elementwise.problem = "relu";
  elementwise.elementType = "f32";
  elementwise.ops = {OpShape{{4096, 4096}, 0, 0}};
  ASSERT_FALSE(bool(library->recordBest(elementwise, "gpu", someSchedule(64),
                                        1e-3, 1.7, "run-4")));

  llvm::Expected<std::vector<Experience>> found =
      library->retrieve(rowReduction("sum-medium", 256, 8192), 5);
  ASSERT_TRUE(bool(found));
  ASSERT_EQ(found->size(), 2u);
  EXPECT_EQ((*found)[0].features.problem, "sum-small"); // closer shapes
  EXPECT_EQ((*found)[0].schedule.ops[0].threads[0], 64);
  EXPECT_DOUBLE_EQ((*found)[0].seconds, 2e-3);
  EXPECT_EQ((*found)[1].features.problem, "sum-large");
  EXPECT_GT((*found)[0].similarity, (*found)[1].similarity);
}

TEST_F(LibraryTest, ExportsAndImportsIntoANewLibraryUnchanged) {
  auto library = open();
  ASSERT_TRUE(library);
  std::vector<std::string> triggers = {"low-parallelism"};
  // A speedup with all 17 digits: exports must not round it.
  ASSERT_FALSE(bool(library->recordTry("run-1", 3, triggers, "split-reduction",
                                       true, 1.0123456789012345)));
  ASSERT_FALSE(bool(library->recordBest(rowReduction("sum", 128, 4096), "gpu",
                                        someSchedule(64), 4.397283372365339e-6,
                                        2.0, "run-1")));
  llvm::Expected<llvm::json::Value> exported = library->exportJSON();
  ASSERT_TRUE(bool(exported));

  std::string copyPath = std::string(dir) + "/copy.sqlite";
  llvm::Expected<std::unique_ptr<ExperienceLibrary>> copy =
      ExperienceLibrary::open(copyPath);
  ASSERT_TRUE(bool(copy)) << llvm::toString(copy.takeError());
  ASSERT_FALSE(bool((*copy)->importJSON(*exported)));
  llvm::Expected<llvm::json::Value> reexported = (*copy)->exportJSON();
  ASSERT_TRUE(bool(reexported));
  exported->getAsObject()->erase("path");
  reexported->getAsObject()->erase("path");
  EXPECT_EQ(*exported, *reexported);
  // The counted candidate came along: a resumed run does not count it again.
  ASSERT_FALSE(bool(
      (*copy)->recordTry("run-1", 3, triggers, "split-reduction", true, 2.0)));
  EXPECT_EQ(find(*(*copy)->actionStats(), "low-parallelism", "split-reduction")
                ->tries,
            1);

  // A library that has learned something is not overwritten.
  llvm::Error refused = (*copy)->importJSON(*exported);
  ASSERT_TRUE(bool(refused));
  EXPECT_NE(llvm::toString(std::move(refused)).find("import into a new"),
            std::string::npos);
  // Nor is anything imported from a file that is not an export.
  std::string otherPath = std::string(dir) + "/other.sqlite";
  llvm::Expected<std::unique_ptr<ExperienceLibrary>> other =
      ExperienceLibrary::open(otherPath);
  ASSERT_TRUE(bool(other)) << llvm::toString(other.takeError());
  llvm::Error invalid = (*other)->importJSON(llvm::json::Object{{"x", 1}});
  ASSERT_TRUE(bool(invalid));
  EXPECT_NE(llvm::toString(std::move(invalid))
                .find("not an exported experience library"),
            std::string::npos);
}

TEST(Similarity, IsOneForEqualShapesAndZeroForDifferentStructure) {
  ProblemFeatures a = rowReduction("a", 128, 4096);
  EXPECT_DOUBLE_EQ(similarity(a, a), 1.0);
  ProblemFeatures b = rowReduction("b", 256, 4096);
  EXPECT_GT(similarity(a, b), 0.0);
  EXPECT_LT(similarity(a, b), 1.0);
  ProblemFeatures f16 = a;
  f16.elementType = "f16";
  EXPECT_EQ(similarity(a, f16), 0.0);
  ProblemFeatures oneOp = a;
  oneOp.ops.pop_back();
  EXPECT_EQ(similarity(a, oneOp), 0.0);
}

TEST(ActionWeights, AverageOverTriggersAndRoundTripThroughJSON) {
  ActionStats likely;
  likely.trigger = "narrow-access";
  likely.action = "vector-width";
  likely.priorTries = 8;
  likely.priorSuccesses = 8; // (8 + 1) / (8 + 2) = 0.9
  ActionWeights weights(llvm::ArrayRef<ActionStats>{likely});
  EXPECT_NEAR(weights.weight({"narrow-access"}, "vector-width"), 0.9, 1e-12);
  // An unknown pair counts 0.5.
  EXPECT_NEAR(weights.weight({"narrow-access", "other"}, "vector-width"), 0.7,
              1e-12);
  EXPECT_NEAR(weights.weight({}, "threads"), 0.5, 1e-12);
  ActionWeights copy;
  llvm::json::Path::Root root;
  ASSERT_TRUE(fromJSON(toJSON(weights), copy, root));
  EXPECT_NEAR(copy.weight({"narrow-access"}, "vector-width"), 0.9, 1e-12);
  EXPECT_FALSE(fromJSON(llvm::json::Value("nonsense"), copy, root));
}

TEST_F(LibraryTest, KeepsRunRecordsInOrderUpToTheFirstGap) {
  std::unique_ptr<ExperienceLibrary> library = open();
  ASSERT_TRUE(library);
  ASSERT_FALSE(bool(library->recordRunStart("run-a", "softmax", "{}")));
  // A second start (a resumed run) changes nothing.
  ASSERT_FALSE(bool(library->recordRunStart("run-a", "relu", "{\"x\": 1}")));
  ASSERT_FALSE(bool(library->recordCandidate("run-a", 1, "second")));
  ASSERT_FALSE(bool(library->recordCandidate("run-a", 0, "first")));
  // The same record again is fine; another one under the same number is
  // a run continued twice, differently.
  ASSERT_FALSE(bool(library->recordCandidate("run-a", 0, "first")));
  llvm::Error twice = library->recordCandidate("run-a", 0, "again");
  ASSERT_TRUE(bool(twice));
  EXPECT_NE(llvm::toString(std::move(twice)).find("continued twice"),
            std::string::npos);
  // Ordinal 2 never arrived (a kill between the file and the database):
  // what follows the gap is not a record of this run's order.
  ASSERT_FALSE(bool(library->recordCandidate("run-a", 3, "fourth")));
  ASSERT_FALSE(bool(library->recordRunStart("run-b", "relu", "{}")));

  llvm::Expected<RunRecords> records = library->runRecords("run-a");
  ASSERT_TRUE(bool(records)) << llvm::toString(records.takeError());
  EXPECT_EQ(records->problem, "softmax");
  EXPECT_EQ(records->snapshot, "{}");
  EXPECT_EQ(records->records, (std::vector<std::string>{"first", "second"}));

  llvm::Expected<std::vector<RunSummary>> runs = library->listRuns();
  ASSERT_TRUE(bool(runs)) << llvm::toString(runs.takeError());
  ASSERT_EQ(runs->size(), 2u);
  EXPECT_EQ((*runs)[0].run, "run-a");
  EXPECT_EQ((*runs)[0].candidates, 2);
  EXPECT_EQ((*runs)[1].run, "run-b");
  EXPECT_EQ((*runs)[1].candidates, 0);

  llvm::Expected<RunRecords> missing = library->runRecords("run-c");
  ASSERT_FALSE(bool(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("has no run 'run-c'"),
            std::string::npos);
}

TEST_F(LibraryTest, KeepsABatchOfRecordsWhollyOrNotAtAll) {
  std::unique_ptr<ExperienceLibrary> library = open();
  ASSERT_TRUE(library);
  ASSERT_FALSE(bool(library->recordRunStart("run-a", "softmax", "{}")));
  ASSERT_FALSE(bool(library->recordCandidate("run-a", 1, "second")));
  // Records 0-2, of which 1 is already there and the same: kept.
  ASSERT_FALSE(bool(
      library->recordCandidates("run-a", 0, {"first", "second", "third"})));
  // Records 3-5, of which 4 would contradict one kept: none is kept.
  ASSERT_FALSE(bool(library->recordCandidate("run-a", 4, "fifth")));
  llvm::Error contradicting =
      library->recordCandidates("run-a", 3, {"fourth", "other", "sixth"});
  ASSERT_TRUE(bool(contradicting));
  EXPECT_NE(llvm::toString(std::move(contradicting)).find("continued twice"),
            std::string::npos);
  llvm::Expected<RunRecords> records = library->runRecords("run-a");
  ASSERT_TRUE(bool(records)) << llvm::toString(records.takeError());
  EXPECT_EQ(records->records,
            (std::vector<std::string>{"first", "second", "third"}));
}

TEST(ScheduleJSON, RoundTrips) {
  Schedule schedule = someSchedule(64);
  schedule.fuseElementwise = true;
  schedule.splitFactors = {0, 256};
  schedule.ops[1].reductionStep = 8;
  schedule.ops[1].stageTile = 16;
  schedule.ops[0].vectorWidth = 4;
  Schedule copy;
  llvm::json::Path::Root root;
  ASSERT_TRUE(fromJSON(toJSON(schedule), copy, root));
  EXPECT_EQ(copy.ops[1].stageTile, 16);
  EXPECT_EQ(copy.ops[0].stageTile, 0);
  // Schedules stored before the stage gene existed still load.
  llvm::json::Value stored = toJSON(schedule);
  for (llvm::json::Value &op : *stored.getAsObject()->getArray("ops"))
    op.getAsObject()->erase("stage");
  Schedule old;
  llvm::json::Path::Root oldRoot;
  ASSERT_TRUE(fromJSON(stored, old, oldRoot));
  EXPECT_EQ(old.ops[1].stageTile, 0);
  EXPECT_TRUE(copy.fuseElementwise);
  EXPECT_FALSE(copy.collapseReductions);
  EXPECT_EQ(copy.splitFactors, schedule.splitFactors);
  ASSERT_EQ(copy.ops.size(), 2u);
  EXPECT_EQ(copy.ops[0].vectorWidth, 4);
  EXPECT_EQ(copy.ops[1].reductionStep, 8);
  EXPECT_EQ(copy.ops[1].threads, schedule.ops[1].threads);
  Schedule bad;
  llvm::json::Path::Root badRoot;
  EXPECT_FALSE(fromJSON(llvm::json::Object{{"fuse", true}}, bad, badRoot));
}

} // namespace
