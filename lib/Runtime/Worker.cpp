//===- Worker.cpp - GPU evaluation in an isolated process -----------------===//

#include "kf/Runtime/Worker.h"

#include "kf/Runtime/CudaDriver.h"
#include "kf/Runtime/LaunchPlan.h"

#include "llvm/Support/Base64.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

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

EvalResult failure(CandidateStatus status, const llvm::Twine &message) {
  EvalResult result;
  result.status = status;
  result.message = message.str();
  return result;
}

/// Reads the launch plan in `field` of a request; the reason it cannot goes
/// to `errors`.
std::optional<LaunchPlan> readPlan(const llvm::json::Object &request,
                                   llvm::StringRef field, std::string &errors) {
  const llvm::json::Value *value = request.get(field);
  if (!value) {
    errors += ("the request has no " + field + "\n").str();
    return std::nullopt;
  }
  LaunchPlan plan;
  llvm::json::Path::Root root(field);
  if (!fromJSON(*value, plan, root)) {
    std::string message;
    llvm::raw_string_ostream os(message);
    os << llvm::toString(root.getError()) << "\n";
    errors += message;
    return std::nullopt;
  }
  return plan;
}

void replyIO(const PlanIO &io) {
  llvm::json::Array inputs, outputs;
  for (const std::string &bytes : io.inputs)
    inputs.push_back(llvm::encodeBase64(bytes));
  for (const std::string &bytes : io.outputs)
    outputs.push_back(llvm::encodeBase64(bytes));
  std::string line;
  llvm::raw_string_ostream os(line);
  os << llvm::json::Value(llvm::json::Object{
      {"status", stringifyCandidateStatus(CandidateStatus::Correct)},
      {"message", "ok"},
      {"inputs", std::move(inputs)},
      {"outputs", std::move(outputs)}});
  std::cout << line << "\n" << std::flush;
}

} // namespace

int kf::runWorker(
    llvm::function_ref<llvm::Expected<PlanModule>()> compileRuntimeKernels) {
  std::unique_ptr<GpuEvaluator> evaluator;
  // The problem's reference, sent once to each worker process.
  std::optional<LaunchPlan> reference;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty())
      continue;
    llvm::Expected<llvm::json::Value> request = llvm::json::parse(line);
    if (!request) {
      reply(
          failure(CandidateStatus::InternalError,
                  "malformed request: " + llvm::toString(request.takeError())));
      continue;
    }
    const llvm::json::Object *object = request->getAsObject();
    ProblemSpec spec;
    EvalConfig config;
    llvm::json::Path::Root root("request");
    std::optional<llvm::StringRef> op =
        object ? object->getString("op") : std::nullopt;
    bool isRunIO = op == "run-io";
    if (!object || (op != "evaluate" && !isRunIO) || !object->get("spec") ||
        !fromJSON(*object->get("spec"), spec, root) || !object->get("config") ||
        !fromJSON(*object->get("config"), config, root)) {
      reply(failure(CandidateStatus::InternalError,
                    "malformed request (evaluate needs spec, config, "
                    "candidate and, once, reference; run-io needs spec, "
                    "config, plan)"));
      continue;
    }

    if (!evaluator) {
      llvm::Expected<PlanModule> kernels = compileRuntimeKernels();
      if (!kernels) {
        reply(failure(CandidateStatus::InternalError,
                      "cannot compile kf's runtime kernels: " +
                          llvm::toString(kernels.takeError())));
        return 1;
      }
      llvm::Expected<std::unique_ptr<GpuEvaluator>> created =
          GpuEvaluator::create(config.device, *kernels);
      if (!created) {
        reply(failure(CandidateStatus::NoDevice,
                      llvm::toString(created.takeError())));
        return 4;
      }
      evaluator = std::move(*created);
    }

    std::string errors;
    if (isRunIO) {
      std::optional<LaunchPlan> plan = readPlan(*object, "plan", errors);
      if (!plan) {
        reply(failure(CandidateStatus::LoadError,
                      "the worker cannot read the launch plan: " + errors));
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
      replyIO(*io);
      continue;
    }
    if (object->get("reference")) {
      reference = readPlan(*object, "reference", errors);
    } else if (!reference) {
      errors += "no reference was sent to this worker\n";
    }
    std::optional<LaunchPlan> candidate =
        readPlan(*object, "candidate", errors);
    if (!reference || !candidate) {
      reply(failure(CandidateStatus::LoadError,
                    "the worker cannot read the launch plans: " + errors));
      continue;
    }
    EvalResult result =
        evaluator->evaluate(spec, *reference, *candidate, config);
    reply(result);
    if (result.contextLost)
      return 3;
  }
  return 0;
}

