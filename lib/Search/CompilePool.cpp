//===- CompilePool.cpp - Candidates compiled in isolated worker processes -===//

#include "kf/Search/CompilePool.h"

#include "llvm/ADT/STLExtras.h"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

using namespace kf;

llvm::json::Value kf::toJSON(const CompileReply &reply) {
  llvm::json::Object object{{"status", formatStatus(reply.status, reply.stage)},
                            {"error", reply.error},
                            {"predicted_seconds", reply.predictedSeconds},
                            {"triggers", reply.triggers},
                            {"kernels", (int64_t)reply.kernels},
                            {"global_bytes", reply.globalBytes}};
  if (reply.plan)
    object["plan"] = toJSON(*reply.plan, PlanImages::Include);
  return object;
}

bool kf::fromJSON(const llvm::json::Value &value, CompileReply &reply,
                  llvm::json::Path path) {
  const llvm::json::Object *object = value.getAsObject();
  std::optional<llvm::StringRef> status =
      object ? object->getString("status") : std::nullopt;
  if (!status || !parseStatus(*status, reply.status, reply.stage)) {
    path.field("status").report("expected a status");
    return false;
  }
  reply.error = object->getString("error").value_or("").str();
  reply.predictedSeconds = object->getNumber("predicted_seconds").value_or(0);
  if (const llvm::json::Array *triggers = object->getArray("triggers"))
    for (const llvm::json::Value &trigger : *triggers)
      reply.triggers.push_back(trigger.getAsString().value_or("").str());
  reply.kernels = object->getInteger("kernels").value_or(0);
  reply.globalBytes = object->getNumber("global_bytes").value_or(0);
  if (const llvm::json::Value *plan = object->get("plan")) {
    LaunchPlan read;
    if (!fromJSON(*plan, read, path.field("plan")))
      return false;
    reply.plan = std::move(read);
  }
  return true;
}

CompilePool::CompilePool(std::vector<std::string> command, unsigned jobs,
                         std::chrono::milliseconds timeout)
    : command(std::move(command)), timeout(timeout) {
  workers.resize(std::max(1u, jobs));
  leased.assign(workers.size(), false);
}

CompilePool::~CompilePool() = default;

CompileReply CompilePool::compileOn(unsigned slot,
                                    const CandidateSource &candidate) {
  std::unique_ptr<Subprocess> &worker = workers[slot];
  CompileReply failure;
  if (!worker || !worker->isRunning()) {
    llvm::Expected<std::unique_ptr<Subprocess>> started =
        Subprocess::spawn(command);
    if (!started) {
      failure.status = CandidateStatus::CompileCrash;
      failure.error = "cannot start a compile worker: " +
                      llvm::toString(started.takeError());
      return failure;
    }
    worker = std::move(*started);
    ++numStarts;
  }
  std::string request;
  llvm::raw_string_ostream(request) << toJSON(candidate);
  llvm::Expected<std::string> line = [&]() -> llvm::Expected<std::string> {
    if (llvm::Error error = worker->writeLine(request))
      return std::move(error);
    return worker->readLine(timeout);
  }();
  if (line) {
    llvm::Expected<llvm::json::Value> value = llvm::json::parse(*line);
    CompileReply reply;
    llvm::json::Path::Root root("reply");
    if (value && fromJSON(*value, reply, root))
      return reply;
    // A worker that answers something else broke its protocol.
    failure.status = CandidateStatus::CompileCrash;
    failure.error = value ? "the compile worker's reply does not read: " +
                                llvm::toString(root.getError())
                          : "the compile worker's reply is not JSON: " +
                                llvm::toString(value.takeError());
  } else {
    bool timedOut = line.errorIsA<SubprocessTimeout>();
    std::string message = llvm::toString(line.takeError());
    failure.status = timedOut ? CandidateStatus::CompileTimeout
                              : CandidateStatus::CompileCrash;
    failure.error =
        timedOut ? message
                 : message + "; its stderr ends with: " + worker->stderrTail();
  }
  // The worker is in an unknown state: the next compile starts a new one.
  worker->kill();
  worker.reset();
  return failure;
}

unsigned CompilePool::leaseSlot() {
  std::unique_lock<std::mutex> lock(slotMutex);
  slotFreed.wait(lock, [&] { return llvm::is_contained(leased, false); });
  unsigned slot = llvm::find(leased, false) - leased.begin();
  leased[slot] = true;
  return slot;
}

void CompilePool::releaseSlot(unsigned slot) {
  {
    std::lock_guard<std::mutex> lock(slotMutex);
    leased[slot] = false;
  }
  slotFreed.notify_one();
}

void CompilePool::compile(
    llvm::ArrayRef<CandidateSource> scripts,
    llvm::function_ref<void(size_t, CompileReply)> onCompiled) {
  std::mutex mutex;
  std::condition_variable ready;
  std::deque<std::pair<size_t, CompileReply>> done;
  size_t next = 0;
  unsigned threadsUsed = std::min<size_t>(workers.size(), scripts.size());
  std::vector<std::thread> threads;
  for (unsigned thread = 0; thread < threadsUsed; ++thread)
    threads.emplace_back([&] {
      while (true) {
        size_t index;
        {
          std::lock_guard<std::mutex> lock(mutex);
          if (next == scripts.size())
            return;
          index = next++;
        }
        // Another compile() may hold some workers: this one waits for a
        // free one rather than sharing it.
        unsigned slot = leaseSlot();
        CompileReply reply = compileOn(slot, scripts[index]);
        releaseSlot(slot);
        std::lock_guard<std::mutex> lock(mutex);
        done.push_back({index, std::move(reply)});
        ready.notify_one();
      }
    });
  for (size_t received = 0; received < scripts.size(); ++received) {
    std::pair<size_t, CompileReply> item;
    {
      std::unique_lock<std::mutex> lock(mutex);
      ready.wait(lock, [&] { return !done.empty(); });
      item = std::move(done.front());
      done.pop_front();
    }
    onCompiled(item.first, std::move(item.second));
  }
  for (std::thread &thread : threads)
    thread.join();
}
