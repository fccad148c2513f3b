//===- Subprocess.cpp - Child process with line-based pipes ---------------===//
//
// llvm::sys::ExecuteNoWait only redirects a child's streams to files, and the
// parent here needs live pipes in both directions with timeouts, so this is
// written against POSIX fork/exec/pipe/poll.
//
//===----------------------------------------------------------------------===//

#include "kf/Support/Subprocess.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

extern char **environ;

using namespace kf;

char SubprocessTimeout::ID;
char SubprocessExited::ID;

/// How much of the child's stderr is kept for crash reports.
static constexpr size_t stderrTailBytes = 64 * 1024;
/// Stands for a wait status nobody could collect: the child was reaped behind
/// our back, e.g. because the application set SIGCHLD to SIG_IGN.
static constexpr int unknownWaitStatus = -1;

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

void SubprocessTimeout::log(llvm::raw_ostream &os) const {
  os << "'" << program << "' sent no complete line within " << timeout.count()
     << " ms";
}

std::error_code SubprocessTimeout::convertToErrorCode() const {
  return std::make_error_code(std::errc::timed_out);
}

std::optional<int> SubprocessExited::getExitCode() const {
  if (waitStatus == unknownWaitStatus || !WIFEXITED(waitStatus))
    return std::nullopt;
  return WEXITSTATUS(waitStatus);
}

std::optional<int> SubprocessExited::getSignal() const {
  if (waitStatus == unknownWaitStatus || !WIFSIGNALED(waitStatus))
    return std::nullopt;
  return WTERMSIG(waitStatus);
}

void SubprocessExited::log(llvm::raw_ostream &os) const {
  os << "'" << program << "' exited";
  if (std::optional<int> exitCode = getExitCode())
    os << " with status " << *exitCode;
  else if (std::optional<int> signal = getSignal())
    os << " with signal " << *signal << " (" << strsignal(*signal) << ")";
  else
    os << "; its exit status is unknown because it was reaped elsewhere";
}

std::error_code SubprocessExited::convertToErrorCode() const {
  return llvm::inconvertibleErrorCode();
}

//===----------------------------------------------------------------------===//
// Spawning
//===----------------------------------------------------------------------===//

namespace {
/// Both ends of a pipe, closed on destruction unless taken.
struct Pipe {
  int readEnd = -1;
  int writeEnd = -1;

  Pipe() = default;
  Pipe(const Pipe &) = delete;
  Pipe &operator=(const Pipe &) = delete;
  ~Pipe() {
    closeEnd(readEnd);
    closeEnd(writeEnd);
  }

  static void closeEnd(int &fd) {
    if (fd >= 0)
      ::close(fd);
    fd = -1;
  }
  static int take(int &fd) { return std::exchange(fd, -1); }
};

/// Why the child could not exec, sent back over a close-on-exec pipe: the
/// parent reads nothing when exec succeeds.
struct ChildFailure {
  enum Step : int { Redirect, Exec } step;
  int error;
};
} // namespace

/// Moves `fd` above stdin/stdout/stderr, keeping it close-on-exec. A parent
/// started with one of those closed gets pipe ends numbered 0-2, which the
/// child's dup2 calls would overwrite before using them.
static bool moveAboveStdio(int &fd) {
  if (fd > STDERR_FILENO)
    return true;
  int moved = fcntl(fd, F_DUPFD_CLOEXEC, STDERR_FILENO + 1);
  if (moved < 0)
    return false;
  ::close(fd);
  fd = moved;
  return true;
}

static llvm::Error makePipe(Pipe &pipe) {
  int fds[2];
  // O_CLOEXEC: no other child, and no grandchild of this one, may inherit our
  // ends; a leaked write end would hide the child's EOF from us.
  if (pipe2(fds, O_CLOEXEC) != 0)
    return llvm::createStringError(llvm::formatv(
        "cannot create a pipe to a subprocess: {0}", strerror(errno)));
  pipe.readEnd = fds[0];
  pipe.writeEnd = fds[1];
  if (!moveAboveStdio(pipe.readEnd) || !moveAboveStdio(pipe.writeEnd))
    return llvm::createStringError(llvm::formatv(
        "cannot duplicate a pipe to a subprocess: {0}", strerror(errno)));
  return llvm::Error::success();
}

/// Makes `fd` the child's descriptor `target`. dup2 clears close-on-exec on
/// the copy, so the pipe ends themselves vanish at exec.
static bool redirect(int fd, int target) { return dup2(fd, target) >= 0; }

