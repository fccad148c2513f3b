//===- WorkerPoolTest.cpp - Choosing GPUs and measuring on several --------===//

#include "kf/Runtime/Worker.h"

#include "gtest/gtest.h"

#include <chrono>
#include <cstdio>

using namespace kf;

namespace {

const std::vector<GpuInfo> kTwoH200 = {{0, "NVIDIA H200"}, {1, "NVIDIA H200"}};

std::string selectionError(llvm::StringRef selection,
                           llvm::ArrayRef<GpuInfo> available) {
  llvm::Expected<std::vector<GpuInfo>> chosen =
      selectGpus(selection, available);
  if (chosen)
    return "selected " + std::to_string(chosen->size());
  return llvm::toString(chosen.takeError());
}

TEST(SelectGpus, AllOrListedOrdinals) {
  llvm::Expected<std::vector<GpuInfo>> all = selectGpus("all", kTwoH200);
  ASSERT_TRUE(!!all);
  EXPECT_EQ(all->size(), 2u);
  llvm::Expected<std::vector<GpuInfo>> one = selectGpus("1", kTwoH200);
  ASSERT_TRUE(!!one);
  ASSERT_EQ(one->size(), 1u);
  EXPECT_EQ(one->front().ordinal, 1);
  llvm::Expected<std::vector<GpuInfo>> both = selectGpus("1, 0", kTwoH200);
  ASSERT_TRUE(!!both);
  EXPECT_EQ((*both)[0].ordinal, 1);
  EXPECT_EQ((*both)[1].ordinal, 0);
}

std::string parsed(llvm::StringRef selection) {
  llvm::Expected<std::optional<std::vector<int>>> ordinals =
      parseGpuSelection(selection);
  if (!ordinals)
    return llvm::toString(ordinals.takeError());
  if (!*ordinals)
    return "all";
  std::string list;
  for (int ordinal : **ordinals)
    list += (list.empty() ? "" : " ") + std::to_string(ordinal);
  return list;
}

TEST(ParseGpuSelection, WithoutAnyGpu) {
  EXPECT_EQ(parsed("all"), "all");
  EXPECT_EQ(parsed(" all "), "all");
  EXPECT_EQ(parsed("2, 0,7"), "2 0 7");
  EXPECT_EQ(parsed("0,x"), "--gpus 0,x: 'x' is not a GPU ordinal (give all, "
                           "or ordinals such as 0,2)");
  EXPECT_EQ(parsed("-1"), "--gpus -1: '-1' is not a GPU ordinal (give all, "
                          "or ordinals such as 0,2)");
  EXPECT_EQ(parsed("0,"), "--gpus 0,: '' is not a GPU ordinal (give all, or "
                          "ordinals such as 0,2)");
  EXPECT_EQ(parsed("1,1"), "--gpus 1,1: GPU 1 twice");
}

TEST(SelectGpus, ErrorsNameTheProblem) {
  EXPECT_EQ(selectionError("2", kTwoH200),
            "--gpus 2: no GPU 2 (this host has: 0 (NVIDIA H200), 1 (NVIDIA "
            "H200))");
  EXPECT_EQ(selectionError("0,0", kTwoH200), "--gpus 0,0: GPU 0 twice");
  EXPECT_EQ(selectionError("first", kTwoH200),
            "--gpus first: 'first' is not a GPU ordinal (give all, or "
            "ordinals such as 0,2)");
  EXPECT_EQ(selectionError("all", {}),
            "--gpus all: no GPU selected (this host has: none)");
  std::vector<GpuInfo> mixed = {{0, "NVIDIA H200"}, {1, "NVIDIA H100"}};
  EXPECT_EQ(selectionError("all", mixed),
            "--gpus all: GPU 0 (NVIDIA H200) and GPU 1 (NVIDIA H100) are "
            "different models; a run measures on one model so that its "
            "speedups compare like with like: select GPUs of one model");
  EXPECT_EQ(selectionError("1", mixed), "selected 1");
}

// A stand-in measurement worker: takes 0.3 s per request and answers with
// the device it was asked to use, when it started and ended, and how many
// references it has been sent so far, so the test sees which GPU measured
// what, that the two measured at once, and that each worker got the
// reference once.
const char *kFakeWorker =
    "import json, sys, time\n"
    "references = 0\n"
    "for line in sys.stdin:\n"
    "    request = json.loads(line)\n"
    "    start = time.time()\n"
    "    references += 'reference' in request\n"
    "    assert request['candidate']['function'] == 'candidate'\n"
    "    time.sleep(0.3)\n"
    "    device = request['config'].get('device', -1)\n"
    "    print(json.dumps({'status': 'correct', 'message': '%d %f %f %d' % "
    "(device, start, time.time(), references), 'device': 'fake'}), "
    "flush=True)\n";

/// A plan named `function` with one PTX module, as a compile worker sends.
LaunchPlan planNamed(llvm::StringRef function) {
  LaunchPlan plan;
  plan.function = function.str();
  plan.modules["kernels"] = {PlanModule::Format::PTX, "sm_90", ".version 8.0"};
  return plan;
}

TEST(WorkerPool, MeasuresOnEveryGpuAtOnce) {
  WorkerPool pool({"/usr/bin/env", "python3", "-c", kFakeWorker}, {3, 5});
  ASSERT_EQ(pool.size(), 2u);
  std::mutex mutex;
  struct Interval {
    int device;
    double start, end;
    int references;
  };
  std::vector<Interval> measured;
  auto reference = std::make_shared<const LaunchPlan>(planNamed("reference"));
  for (int i = 0; i < 4; ++i)
    pool.evaluate(
        ProblemSpec(), reference, planNamed("candidate"), EvalConfig(),
        std::chrono::milliseconds(20000),
        [&](EvalResult result, double seconds) {
          std::lock_guard<std::mutex> lock(mutex);
          EXPECT_EQ(result.status, CandidateStatus::Correct) << result.message;
          EXPECT_GT(seconds, 0.25);
          Interval interval;
          std::sscanf(result.message.c_str(), "%d %lf %lf %d", &interval.device,
                      &interval.start, &interval.end, &interval.references);
          measured.push_back(interval);
        });
  pool.wait();
  ASSERT_EQ(measured.size(), 4u);
  // Both GPUs measure, at the same time: some measurement on device 3
  // overlaps one on device 5. (How the four split is the pool's choice: a
  // worker that starts late on a busy machine takes fewer; asking for two
  // each made this test fail under load.)
  unsigned onThree = 0, onFive = 0;
  bool overlap = false;
  for (const Interval &a : measured) {
    // Each worker process was sent the reference once, with its first
    // candidate.
    EXPECT_EQ(a.references, 1);
    onThree += a.device == 3;
    onFive += a.device == 5;
    for (const Interval &b : measured)
      if (a.device == 3 && b.device == 5 && a.start < b.end && b.start < a.end)
        overlap = true;
  }
  EXPECT_GE(onThree, 1u);
  EXPECT_GE(onFive, 1u);
  EXPECT_EQ(onThree + onFive, 4u);
  EXPECT_TRUE(overlap);
  std::vector<double> busy = pool.busySeconds();
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_GT(busy[0], 0.25);
  EXPECT_GT(busy[1], 0.25);
  EXPECT_EQ(pool.starts(), 2u);
}

} // namespace
