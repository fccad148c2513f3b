//===- Worker.cpp - GPU evaluation in an isolated process -----------------===//

#include "kf/Runtime/Worker.h"

#include "kf/Runtime/CudaDriver.h"
#include "kf/Runtime/LaunchPlan.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Base64.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <iostream>
#include <string>

using namespace kf;

namespace {

void reply(const EvalResult &result) {
  std::string line;
  llvm::raw_string_ostream os(line);
  os << llvm::json::Value(toJSON(result));
  std::cout << line << "\n" << std::flush;
}

EvalResult failure(EvalStatus status, const llvm::Twine &message) {
  EvalResult result;
  result.status = status;
  result.message = message.str();
  return result;
}

/// Parses a lowered module and reads its launch plan; diagnostics go to
/// `errors`.
mlir::FailureOr<LaunchPlan> readPlan(mlir::MLIRContext &context,
                                     llvm::StringRef text, llvm::StringRef name,
                                     std::string &errors) {
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &diag) {
    llvm::raw_string_ostream os(errors);
    os << diag.getLocation() << ": " << diag.str() << "\n";
    return mlir::success();
  });
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context, name);
  if (!module)
    return mlir::failure();
  return buildLaunchPlan(*module);
}

} // namespace

int kf::runWorker(
    mlir::MLIRContext &context,
    llvm::function_ref<llvm::Expected<PlanModule>()> compileRuntimeKernels) {
  std::unique_ptr<GpuEvaluator> evaluator;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty())
      continue;
    llvm::Expected<llvm::json::Value> request = llvm::json::parse(line);
    if (!request) {
      reply(
          failure(EvalStatus::InternalError,
                  "malformed request: " + llvm::toString(request.takeError())));
      continue;
    }
    const llvm::json::Object *object = request->getAsObject();
    ProblemSpec spec;
    EvalConfig config;
    llvm::json::Path::Root root("request");
    std::optional<llvm::StringRef> reference =
        object ? object->getString("reference") : std::nullopt;
    std::optional<llvm::StringRef> candidate =
        object ? object->getString("candidate") : std::nullopt;
    std::optional<llvm::StringRef> op =
        object ? object->getString("op") : std::nullopt;
    bool isRunIO = op == "run-io";
    std::optional<llvm::StringRef> planText =
        object ? object->getString("plan") : std::nullopt;
    if (!object || (op != "evaluate" && !isRunIO) || !object->get("spec") ||
        !fromJSON(*object->get("spec"), spec, root) || !object->get("config") ||
        !fromJSON(*object->get("config"), config, root) ||
        (isRunIO ? !planText : (!reference || !candidate))) {
      reply(failure(EvalStatus::InternalError,
                    "malformed request (evaluate needs spec, config, "
                    "reference, candidate; run-io needs spec, config, plan)"));
      continue;
    }

    if (!evaluator) {
      llvm::Expected<PlanModule> kernels = compileRuntimeKernels();
      if (!kernels) {
        reply(failure(EvalStatus::InternalError,
                      "cannot compile kf's runtime kernels: " +
                          llvm::toString(kernels.takeError())));
        return 1;
      }
      llvm::Expected<std::unique_ptr<GpuEvaluator>> created =
          GpuEvaluator::create(config.device, *kernels);
      if (!created) {
        reply(
            failure(EvalStatus::NoDevice, llvm::toString(created.takeError())));
        return 4;
      }
      evaluator = std::move(*created);
    }

    std::string errors;
    if (isRunIO) {
      mlir::FailureOr<LaunchPlan> plan =
          readPlan(context, *planText, "plan", errors);
      if (failed(plan)) {
        reply(failure(EvalStatus::LoadError,
                      "the worker cannot read the lowered module: " + errors));
        continue;
      }
      int64_t maxBytes =
          object->getInteger("max_bytes").value_or(int64_t(1) << 28);
      EvalResult result;
      std::optional<PlanIO> io =
          evaluator->runForIO(spec, *plan, config.seed, maxBytes, result);
      if (!io) {
        reply(result);
        if (result.contextLost)
          return 3;
        continue;
      }
      llvm::json::Array inputs, outputs;
      for (const std::string &bytes : io->inputs)
        inputs.push_back(llvm::encodeBase64(bytes));
      for (const std::string &bytes : io->outputs)
        outputs.push_back(llvm::encodeBase64(bytes));
      std::string line;
      llvm::raw_string_ostream os(line);
      os << llvm::json::Value(
          llvm::json::Object{{"status", "correct"},
                             {"message", "ok"},
                             {"inputs", std::move(inputs)},
                             {"outputs", std::move(outputs)}});
      std::cout << line << "\n" << std::flush;
      continue;
    }
    mlir::FailureOr<LaunchPlan> referencePlan =
        readPlan(context, *reference, "reference", errors);
    mlir::FailureOr<LaunchPlan> candidatePlan =
        readPlan(context, *candidate, "candidate", errors);
    if (failed(referencePlan) || failed(candidatePlan)) {
      reply(failure(EvalStatus::LoadError,
                    "the worker cannot read the lowered modules: " + errors));
      continue;
    }
    EvalResult result =
        evaluator->evaluate(spec, *referencePlan, *candidatePlan, config);
    reply(result);
    if (result.contextLost)
      return 3;
  }
  return 0;
}

