//===- CompilePool.h - Candidates compiled in isolated worker processes --*-=//
//
// Compiling a candidate runs upstream transforms and LLVM on a schedule kf
// did not write by hand; some schedules make them crash or run for hours.
// So the search compiles each candidate in a worker process (kf-evolve
// compile-worker), several at once: a crash or a compile that exceeds its
// time limit costs that candidate (status compile-crash or compile-timeout)
// and a worker restart, never the search. The parent measures candidates
// on the GPU as their compiles complete, while the others still compile.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_COMPILEPOOL_H
#define KF_SEARCH_COMPILEPOOL_H

#include "kf/Runtime/LaunchPlan.h"
#include "kf/Search/Search.h"
#include "kf/Support/Subprocess.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/JSON.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace kf {

/// What a compile worker answers for one script.
struct CompileReply {
  /// Compiled, Rejected (static cheat checks), CompileError (at `stage`),
  /// CompileTimeout or CompileCrash.
  CandidateStatus status = CandidateStatus::CompileCrash;
  std::string stage;
  /// Why not compiled: the first error, or the end of a crashed worker's
  /// stderr.
  std::string error;
  double predictedSeconds = 0;
  /// kf::diagnosisTriggers of the compiled candidate.
  std::vector<std::string> triggers;
  /// Kernel launches of one run, and the bytes their global accesses move
  /// (the cost model's estimate; CompiledCandidate::globalBytes).
  unsigned kernels = 0;
  double globalBytes = 0;
  /// The launch plan (with its kernel images) for the GPU worker, when the
  /// pool was asked for it.
  std::optional<LaunchPlan> plan;
};

/// One line of a compile worker's answer.
llvm::json::Value toJSON(const CompileReply &reply);
bool fromJSON(const llvm::json::Value &value, CompileReply &reply,
              llvm::json::Path path);

class CompilePool {
public:
  /// `command` starts a worker that reads one JSON request per line
  /// ({"kind": "schedule" | "kernel", "text": ...}) and answers one
  /// CompileReply per line. `jobs`
  /// workers compile at once; each compile may take `timeout`.
  CompilePool(std::vector<std::string> command, unsigned jobs,
              std::chrono::milliseconds timeout);
  ~CompilePool();

  /// Compiles `candidates` in parallel. `onCompiled(index, reply)` runs on
  /// the calling thread as each completes (in completion order), so the
  /// caller can measure one candidate while the others compile. Several
  /// threads may call this at once: they share the workers, and no more
  /// than `jobs` scripts compile at a time.
  void compile(llvm::ArrayRef<CandidateSource> candidates,
               llvm::function_ref<void(size_t, CompileReply)> onCompiled);

  /// Worker processes started so far (restarts after crashes and timeouts
  /// included).
  unsigned starts() const { return numStarts; }

private:
  /// Compiles one script on worker `slot`, restarting it when needed.
  CompileReply compileOn(unsigned slot, const CandidateSource &candidate);
  /// A worker slot no other compile is using (waits for one).
  unsigned leaseSlot();
  void releaseSlot(unsigned slot);

  std::vector<std::string> command;
  std::chrono::milliseconds timeout;
  std::vector<std::unique_ptr<Subprocess>> workers;
  /// Which slots a compile holds, guarded by `slotMutex`.
  std::vector<bool> leased;
  std::mutex slotMutex;
  std::condition_variable slotFreed;
  std::atomic<unsigned> numStarts{0};
};

} // namespace kf

#endif // KF_SEARCH_COMPILEPOOL_H