llvm::Expected<llvm::json::Value>
WorkerClient::exchange(llvm::json::Object request,
                       std::chrono::milliseconds timeout, EvalResult &result,
                       const LaunchPlan *reference) {
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
      return giveUp(failure(CandidateStatus::InternalError,
                            "cannot start the measurement worker: " +
                                llvm::toString(spawned.takeError())));
    process = std::move(*spawned);
    ++numStarts;
    referenceHeld.reset();
  }
  if (reference) {
    // The worker keeps the reference it was sent: send it once per
    // process, and again when it changes or the worker could not read it.
    // Serializing it each time to compare costs little beside a GPU
    // evaluation, and cannot mistake one plan for another as a pointer
    // could.
    llvm::json::Value plan = toJSON(*reference, PlanImages::Include);
    std::string text;
    llvm::raw_string_ostream os(text);
    os << plan;
    uint64_t hash = llvm::xxh3_64bits(text);
    if (referenceHeld != hash) {
      request["reference"] = std::move(plan);
      referenceHeld = hash;
    }
  }
  std::string line;
  llvm::raw_string_ostream os(line);
  os << llvm::json::Value(std::move(request));
  if (llvm::Error error = process->writeLine(line)) {
    std::string tail = process->stderrTail();
    process.reset();
    return giveUp(failure(CandidateStatus::Fault,
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
              CandidateStatus::Timeout,
              llvm::formatv("the evaluation did not finish within {0} s (a "
                            "kernel that never ends?); the worker was killed "
                            "and will be restarted",
                            timeout.count() / 1000.0));
        },
        [&](const SubprocessExited &exited) {
          std::string tail = process->stderrTail();
          failed = failure(CandidateStatus::Fault,
                           "the measurement worker died: " + exited.message() +
                               (tail.empty() ? "" : "\n" + tail));
        },
        [&](const llvm::ErrorInfoBase &other) {
          failed = failure(CandidateStatus::InternalError, other.message());
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
    return giveUp(failure(CandidateStatus::InternalError,
                          "the measurement worker sent a malformed reply"));
  }
  return parsed;
}

EvalResult WorkerClient::evaluate(const ProblemSpec &spec,
                                  const LaunchPlan &reference,
                                  const LaunchPlan &candidate,
                                  const EvalConfig &config,
                                  std::chrono::milliseconds timeout) {
  EvalResult result;
  llvm::Expected<llvm::json::Value> reply = exchange(
      llvm::json::Object{{"op", "evaluate"},
                         {"spec", toJSON(spec)},
                         {"config", toJSON(config)},
                         {"candidate", toJSON(candidate, PlanImages::Include)}},
      timeout, result, &reference);
  if (!reply) {
    llvm::consumeError(reply.takeError());
    return result;
  }
  llvm::json::Path::Root root("reply");
  if (!fromJSON(*reply, result, root)) {
    process->kill();
    process.reset();
    return failure(CandidateStatus::InternalError,
                   "the measurement worker sent a malformed reply");
  }
  // A worker that could not read the reference (load-error) holds none;
  // after any failure to read a request, send it again.
  if (result.status == CandidateStatus::InternalError ||
      result.status == CandidateStatus::LoadError)
    referenceHeld.reset();
  retireIfExiting(result);
  return result;
}

void WorkerClient::retireIfExiting(const EvalResult &result) {
  // The worker exits after a fault or when it found no device: wait for it,
  // so that the next request starts a new one.
  if (result.contextLost || result.status == CandidateStatus::NoDevice) {
    process->wait();
    process.reset();
  }
}

llvm::Expected<PlanIO>
WorkerClient::runForIO(const ProblemSpec &spec, const LaunchPlan &plan,
                       const EvalConfig &config, int64_t maxBytes,
                       std::chrono::milliseconds timeout) {
  EvalResult result;
  llvm::Expected<llvm::json::Value> reply =
      exchange(llvm::json::Object{{"op", "run-io"},
                                  {"spec", toJSON(spec)},
                                  {"config", toJSON(config)},
                                  {"plan", toJSON(plan, PlanImages::Include)},
                                  {"max_bytes", maxBytes}},
               timeout, result);
  if (!reply)
    return reply.takeError();
  const llvm::json::Object *object = reply->getAsObject();
  if (!object || object->getString("status") !=
                     stringifyCandidateStatus(CandidateStatus::Correct)) {
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

std::shared_future<void> kf::WorkerPool::evaluate(
    ProblemSpec spec, std::shared_ptr<const LaunchPlan> reference,
    LaunchPlan candidate, EvalConfig config, std::chrono::milliseconds timeout,
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
        workers[slot]->evaluate(spec, *reference, candidate, config, timeout);
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