llvm::Expected<llvm::json::Value>
WorkerClient::exchange(llvm::json::Object request,
                       std::chrono::milliseconds timeout, EvalResult &result) {
  auto giveUp = [&](EvalResult failed) -> llvm::Expected<llvm::json::Value> {
    result = std::move(failed);
    return llvm::createStringError(result.message);
  };
  if (process && !process->isRunning())
    process.reset();
  if (!process) {
    llvm::Expected<std::unique_ptr<Subprocess>> spawned =
        Subprocess::spawn(command);
    if (!spawned)
      return giveUp(failure(EvalStatus::InternalError,
                            "cannot start the measurement worker: " +
                                llvm::toString(spawned.takeError())));
    process = std::move(*spawned);
    ++numStarts;
  }
  std::string line;
  llvm::raw_string_ostream os(line);
  os << llvm::json::Value(std::move(request));
  if (llvm::Error error = process->writeLine(line)) {
    std::string tail = process->stderrTail();
    process.reset();
    return giveUp(failure(EvalStatus::Fault,
                          "the measurement worker stopped accepting work: " +
                              llvm::toString(std::move(error)) +
                              (tail.empty() ? "" : "\n" + tail)));
  }
  llvm::Expected<std::string> answer = process->readLine(timeout);
  if (!answer) {
    EvalResult failed;
    llvm::handleAllErrors(
        answer.takeError(),
        [&](const SubprocessTimeout &) {
          failed = failure(
              EvalStatus::Timeout,
              llvm::formatv("the evaluation did not finish within {0} s (a "
                            "kernel that never ends?); the worker was killed "
                            "and will be restarted",
                            timeout.count() / 1000.0));
        },
        [&](const SubprocessExited &exited) {
          std::string tail = process->stderrTail();
          failed = failure(EvalStatus::Fault,
                           "the measurement worker died: " + exited.message() +
                               (tail.empty() ? "" : "\n" + tail));
        },
        [&](const llvm::ErrorInfoBase &other) {
          failed = failure(EvalStatus::InternalError, other.message());
        });
    process->kill();
    process.reset();
    return giveUp(std::move(failed));
  }
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(*answer);
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    process->kill();
    process.reset();
    return giveUp(failure(EvalStatus::InternalError,
                          "the measurement worker sent a malformed reply"));
  }
  return parsed;
}

EvalResult WorkerClient::evaluate(const ProblemSpec &spec,
                                  llvm::StringRef reference,
                                  llvm::StringRef candidate,
                                  const EvalConfig &config,
                                  std::chrono::milliseconds timeout) {
  EvalResult result;
  llvm::Expected<llvm::json::Value> reply =
      exchange(llvm::json::Object{{"op", "evaluate"},
                                  {"spec", toJSON(spec)},
                                  {"config", toJSON(config)},
                                  {"reference", reference},
                                  {"candidate", candidate}},
               timeout, result);
  if (!reply) {
    llvm::consumeError(reply.takeError());
    return result;
  }
  llvm::json::Path::Root root("reply");
  if (!fromJSON(*reply, result, root)) {
    process->kill();
    process.reset();
    return failure(EvalStatus::InternalError,
                   "the measurement worker sent a malformed reply");
  }
  retireIfExiting(result);
  return result;
}