/// Runs in the forked child, which may only make async-signal-safe calls:
/// another parent thread may have held the allocator lock at fork time.
[[noreturn]] static void runChild(const char *path, char *const *argv,
                                  char *const *envp, int stdinFd, int stdoutFd,
                                  int stderrFd, int failureFd) {
  // A process group of its own lets kill() reach grandchildren too.
  setpgid(0, 0);
  // exec keeps the signal mask and ignored dispositions; undo whatever the
  // parent set so that the child sees a normal environment (a child that
  // ignored SIGPIPE would spin on a closed stdout instead of dying).
  sigset_t noSignals;
  sigemptyset(&noSignals);
  sigprocmask(SIG_SETMASK, &noSignals, nullptr);
  struct sigaction defaultAction;
  memset(&defaultAction, 0, sizeof(defaultAction));
  defaultAction.sa_handler = SIG_DFL;
  sigaction(SIGPIPE, &defaultAction, nullptr);

  ChildFailure failure;
  if (redirect(stdinFd, STDIN_FILENO) && redirect(stdoutFd, STDOUT_FILENO) &&
      redirect(stderrFd, STDERR_FILENO)) {
    execve(path, argv, envp);
    failure = {ChildFailure::Exec, errno};
  } else {
    failure = {ChildFailure::Redirect, errno};
  }
  ssize_t ignored = write(failureFd, &failure, sizeof(failure));
  (void)ignored;
  _exit(127);
}

llvm::Expected<std::unique_ptr<Subprocess>>
Subprocess::spawn(llvm::ArrayRef<std::string> argv,
                  llvm::ArrayRef<std::string> extraEnv) {
  if (argv.empty())
    return llvm::createStringError(
        "cannot start a subprocess from an empty argument list: argv[0] must "
        "be the path of the program");
  const std::string &path = argv.front();
  for (const std::string &entry : extraEnv)
    if (llvm::StringRef(entry).find('=') == llvm::StringRef::npos)
      return llvm::createStringError(llvm::formatv(
          "environment entry '{0}' for '{1}' has no '=': expected NAME=value",
          entry, path));

  // Everything the child needs is built before fork, since the child may not
  // allocate.
  std::vector<char *> childArgv;
  for (const std::string &argument : argv)
    childArgv.push_back(const_cast<char *>(argument.c_str()));
  childArgv.push_back(nullptr);
  std::vector<char *> childEnv;
  for (char **entry = environ; entry && *entry; ++entry) {
    llvm::StringRef name = llvm::StringRef(*entry).split('=').first;
    bool overridden = llvm::any_of(extraEnv, [&](const std::string &extra) {
      return llvm::StringRef(extra).split('=').first == name;
    });
    if (!overridden)
      childEnv.push_back(*entry);
  }
  for (const std::string &extra : extraEnv)
    childEnv.push_back(const_cast<char *>(extra.c_str()));
  childEnv.push_back(nullptr);

  Pipe stdinPipe, stdoutPipe, stderrPipe, failurePipe;
  for (Pipe *pipe : {&stdinPipe, &stdoutPipe, &stderrPipe, &failurePipe})
    if (llvm::Error error = makePipe(*pipe))
      return std::move(error);

  pid_t child = fork();
  if (child < 0)
    return llvm::createStringError(llvm::formatv(
        "cannot fork to start '{0}': {1}", path, strerror(errno)));
  if (child == 0)
    runChild(path.c_str(), childArgv.data(), childEnv.data(), stdinPipe.readEnd,
             stdoutPipe.writeEnd, stderrPipe.writeEnd, failurePipe.writeEnd);

  // Close the child's ends here so that EOF on our ends means the child (and
  // any grandchild that inherited them) is gone.
  Pipe::closeEnd(stdinPipe.readEnd);
  Pipe::closeEnd(stdoutPipe.writeEnd);
  Pipe::closeEnd(stderrPipe.writeEnd);
  Pipe::closeEnd(failurePipe.writeEnd);

  // Returns once the child has exec'd (the pipe closes) or failed to. This
  // also means the child has joined its own process group before anyone can
  // call kill().
  ChildFailure failure;
  ssize_t received;
  do {
    received = read(failurePipe.readEnd, &failure, sizeof(failure));
  } while (received < 0 && errno == EINTR);
  if (received > 0) {
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    if (received != sizeof(failure))
      return llvm::createStringError(llvm::formatv(
          "cannot start '{0}': the child failed before exec", path));
    if (failure.step == ChildFailure::Exec)
      return llvm::createStringError(llvm::formatv(
          "cannot run '{0}': {1}", path, strerror(failure.error)));
    return llvm::createStringError(
        llvm::formatv("cannot start '{0}': redirecting its standard streams "
                      "failed: {1}",
                      path, strerror(failure.error)));
  }

  // Our ends never block: writeLine and readLine wait in poll, where they can
  // also watch the other pipe and the clock.
  for (int fd : {stdinPipe.writeEnd, stdoutPipe.readEnd, stderrPipe.readEnd})
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);

  return std::unique_ptr<Subprocess>(new Subprocess(
      llvm::sys::path::filename(path).str(), child,
      Pipe::take(stdinPipe.writeEnd), Pipe::take(stdoutPipe.readEnd),
      Pipe::take(stderrPipe.readEnd)));
}

