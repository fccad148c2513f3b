//===- Subprocess.h - Child process with line-based pipes -------*- C++ -*-===//
//
// GPU work runs in a child process so that a candidate kernel that faults,
// corrupts the context or hangs costs a worker, not the search. The parent
// talks to the worker one line at a time (JSON requests and replies) over the
// child's stdin and stdout, and keeps the tail of its stderr to report when it
// crashes.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SUPPORT_SUBPROCESS_H
#define KF_SUPPORT_SUBPROCESS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace kf {

/// readLine saw no complete line before its deadline; the child is still
/// running (kill it or keep waiting).
class SubprocessTimeout : public llvm::ErrorInfo<SubprocessTimeout> {
public:
  static char ID;

  SubprocessTimeout(std::string program, std::chrono::milliseconds timeout)
      : program(std::move(program)), timeout(timeout) {}

  std::chrono::milliseconds getTimeout() const { return timeout; }

  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  std::string program;
  std::chrono::milliseconds timeout;
};

/// The child is gone: it exited or was killed by a signal (a fault in the
/// worker shows up here as SIGSEGV or SIGABRT).
class SubprocessExited : public llvm::ErrorInfo<SubprocessExited> {
public:
  static char ID;

  /// `waitStatus` as waitpid reports it.
  SubprocessExited(std::string program, int waitStatus)
      : program(std::move(program)), waitStatus(waitStatus) {}

  /// The status the child passed to exit(); empty when a signal ended it.
  std::optional<int> getExitCode() const;
  /// The signal that ended the child; empty when it exited.
  std::optional<int> getSignal() const;

  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override;

private:
  std::string program;
  int waitStatus;
};

/// A child process whose stdin and stdout are pipes to the parent and whose
/// stderr is captured. Not thread-safe, except stderrTail().
///
/// llvm::sys::ExecuteNoWait can only redirect a child's streams to files, so
/// this uses POSIX fork/exec/pipe/poll directly.
class Subprocess {
public:
  /// Starts argv[0] (a path; PATH is not searched) with arguments argv[1...]
  /// and this process's environment plus `extraEnv` ("NAME=value" entries,
  /// which override inherited ones). The child leads its own process group so
  /// that kill() also ends anything it started.
  static llvm::Expected<std::unique_ptr<Subprocess>>
  spawn(llvm::ArrayRef<std::string> argv,
        llvm::ArrayRef<std::string> extraEnv = {});

  Subprocess(const Subprocess &) = delete;
  Subprocess &operator=(const Subprocess &) = delete;
  /// Kills the process group and reaps the child.
  ~Subprocess();

  /// Sends `line` and a newline to the child's stdin. While the pipe is full
  /// it keeps reading the child's stdout, so a child that echoes as it reads
  /// cannot deadlock with us. Fails with SubprocessExited if the child died.
  llvm::Error writeLine(llvm::StringRef line);

  /// Returns the child's next stdout line, without its newline. Fails with
  /// SubprocessTimeout when no complete line arrives within `timeout`, and
  /// with SubprocessExited when the child closed its stdout and exited.
  llvm::Expected<std::string> readLine(std::chrono::milliseconds timeout);

  /// The last 64 KiB the child wrote to stderr. Once the child has been
  /// reaped (readLine or writeLine reported SubprocessExited, or wait()
  /// returned) this includes everything it wrote before exiting.
  std::string stderrTail() const;

  /// Sends SIGKILL to the child's process group; does nothing once the child
  /// has been reaped.
  void kill();

  /// Closes the child's stdin (end of input tells a worker to finish), blocks
  /// until the child exits and reaps it. Returns its exit status, or nothing
  /// when a signal ended it.
  std::optional<int> wait();

  /// Whether the child has not exited yet; reaps it if it has.
  bool isRunning();

  pid_t getPid() const { return pid; }

private:
  Subprocess(std::string program, pid_t pid, int stdinFd, int stdoutFd,
             int stderrFd);

  /// Reaps the child if it has exited (blocking until it does when `block`),
  /// first killing what is left of its process group. Returns whether the
  /// child has been reaped.
  bool reap(bool block);
  /// Reads what is available on stdout into `pending`; returns false at EOF.
  bool readAvailableOutput();
  /// Builds the error for a child that has gone, waiting briefly for it to
  /// become reapable.
  llvm::Error exitedError();
  void drainStderr();
  void closeStdin();

  std::string program;
  pid_t pid;
  int stdinFd;
  int stdoutFd;
  int stderrFd;
  std::optional<int> waitStatus;
  /// Bytes read from stdout that do not yet form a complete line.
  std::string pending;
  /// Where the search for a newline in `pending` resumes, so that a line of
  /// many megabytes arriving in small reads is scanned only once.
  size_t scannedBytes = 0;
  bool stdoutClosed = false;

  // The child's stderr is drained by a thread: a child blocked writing to a
  // full stderr pipe would otherwise stall while the parent waits for a line.
  std::thread stderrReader;
  mutable std::mutex stderrMutex;
  std::condition_variable stderrDrained;
  std::string stderrBuffer;
  bool stderrAtEnd = false;
  std::atomic<bool> stopStderrReader{false};
};

} // namespace kf

#endif // KF_SUPPORT_SUBPROCESS_H