void WorkerClient::retireIfExiting(const EvalResult &result) {
  // The worker exits after a fault or when it found no device: wait for it,
  // so that the next request starts a new one.
  if (result.contextLost || result.status == EvalStatus::NoDevice) {
    process->wait();
    process.reset();
  }
}

llvm::Expected<PlanIO>
WorkerClient::runForIO(const ProblemSpec &spec, llvm::StringRef plan,
                       const EvalConfig &config, int64_t maxBytes,
                       std::chrono::milliseconds timeout) {
  EvalResult result;
  llvm::Expected<llvm::json::Value> reply =
      exchange(llvm::json::Object{{"op", "run-io"},
                                  {"spec", toJSON(spec)},
                                  {"config", toJSON(config)},
                                  {"plan", plan},
                                  {"max_bytes", maxBytes}},
               timeout, result);
  if (!reply)
    return reply.takeError();
  const llvm::json::Object *object = reply->getAsObject();
  if (!object || object->getString("status") != "correct") {
    // Failures come back as an EvalResult.
    EvalResult failed;
    llvm::json::Path::Root root("reply");
    if (!fromJSON(*reply, failed, root))
      return llvm::createStringError("malformed reply");
    retireIfExiting(failed);
    return llvm::createStringError(failed.message);
  }
  PlanIO io;
  for (auto [field, list] :
       {std::pair{"inputs", &io.inputs}, std::pair{"outputs", &io.outputs}}) {
    const llvm::json::Array *array = object->getArray(field);
    if (!array)
      return llvm::createStringError("the reply has no %s", field);
    for (const llvm::json::Value &value : *array) {
      std::vector<char> bytes;
      std::optional<llvm::StringRef> text = value.getAsString();
      if (!text)
        return llvm::createStringError("the reply's %s are not strings", field);
      if (llvm::Error error = llvm::decodeBase64(*text, bytes))
        return std::move(error);
      list->emplace_back(bytes.begin(), bytes.end());
    }
  }
  return io;
}

//===----------------------------------------------------------------------===//
// Several GPUs
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<kf::GpuInfo>> kf::listGpus() {
  llvm::Expected<CudaDriver &> driver = CudaDriver::get();
  if (!driver)
    return driver.takeError();
  int count = 0;
  if (llvm::Error error =
          driver->check(driver->cuDeviceGetCount(&count), "cuDeviceGetCount"))
    return std::move(error);
  std::vector<GpuInfo> gpus;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice device;
    char name[256] = {0};
    if (llvm::Error error =
            driver->check(driver->cuDeviceGet(&device, ordinal), "cuDeviceGet"))
      return std::move(error);
    if (llvm::Error error = driver->check(
            driver->cuDeviceGetName(name, sizeof(name) - 1, device),
            "cuDeviceGetName"))
      return std::move(error);
    gpus.push_back({ordinal, name});
  }
  return gpus;
}

llvm::Expected<std::optional<std::vector<int>>>
kf::parseGpuSelection(llvm::StringRef selection) {
  if (selection.trim() == "all")
    return std::nullopt;
  std::vector<int> ordinals;
  llvm::SmallVector<llvm::StringRef> parts;
  selection.split(parts, ',');
  for (llvm::StringRef part : parts) {
    int ordinal;
    if (part.trim().getAsInteger(10, ordinal) || ordinal < 0)
      return llvm::createStringError(
          "--gpus " + selection + ": '" + part +
          "' is not a GPU ordinal (give all, or ordinals such as 0,2)");
    if (llvm::is_contained(ordinals, ordinal))
      return llvm::createStringError("--gpus " + selection + ": GPU " +
                                     llvm::Twine(ordinal) + " twice");
    ordinals.push_back(ordinal);
  }
  return ordinals;
}