Subprocess::Subprocess(std::string program, pid_t pid, int stdinFd,
                       int stdoutFd, int stderrFd)
    : program(std::move(program)), pid(pid), stdinFd(stdinFd),
      stdoutFd(stdoutFd), stderrFd(stderrFd) {
  stderrReader = std::thread([this] { drainStderr(); });
}

Subprocess::~Subprocess() {
  kill();
  reap(/*block=*/true);
  closeStdin();
  stopStderrReader = true;
  stderrReader.join();
  ::close(stdoutFd);
  ::close(stderrFd);
}

//===----------------------------------------------------------------------===//
// Lifetime
//===----------------------------------------------------------------------===//

void Subprocess::kill() {
  // Only before reaping: afterwards the process group id may be reused by an
  // unrelated process.
  if (!waitStatus)
    ::kill(-pid, SIGKILL);
}

bool Subprocess::reap(bool block) {
  if (waitStatus)
    return true;
  // Look without reaping first. While the child is an unreaped zombie its
  // pid, and so its process group id, cannot be reused, which makes it safe
  // to kill whatever the child left running in its group (a grandchild still
  // holding the GPU or our pipes).
  siginfo_t info;
  memset(&info, 0, sizeof(info));
  int options = WEXITED | WNOWAIT | (block ? 0 : WNOHANG);
  int result;
  while ((result = waitid(P_PID, pid, &info, options)) < 0 && errno == EINTR) {
  }
  if (result < 0) {
    waitStatus = unknownWaitStatus;
    return true;
  }
  if (info.si_pid == 0)
    return false;
  ::kill(-pid, SIGKILL);
  int status;
  while ((result = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  waitStatus = result < 0 ? unknownWaitStatus : status;

  // The whole group is dead now, so stderr reaches EOF promptly; waiting for
  // the reader makes stderrTail() complete for crash reports. The bound only
  // matters if a grandchild escaped the group (setsid) and kept stderr open.
  std::unique_lock<std::mutex> lock(stderrMutex);
  stderrDrained.wait_for(lock, std::chrono::milliseconds(500),
                         [this] { return stderrAtEnd; });
  return true;
}

std::optional<int> Subprocess::wait() {
  closeStdin();
  reap(/*block=*/true);
  if (*waitStatus == unknownWaitStatus || !WIFEXITED(*waitStatus))
    return std::nullopt;
  return WEXITSTATUS(*waitStatus);
}

bool Subprocess::isRunning() { return !reap(/*block=*/false); }

void Subprocess::closeStdin() {
  if (stdinFd >= 0)
    ::close(stdinFd);
  stdinFd = -1;
}

llvm::Error Subprocess::exitedError() {
  // We saw EOF on stdout or EPIPE on stdin, which normally means the child is
  // exiting. Give it a moment to finish; one that lives on with its pipes
  // closed can no longer serve requests, so it is killed.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (!reap(/*block=*/false)) {
    if (std::chrono::steady_clock::now() >= deadline) {
      kill();
      reap(/*block=*/true);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return llvm::make_error<SubprocessExited>(program, *waitStatus);
}

//===----------------------------------------------------------------------===//
// Pipes
//===----------------------------------------------------------------------===//

namespace {
/// Blocks SIGPIPE in the calling thread while writing to the child, so that a
/// child that dies mid-write gives EPIPE rather than killing the parent (the
/// default action). MSG_NOSIGNAL would do this but only exists for sockets.
class SigpipeBlocker {
public:
  SigpipeBlocker() {
    sigset_t sigpipe;
    sigemptyset(&sigpipe);
    sigaddset(&sigpipe, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &sigpipe, &previousMask);
    sigset_t pending;
    sigpending(&pending);
    wasPending = sigismember(&pending, SIGPIPE);
  }

  ~SigpipeBlocker() {
    // Discard the SIGPIPE our own write raised, so that it is not delivered
    // when the mask is restored; one that was pending before is not ours.
    sigset_t pending;
    sigpending(&pending);
    if (!wasPending && sigismember(&pending, SIGPIPE)) {
      sigset_t sigpipe;
      sigemptyset(&sigpipe);
      sigaddset(&sigpipe, SIGPIPE);
      struct timespec noWait = {0, 0};
      while (sigtimedwait(&sigpipe, nullptr, &noWait) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &previousMask, nullptr);
  }

private:
  sigset_t previousMask;
  bool wasPending = false;
};
} // namespace

llvm::Error Subprocess::writeLine(llvm::StringRef line) {
  if (waitStatus)
    return llvm::make_error<SubprocessExited>(program, *waitStatus);
  if (stdinFd < 0)
    return llvm::createStringError(llvm::formatv(
        "cannot write to '{0}': its stdin was closed by wait()", program));

  SigpipeBlocker blockSigpipe;
  for (llvm::StringRef data : {line, llvm::StringRef("\n")}) {
    while (!data.empty()) {
      ssize_t written = ::write(stdinFd, data.data(), data.size());
      if (written >= 0) {
        data = data.drop_front(written);
        continue;
      }
      if (errno == EINTR)
        continue;
      if (errno == EPIPE)
        return exitedError();
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        return llvm::createStringError(llvm::formatv(
            "cannot write to '{0}': {1}", program, strerror(errno)));

      // The pipe is full. Keep reading stdout meanwhile: a child that
      // answers while it reads (like cat) would otherwise block on its full
      // stdout and stop reading, and neither side would move again.
      pollfd fds[2] = {{stdinFd, POLLOUT, 0}, {stdoutFd, POLLIN, 0}};
      if (poll(fds, stdoutClosed ? 1 : 2, -1) < 0 && errno != EINTR)
        return llvm::createStringError(llvm::formatv(
            "cannot wait to write to '{0}': {1}", program, strerror(errno)));
      if (!stdoutClosed && fds[1].revents)
        stdoutClosed = !readAvailableOutput();
    }
  }
  return llvm::Error::success();
}

bool Subprocess::readAvailableOutput() {
  char buffer[64 * 1024];
  while (true) {
    ssize_t received = ::read(stdoutFd, buffer, sizeof(buffer));
    if (received > 0) {
      pending.append(buffer, received);
      continue;
    }
    if (received < 0 && errno == EINTR)
      continue;
    // EAGAIN: all that was there has been read. Any other error leaves us
    // unable to read more, which the caller treats like EOF.
    return received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
}

llvm::Expected<std::string>
Subprocess::readLine(std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (const void *newline = memchr(pending.data() + scannedBytes, '\n',
                                     pending.size() - scannedBytes)) {
      size_t length = static_cast<const char *>(newline) - pending.data();
      std::string line;
      if (length + 1 == pending.size()) {
        // The usual case, one reply per request: hand over the buffer
        // instead of copying what may be tens of megabytes.
        line = std::move(pending);
        line.pop_back();
        pending.clear();
      } else {
        line = pending.substr(0, length);
        pending.erase(0, length + 1);
      }
      scannedBytes = 0;
      return line;
    }
    scannedBytes = pending.size();

    // A partial last line is dropped: it is a reply cut short by the exit.
    if (stdoutClosed)
      return exitedError();

    // Rounded up so that we do not spin through the last fraction of a
    // millisecond, and clamped to what poll accepts.
    int64_t remainingMs = std::chrono::ceil<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
    pollfd fds = {stdoutFd, POLLIN, 0};
    int ready =
        poll(&fds, 1,
             static_cast<int>(std::clamp<int64_t>(remainingMs, 0, INT_MAX)));
    if (ready < 0 && errno != EINTR)
      return llvm::createStringError(llvm::formatv(
          "cannot wait for output from '{0}': {1}", program, strerror(errno)));
    if (ready > 0) {
      stdoutClosed = !readAvailableOutput();
      continue;
    }
    if (std::chrono::steady_clock::now() >= deadline)
      return llvm::make_error<SubprocessTimeout>(program, timeout);
  }
}

//===----------------------------------------------------------------------===//
// stderr
//===----------------------------------------------------------------------===//

void Subprocess::drainStderr() {
  char buffer[16 * 1024];
  while (!stopStderrReader) {
    // A bounded poll so that the destructor can stop us even when a
    // grandchild that escaped the process group keeps stderr open.
    pollfd fds = {stderrFd, POLLIN, 0};
    int ready = poll(&fds, 1, 100);
    if (ready < 0 && errno != EINTR)
      break;
    if (ready <= 0)
      continue;
    ssize_t received = ::read(stderrFd, buffer, sizeof(buffer));
    if (received == 0)
      break;
    if (received < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
        continue;
      break;
    }
    std::lock_guard<std::mutex> lock(stderrMutex);
    stderrBuffer.append(buffer, received);
    // Trim in large steps so that a chatty child costs amortized O(1) per
    // byte rather than a memmove per read.
    if (stderrBuffer.size() > 2 * stderrTailBytes)
      stderrBuffer.erase(0, stderrBuffer.size() - stderrTailBytes);
  }
  std::lock_guard<std::mutex> lock(stderrMutex);
  stderrAtEnd = true;
  stderrDrained.notify_all();
}

std::string Subprocess::stderrTail() const {
  std::lock_guard<std::mutex> lock(stderrMutex);
  if (stderrBuffer.size() <= stderrTailBytes)
    return stderrBuffer;
  return stderrBuffer.substr(stderrBuffer.size() - stderrTailBytes);
}
