//===- RecordsTest.cpp - A run's records and what they belong to ----------===//

#include "kf/Search/Records.h"
#include "TemporaryDirectory.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

using namespace kf;

namespace {

/// Each test's scratch directory.
struct TemporaryDirectory : kf::testing::TemporaryDirectory {
  TemporaryDirectory() : kf::testing::TemporaryDirectory("kf-records") {}
};

llvm::json::Object identityOf(llvm::StringRef problem, llvm::StringRef hash) {
  return llvm::json::Object{{"problem", problem}, {"problem_sha256", hash}};
}

TEST(CandidateRecords, ANewRunRefusesAnotherRunsRecordsUnlessReplacing) {
  TemporaryDirectory directory;
  auto first = CandidateRecords::open(directory.path, "softmax", false,
                                      identityOf("softmax", "aa"));
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  std::string firstId = (*first)->getRunId();
  Outcome outcome;
  outcome.status = CandidateStatus::Correct;
  outcome.seconds = 1e-3;
  (*first)->append(CandidateSource{CandidateKind::Schedule, "script"}, outcome,
                   "cost-model");
  first->reset();
  auto second = CandidateRecords::open(directory.path, "softmax", false,
                                       identityOf("softmax", "aa"));
  ASSERT_FALSE(bool(second));
  std::string message = llvm::toString(second.takeError());
  EXPECT_NE(message.find("holds the records of run " + firstId),
            std::string::npos)
      << message;
  // An empty records file (a run that failed before its first candidate)
  // is not another run's records.
  TemporaryDirectory empty;
  auto failed = CandidateRecords::open(empty.path, "softmax", false,
                                       identityOf("softmax", "aa"));
  ASSERT_TRUE(bool(failed)) << llvm::toString(failed.takeError());
  failed->reset();
  auto again = CandidateRecords::open(empty.path, "softmax", false,
                                      identityOf("softmax", "aa"));
  EXPECT_TRUE(bool(again)) << llvm::toString(again.takeError());
  auto replaced = CandidateRecords::open(directory.path, "softmax", false,
                                         identityOf("softmax", "aa"),
                                         /*replace=*/true);
  EXPECT_TRUE(bool(replaced)) << llvm::toString(replaced.takeError());
}

TEST(CandidateRecords, ResumedOutcomesKeepTheirKernelsAndBytes) {
  // result.json lists each candidate's kernels and global bytes; a resumed
  // run replays them from the records, so its result.json is the fresh
  // run's.
  TemporaryDirectory directory;
  auto first = CandidateRecords::open(directory.path, "softmax", false,
                                      identityOf("softmax", "aa"));
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  Outcome outcome{
      CandidateStatus::Correct, 1e-3, {"memory-bound"}, "", "", 3, 1.5e8};
  (*first)->append(CandidateSource{CandidateKind::Schedule, "script"}, outcome,
                   "cost-model");
  first->reset();
  auto resumed = CandidateRecords::open(directory.path, "softmax", true,
                                        identityOf("softmax", "aa"));
  ASSERT_TRUE(bool(resumed)) << llvm::toString(resumed.takeError());
  std::optional<Outcome> replayed = (*resumed)->lookup("script");
  ASSERT_TRUE(replayed);
  EXPECT_EQ(replayed->kernels, 3u);
  EXPECT_EQ(replayed->globalBytes, 1.5e8);
}

TEST(CandidateRecords, ResumeRefusesAnotherProblemSayingWhatDiffers) {
  TemporaryDirectory directory;
  auto first = CandidateRecords::open(directory.path, "softmax", false,
                                      identityOf("softmax", "aa"));
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  first->reset();
  auto other = CandidateRecords::open(directory.path, "relu", true,
                                      identityOf("relu", "bb"));
  ASSERT_FALSE(bool(other));
  std::string message = llvm::toString(other.takeError());
  EXPECT_NE(message.find("problem: recorded \"softmax\", given \"relu\""),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("problem_sha256: recorded \"aa\", given \"bb\""),
            std::string::npos)
      << message;
  auto same = CandidateRecords::open(directory.path, "softmax", true,
                                     identityOf("softmax", "aa"));
  EXPECT_TRUE(bool(same)) << llvm::toString(same.takeError());
}

} // namespace