llvm::Expected<std::vector<kf::GpuInfo>>
kf::selectGpus(llvm::StringRef selection, llvm::ArrayRef<GpuInfo> available) {
  auto known = [&] {
    std::string list;
    for (const GpuInfo &gpu : available)
      list += (list.empty() ? "" : ", ") + std::to_string(gpu.ordinal) + " (" +
              gpu.name + ")";
    return list.empty() ? std::string("none") : list;
  };
  llvm::Expected<std::optional<std::vector<int>>> ordinals =
      parseGpuSelection(selection);
  if (!ordinals)
    return ordinals.takeError();
  std::vector<GpuInfo> chosen;
  if (!*ordinals) {
    chosen.assign(available.begin(), available.end());
  } else {
    for (int ordinal : **ordinals) {
      auto it = llvm::find_if(available, [&](const GpuInfo &gpu) {
        return gpu.ordinal == ordinal;
      });
      if (it == available.end())
        return llvm::createStringError("--gpus " + selection + ": no GPU " +
                                       llvm::Twine(ordinal) +
                                       " (this host has: " + known() + ")");
      chosen.push_back(*it);
    }
  }
  if (chosen.empty())
    return llvm::createStringError(
        "--gpus " + selection + ": no GPU selected (this host has: " + known() +
        ")");
  for (const GpuInfo &gpu : chosen)
    if (gpu.name != chosen.front().name)
      return llvm::createStringError(
          "--gpus " + selection + ": GPU " +
          llvm::Twine(chosen.front().ordinal) + " (" + chosen.front().name +
          ") and GPU " + llvm::Twine(gpu.ordinal) + " (" + gpu.name +
          ") are different models; a run measures on one model so that its "
          "speedups compare like with like: select GPUs of one model");
  return chosen;
}

kf::WorkerPool::WorkerPool(std::vector<std::string> command,
                           std::vector<int> devices)
    : devices(std::move(devices)) {
  assert(!this->devices.empty() && "a worker pool needs at least one GPU");
  for (size_t i = 0; i < this->devices.size(); ++i)
    workers.push_back(std::make_unique<WorkerClient>(command));
  busy.assign(workers.size(), 0);
  taken.assign(workers.size(), false);
  threads = std::make_unique<llvm::StdThreadPool>(
      llvm::hardware_concurrency(std::max<size_t>(1, workers.size())));
}

kf::WorkerPool::~WorkerPool() { wait(); }

std::shared_future<void>
kf::WorkerPool::evaluate(ProblemSpec spec, std::string reference,
                         std::string candidate, EvalConfig config,
                         std::chrono::milliseconds timeout,
                         std::function<void(EvalResult, double)> done) {
  return threads->async([this, spec = std::move(spec),
                         reference = std::move(reference),
                         candidate = std::move(candidate), config, timeout,
                         done = std::move(done)]() mutable {
    // As many threads as workers: one is always free when a task starts,
    // but which one is not known in advance.
    size_t slot;
    {
      std::unique_lock<std::mutex> lock(mutex);
      freed.wait(lock, [&] { return llvm::is_contained(taken, false); });
      slot = llvm::find(taken, false) - taken.begin();
      taken[slot] = true;
    }
    config.device = devices[slot];
    auto start = std::chrono::steady_clock::now();
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!firstStart)
        firstStart = start;
    }
    EvalResult result =
        workers[slot]->evaluate(spec, reference, candidate, config, timeout);
    auto end = std::chrono::steady_clock::now();
    double seconds = std::chrono::duration<double>(end - start).count();
    {
      std::lock_guard<std::mutex> lock(mutex);
      busy[slot] += seconds;
      lastEnd = std::max(lastEnd.value_or(end), end);
      taken[slot] = false;
    }
    freed.notify_one();
    done(std::move(result), seconds);
  });
}

void kf::WorkerPool::wait() { threads->wait(); }

std::vector<double> kf::WorkerPool::busySeconds() const {
  std::lock_guard<std::mutex> lock(mutex);
  return busy;
}

std::optional<std::pair<std::chrono::steady_clock::time_point,
                        std::chrono::steady_clock::time_point>>
kf::WorkerPool::measuringSpan() const {
  std::lock_guard<std::mutex> lock(mutex);
  if (!firstStart || !lastEnd)
    return std::nullopt;
  return std::make_pair(*firstStart, *lastEnd);
}

unsigned kf::WorkerPool::starts() const {
  unsigned total = 0;
  for (const auto &worker : workers)
    total += worker->starts();
  return total;
}
