//===- SerializeKernels.cpp - gpu-module-to-binary that never aborts ------===//

#include "kf/Transforms/Passes.h"

#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/Timer.h"

#include <cstdlib>
#include <mutex>
#include <pthread.h>

namespace kf {
#define GEN_PASS_DEF_KFSERIALIZEKERNELS
#include "kf/Transforms/Passes.h.inc"
} // namespace kf

using namespace mlir;

namespace {

/// The reason of the last fatal error inside a guarded serialization.
struct FatalError {
  std::string reason;
};

/// LLVM's report_fatal_error calls this instead of printing and exiting.
/// Inside the crash recovery context it jumps back to RunSafely; outside
/// (it cannot be, but to be safe) LLVM goes on to exit as before.
void onFatalError(void *data, const char *reason, bool) {
  static_cast<FatalError *>(data)->reason = reason ? reason : "";
  if (llvm::CrashRecoveryContext *context =
          llvm::CrashRecoveryContext::GetCurrent())
    context->HandleExit(1);
}

/// Runs `body` under `recovery` on a thread whose stack kf allocates (large:
/// instruction selection recurses deeply on large vectors). After a crash
/// the stack is never freed: objects on it that LLVM still links to stay
/// valid (upstream's NVVM serializer keeps a started llvm::Timer on it, in
/// the default timer group, which llvm_shutdown walks at exit; on a freed
/// or reused stack that crashed kf-opt at exit). Returns whether `body`
/// completed.
bool runOnOwnStack(llvm::CrashRecoveryContext &recovery,
                   llvm::function_ref<void()> body) {
  struct Job {
    llvm::CrashRecoveryContext *recovery;
    llvm::function_ref<void()> body;
    bool completed = false;
  } job{&recovery, body};
  constexpr size_t stackBytes = 64u << 20;
  void *stack = std::malloc(stackBytes);
  pthread_attr_t attributes;
  pthread_t thread;
  if (!stack || pthread_attr_init(&attributes) != 0) {
    std::free(stack);
    return recovery.RunSafely(body);
  }
  pthread_attr_setstack(&attributes, stack, stackBytes);
  auto start = [](void *argument) -> void * {
    auto *job = static_cast<Job *>(argument);
    job->completed = job->recovery->RunSafely(job->body);
    return nullptr;
  };
  if (pthread_create(&thread, &attributes, start, &job) != 0) {
    pthread_attr_destroy(&attributes);
    std::free(stack);
    return recovery.RunSafely(body);
  }
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
  if (job.completed)
    std::free(stack);
  else
    // The abandoned frames' timers would be reported at exit as if they had
    // timed something; they are not the user's.
    llvm::TimerGroup::clearAll();
  return job.completed;
}

/// The first line of a backend message, shortened: "Cannot select" dumps
/// the whole selection DAG node after it.
std::string firstLine(llvm::StringRef text) {
  llvm::StringRef line = text.trim().split('\n').first.trim();
  if (line.size() > 400)
    return (line.take_front(400) + "...").str();
  return line.str();
}

struct KFSerializeKernelsPass
    : kf::impl::KFSerializeKernelsBase<KFSerializeKernelsPass> {
  using Base::Base;

  void runOnOperation() override {
    GpuModuleToBinaryPassOptions binary;
    binary.compilationTarget = format;
    binary.toolkitPath = toolkitPath;
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createGpuModuleToBinaryPass(binary));

    // One guarded serialization at a time: the fatal-error handler is
    // process-wide. (kf-evolve compiles candidates in worker processes.)
    static std::mutex serializing;
    std::lock_guard<std::mutex> lock(serializing);
    FatalError fatal;
    LogicalResult result = failure();
    bool completed;
    {
      llvm::ScopedFatalErrorHandler handler(onFatalError, &fatal);
      llvm::CrashRecoveryContext::Enable();
      llvm::CrashRecoveryContext recovery;
      completed = runOnOwnStack(
          recovery, [&] { result = runPipeline(pm, getOperation()); });
    }
    if (completed) {
      if (failed(result))
        signalPassFailure();
      return;
    }
    // The module may be half serialized: the caller must drop it, which a
    // failed pass tells it to.
    InFlightDiagnostic diag = getOperation().emitError();
    if (!fatal.reason.empty())
      diag << "LLVM's NVPTX backend could not compile the kernels: "
           << firstLine(fatal.reason);
    else
      diag << "LLVM crashed while compiling the kernels to PTX (a bug in "
              "LLVM or kf triggered by this input)";
    diag << "; this module is not compiled, nothing else is affected";
    signalPassFailure();
  }
};

} // namespace
