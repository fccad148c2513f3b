//===- LocalEvaluator.cpp - Compile here, measure on this host's GPUs -----===//

#include "kf/Search/CandidateEvaluator.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Threading.h"

#include <future>

using namespace llvm;
using namespace mlir;

namespace kf {

CandidateEvaluator::~CandidateEvaluator() = default;

/// What a run ranked by the cost model says it was ranked by.
static constexpr const char *kCostModelName = "cost-model (predictions)";

LocalEvaluator::LocalEvaluator(const SearchConfig &config,
                               const LoadedProblem &problem,
                               EvaluatorName &name)
    : config(config), spec(problem.spec), name(name) {}

LocalEvaluator::~LocalEvaluator() = default;

std::unique_ptr<LocalEvaluator>
LocalEvaluator::create(const SearchConfig &config, const LoadedProblem &problem,
                       EvaluatorName &name, bool useGpu,
                       std::optional<unsigned> hostIndex) {
  std::unique_ptr<LocalEvaluator> evaluator(
      new LocalEvaluator(config, problem, name));
  evaluator->useGpu = useGpu;
  evaluator->evalConfig = config.eval;
  // The default is a candidate like the others.
  evaluator->evalConfig.timeReference = false;
  evaluator->evalConfig.timeIncorrect = false;
  // What this process evaluates with, as an evaluating rank tells rank 0:
  // its GPU's model, or the cost model's target chip (predictions for
  // another chip are another model too).
  evaluator->measuredOnName = "cost model for " + config.input.chip;
  if (useGpu) {
    std::vector<int> devices = {config.eval.device};
    // The host's GPUs, asked once. Without a driver or a device the first
    // measurement says so and falls back to the cost model (--gpus with
    // --evaluator gpu fails here).
    Expected<std::vector<GpuInfo>> listed = listGpus();
    bool haveList = bool(listed);
    std::vector<GpuInfo> available;
    if (haveList) {
      available = std::move(*listed);
    } else if (!config.gpuSelection.empty() &&
               config.evaluator == EvaluatorKind::Gpu) {
      reportError("--gpus: " + toString(listed.takeError()));
      return nullptr;
    } else {
      consumeError(listed.takeError());
    }
    // One GPU per evaluating rank: the evaluating ranks of a host take its
    // GPUs in the order of their ranks.
    if (hostIndex && config.gpuSelection.empty() && !available.empty())
      devices = {available[*hostIndex % available.size()].ordinal};
    if (!config.gpuSelection.empty() && haveList) {
      Expected<std::vector<GpuInfo>> chosen =
          selectGpus(config.gpuSelection, available);
      if (!chosen) {
        reportError(toString(chosen.takeError()));
        return nullptr;
      }
      devices.clear();
      for (const GpuInfo &gpu : *chosen)
        devices.push_back(gpu.ordinal);
    }
    for (const GpuInfo &gpu : available)
      if (gpu.ordinal == devices.front())
        evaluator->measuredOnName = "gpu (" + gpu.name + ")";
    FailureOr<CompiledCandidate> reference =
        compileReference(config.input, problem);
    if (failed(reference))
      return nullptr;
    evaluator->referencePlan =
        std::make_shared<const LaunchPlan>(std::move(reference->plan));
    evaluator->gpus = std::make_unique<WorkerPool>(
        measurementWorkerCommand(config.executable, config.input.chip),
        devices);
  }

  // Candidates compile in worker processes, several at once. A worker
  // reads the problem as this process did: the problem file, or the launch
  // plan's "problem" section.
  std::vector<std::string> command = {config.executable, "compile-worker",
                                      "--chip=" + config.input.chip,
                                      "--format=" + config.input.format};
  command.push_back(problem.selfReferenced()
                        ? "--launch=" + config.input.launchPlanPath
                        : config.input.problemPath);
  if (!config.input.problemName.empty())
    command.push_back("--problem-name=" + config.input.problemName);
  if (useGpu)
    command.push_back("--emit-plan");
  evaluator->compileJobs =
      config.compileJobs
          ? config.compileJobs
          : std::max(1u, llvm::hardware_concurrency().compute_thread_count());
  evaluator->pool = std::make_unique<CompilePool>(
      command, evaluator->compileJobs,
      std::chrono::milliseconds((int64_t)(config.compileTimeout * 1000)));
  return evaluator;
}

/// Each outcome says what ranked it, as its record will: with rounds that
/// overlap, the run's evaluator may change (no GPU answers) before an
/// earlier round is recorded.
/// The triggers of a measured candidate: its static diagnosis's, and
/// `register-spill` when a compiled kernel has local memory while the IR
/// allocates none (no `local-memory` finding): registers ptxas spilled,
/// which only the compiled kernel tells.
static std::vector<std::string> measuredTriggers(const EvalResult &result,
                                                 const CompileReply &reply) {
  std::vector<std::string> triggers = reply.triggers;
  bool spilled = llvm::any_of(result.kernels, [](const KernelResources &k) {
    return k.localBytes > 0;
  });
  if (spilled && !llvm::is_contained(triggers, "local-memory") &&
      !llvm::is_contained(triggers, "register-spill")) {
    triggers.push_back("register-spill");
    llvm::sort(triggers);
  }
  return triggers;
}

Outcome LocalEvaluator::outcomeOf(const EvalResult &result,
                                  const CompileReply &reply) {
  // Once a worker found no GPU, the run ranks by the cost model only:
  // measurements still in flight on other workers are not mixed in.
  if (!useGpu)
    return {CandidateStatus::Correct, reply.predictedSeconds, reply.triggers,
            "", kCostModelName};
  if (result.status == CandidateStatus::NoDevice &&
      config.evaluator == EvaluatorKind::Auto) {
    // No GPU answers: rank by the cost model from here on. One write:
    // other threads may be writing to stderr too.
    errs() << ("kf-evolve: warning: no CUDA device (" + result.message +
               "); ranking candidates with the static cost model: the "
               "times are predictions, not measurements\n");
    useGpu = false;
    name.set(kCostModelName);
    return {CandidateStatus::Correct, reply.predictedSeconds, reply.triggers,
            "", kCostModelName};
  }
  if (result.status != CandidateStatus::Correct || !result.candidateTime)
    return {result.status, 0, measuredTriggers(result, reply), result.message,
            name.get()};
  std::string gpuName = "gpu (" + result.deviceName + ")";
  name.set(gpuName);
  return {CandidateStatus::Correct, result.candidateTime->medianMs / 1e3,
          measuredTriggers(result, reply), "", gpuName};
}

std::vector<Outcome>
LocalEvaluator::evaluate(ArrayRef<CandidateSource> candidates) {
  std::vector<Outcome> outcomes(candidates.size());
  if (candidates.empty())
    return outcomes;
  // Each candidate goes to the next free GPU as soon as it is compiled,
  // while the others still compile.
  std::vector<std::shared_future<void>> measurements;
  pool->compile(candidates, [&](size_t index, CompileReply reply) {
    std::unique_lock<std::mutex> lock(measured);
    if (reply.status != CandidateStatus::Compiled) {
      outcomes[index] = {reply.status, 0, {}, reply.error,
                         name.get(),   0, 0., reply.stage};
      return;
    }
    if (!useGpu) {
      name.set(kCostModelName);
      outcomes[index] = {CandidateStatus::Correct, reply.predictedSeconds,
                         reply.triggers,           "",
                         kCostModelName,           reply.kernels,
                         reply.globalBytes};
      return;
    }
    if (!reply.plan) {
      // The compile workers are started with --emit-plan when a GPU
      // measures: a reply without a plan is a worker that broke its
      // protocol.
      outcomes[index] = {CandidateStatus::CompileCrash,
                         0,
                         {},
                         "the compile worker sent no launch plan",
                         name.get()};
      return;
    }
    lock.unlock();
    LaunchPlan plan = std::move(*reply.plan);
    reply.plan.reset();
    measurements.push_back(gpus->evaluate(
        spec, referencePlan, std::move(plan), evalConfig,
        std::chrono::milliseconds((int64_t)(config.timeoutSeconds * 1000)),
        [&, index, reply = std::move(reply)](EvalResult result, double) {
          std::lock_guard<std::mutex> guard(measured);
          outcomes[index] = outcomeOf(result, reply);
          outcomes[index].kernels = reply.kernels;
          outcomes[index].globalBytes = reply.globalBytes;
        }));
  });
  // This batch's measurements only: another round may be measuring too.
  for (const std::shared_future<void> &measurement : measurements)
    measurement.wait();
  return outcomes;
}

unsigned LocalEvaluator::width() const { return gpus ? gpus->size() : 0; }

std::optional<std::pair<std::vector<int>, double>>
LocalEvaluator::gpuUse() const {
  if (!gpus || !useGpu)
    return std::nullopt;
  std::vector<double> busy = gpus->busySeconds();
  double total = 0;
  for (double seconds : busy)
    total += seconds;
  return std::make_pair(gpus->getDevices(), total);
}

void LocalEvaluator::describeThroughput(
    json::Object &throughput, std::string &line,
    std::chrono::steady_clock::time_point started, double wallSeconds) const {
  throughput["compile_jobs"] = (int64_t)compileJobs;
  throughput["compile_worker_starts"] = (int64_t)pool->starts();
  if (!gpus || !useGpu)
    return;
  json::Array busy, devices;
  std::vector<double> seconds = gpus->busySeconds();
  for (auto [index, ordinal] : llvm::enumerate(gpus->getDevices())) {
    devices.push_back(ordinal);
    busy.push_back(seconds[index] / wallSeconds);
    line +=
        formatv("; GPU {0} busy {1:P0}", ordinal, seconds[index] / wallSeconds)
            .str();
  }
  throughput["gpus"] = std::move(devices);
  throughput["gpu_busy_fraction"] = std::move(busy);
  throughput["measurement_worker_starts"] = (int64_t)gpus->starts();
  // The span in which any GPU measured: before it, the run compiles its
  // first candidates; after it, it writes its results.
  if (auto span = gpus->measuringSpan()) {
    double from = std::chrono::duration<double>(span->first - started).count();
    double to = std::chrono::duration<double>(span->second - started).count();
    throughput["measuring_from_seconds"] = from;
    throughput["measuring_to_seconds"] = to;
    line += formatv("; GPUs measured from {0:F1} s to {1:F1} s of {2:F1} s",
                    from, to, wallSeconds)
                .str();
  }
}

} // namespace kf
