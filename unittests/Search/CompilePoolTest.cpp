//===- CompilePoolTest.cpp - Isolated compile workers ---------------------===//
//
// The pool against stand-in workers (shell scripts): one that answers, one
// that crashes, one that never answers. A real worker is kf-evolve
// compile-worker (tested end to end by test/Search).
//
//===----------------------------------------------------------------------===//

#include "kf/Search/CompilePool.h"

#include "gtest/gtest.h"

#include <set>
#include <thread>

using namespace kf;
using namespace std::chrono_literals;

namespace {

std::vector<std::string> shell(const std::string &script) {
  return {"/bin/sh", "-c", script};
}

TEST(CompilePool, CompilesEveryScriptAndReportsEachOnce) {
  // Answers each request with its length as the predicted time.
  CompilePool pool(
      shell("while read -r line; do printf '{\"status\":\"compiled\","
            "\"predicted_seconds\":%d,\"triggers\":[\"memory-bound\"]}\\n' "
            "${#line}; done"),
      2, 10s);
  std::vector<CandidateSource> scripts;
  for (const char *text : {"a", "bb", "ccc", "dddd", "eeeee"})
    scripts.push_back({CandidateKind::Schedule, text});
  std::set<size_t> seen;
  pool.compile(scripts, [&](size_t index, CompileReply reply) {
    EXPECT_TRUE(seen.insert(index).second);
    EXPECT_EQ(reply.status, CandidateStatus::Compiled);
    EXPECT_EQ(reply.triggers, std::vector<std::string>{"memory-bound"});
    // {"kind":"schedule","text":"..."} is 29 characters plus the text.
    EXPECT_EQ(reply.predictedSeconds, 29.0 + scripts[index].text.size());
  });
  EXPECT_EQ(seen.size(), scripts.size());
  // The workers are reused: five scripts, at most two starts. Not exactly
  // two: a thread that frees its slot before the other thread leases one
  // lets the other take the same worker (one start; seen 1 run in 20 on a
  // loaded 2-core machine).
  EXPECT_GE(pool.starts(), 1u);
  EXPECT_LE(pool.starts(), 2u);
}

TEST(CompilePool, ConcurrentCompilesShareTheWorkersWithoutMixingReplies) {
  // Two callers at once (the search compiles one round while it measures
  // the other): each gets its own replies, and the pool starts no more
  // workers than its size. A worker shared by both would answer one
  // caller's request with the other's length.
  CompilePool pool(
      shell("while read -r line; do sleep 0.05; printf "
            "'{\"status\":\"compiled\",\"predicted_seconds\":%d}\\n' "
            "${#line}; done"),
      2, 10s);
  auto compileAll = [&](const std::string &prefix, unsigned &matched) {
    std::vector<CandidateSource> scripts;
    for (unsigned length = 1; length <= 6; ++length)
      scripts.push_back(
          {CandidateKind::Schedule, prefix + std::string(length, 'x')});
    pool.compile(scripts, [&](size_t index, CompileReply reply) {
      if (reply.predictedSeconds == 29.0 + scripts[index].text.size())
        ++matched;
    });
  };
  unsigned matchedShort = 0, matchedLong = 0;
  std::thread other([&] { compileAll(std::string(40, 'y'), matchedLong); });
  compileAll("", matchedShort);
  other.join();
  EXPECT_EQ(matchedShort, 6u);
  EXPECT_EQ(matchedLong, 6u);
  EXPECT_EQ(pool.starts(), 2u);
}

TEST(CompilePool, ACrashCostsOneCandidateAndAWorker) {
  // Crashes on requests mentioning "boom", answers the others.
  CompilePool pool(
      shell("while read -r line; do case \"$line\" in *boom*) echo dying >&2; "
            "kill -SEGV $$;; esac; echo '{\"status\":\"compiled\"}'; done"),
      1, 10s);
  std::vector<std::string> statuses(3);
  pool.compile({{CandidateKind::Schedule, "fine"},
                {CandidateKind::Schedule, "boom"},
                {CandidateKind::Kernel, "fine again"}},
               [&](size_t index, CompileReply reply) {
                 statuses[index] = formatStatus(reply.status, reply.stage);
                 if (index == 1) {
                   EXPECT_NE(reply.error.find("dying"), std::string::npos)
                       << reply.error;
                 }
               });
  EXPECT_EQ(statuses, (std::vector<std::string>{"compiled", "compile-crash",
                                                "compiled"}));
  EXPECT_EQ(pool.starts(), 2u); // restarted after the crash
}

TEST(CompilePool, ACompileOverTheLimitTimesOut) {
  CompilePool pool(shell("while read -r line; do sleep 30; done"), 1, 200ms);
  auto started = std::chrono::steady_clock::now();
  std::string status;
  pool.compile({{CandidateKind::Schedule, "slow"}},
               [&](size_t, CompileReply reply) {
                 status = formatStatus(reply.status, reply.stage);
               });
  EXPECT_EQ(status, "compile-timeout");
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
}

TEST(CompilePool, AWorkerThatCannotStartIsACrashNotAnAbort) {
  CompilePool pool({"/nonexistent/kf-evolve", "compile-worker"}, 1, 1s);
  std::string status;
  pool.compile({{CandidateKind::Schedule, "x"}},
               [&](size_t, CompileReply reply) {
                 status = formatStatus(reply.status, reply.stage);
               });
  EXPECT_EQ(status, "compile-crash");
}

TEST(CompileReply, TravelsWithItsLaunchPlan) {
  CompileReply reply;
  reply.status = CandidateStatus::Compiled;
  reply.kernels = 1;
  reply.triggers = {"memory-bound"};
  LaunchPlan plan;
  plan.function = "forward";
  plan.numArguments = 1;
  plan.buffers.push_back({PlanBuffer::Kind::Argument, 0, 64});
  plan.modules["kernels"] = {PlanModule::Format::PTX, "sm_90", ".version 8.0"};
  reply.plan = plan;
  std::string text;
  llvm::raw_string_ostream(text) << toJSON(reply);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  ASSERT_TRUE(!!parsed);
  CompileReply read;
  llvm::json::Path::Root root("reply");
  ASSERT_TRUE(fromJSON(*parsed, read, root));
  EXPECT_EQ(read.status, CandidateStatus::Compiled);
  EXPECT_EQ(read.triggers, reply.triggers);
  ASSERT_TRUE(read.plan);
  EXPECT_EQ(read.plan->function, "forward");
  EXPECT_EQ(read.plan->modules["kernels"].image, ".version 8.0");

  // A plan that does not read, or no status: not a reply (the pool then
  // reports a compile-crash), with the field that failed.
  (*parsed->getAsObject())["plan"] = llvm::json::Object{{"function", "f"}};
  EXPECT_FALSE(fromJSON(*parsed, read, root));
  EXPECT_EQ(llvm::toString(root.getError()),
            "missing value at reply.plan.arguments");
  EXPECT_FALSE(fromJSON(llvm::json::Object{{"error", "x"}}, read, root));
}

} // namespace
