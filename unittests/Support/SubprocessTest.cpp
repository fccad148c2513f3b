//===- SubprocessTest.cpp - Child processes with line-based pipes ---------===//

#include "kf/Support/Subprocess.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

#include <csignal>
#include <thread>

using namespace kf;
using namespace std::chrono_literals;

namespace {

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}
#define EXPECT_CONTAINS(text, part) EXPECT_PRED2(contains, text, part)

/// Generous enough for a loaded build machine; only the timeout test needs
/// to be fast, and it measures itself.
constexpr std::chrono::milliseconds patience = 10s;

std::unique_ptr<Subprocess>
spawnOrFail(std::vector<std::string> argv,
            std::vector<std::string> extraEnv = {}) {
  llvm::Expected<std::unique_ptr<Subprocess>> child =
      Subprocess::spawn(argv, extraEnv);
  if (!child) {
    ADD_FAILURE() << "spawn failed: " << llvm::toString(child.takeError());
    return nullptr;
  }
  return std::move(*child);
}

std::unique_ptr<Subprocess> shell(const std::string &script) {
  return spawnOrFail({"/bin/sh", "-c", script});
}

/// What a SubprocessExited error said, or a failure if the error was of
/// another kind.
struct ExitReport {
  std::optional<int> exitCode;
  std::optional<int> signal;
  std::string message;
};

ExitReport expectExited(llvm::Error error) {
  ExitReport report;
  if (!error) {
    ADD_FAILURE() << "expected SubprocessExited, got success";
    return report;
  }
  llvm::handleAllErrors(
      std::move(error),
      [&](const SubprocessExited &exited) {
        report.exitCode = exited.getExitCode();
        report.signal = exited.getSignal();
        report.message = exited.message();
      },
      [&](const llvm::ErrorInfoBase &other) {
        ADD_FAILURE() << "expected SubprocessExited, got: " << other.message();
      });
  return report;
}

ExitReport expectExited(llvm::Expected<std::string> line) {
  if (line) {
    ADD_FAILURE() << "expected SubprocessExited, got the line '" << *line
                  << "'";
    return {};
  }
  return expectExited(line.takeError());
}

TEST(SubprocessTest, EchoRoundTrip) {
  std::unique_ptr<Subprocess> cat = spawnOrFail({"/bin/cat"});
  ASSERT_TRUE(cat);
  EXPECT_TRUE(cat->isRunning());
  ASSERT_FALSE(llvm::errorToBool(cat->writeLine("hello")));
  ASSERT_FALSE(llvm::errorToBool(cat->writeLine("{\"kernel\": 2}")));
  llvm::Expected<std::string> first = cat->readLine(patience);
  ASSERT_TRUE(static_cast<bool>(first)) << llvm::toString(first.takeError());
  EXPECT_EQ(*first, "hello");
  llvm::Expected<std::string> second = cat->readLine(patience);
  ASSERT_TRUE(static_cast<bool>(second)) << llvm::toString(second.takeError());
  EXPECT_EQ(*second, "{\"kernel\": 2}");
  // wait() closes cat's input, which ends it normally.
  EXPECT_EQ(cat->wait(), 0);
  EXPECT_FALSE(cat->isRunning());
}

TEST(SubprocessTest, LargeLineRoundTrip) {
  // Far larger than a pipe: cat echoes while we are still writing, so this
  // also checks that writeLine keeps reading instead of deadlocking.
  std::string line(8 << 20, ' ');
  for (size_t i = 0; i < line.size(); ++i)
    line[i] = 'a' + i % 26;
  std::unique_ptr<Subprocess> cat = spawnOrFail({"/bin/cat"});
  ASSERT_TRUE(cat);
  ASSERT_FALSE(llvm::errorToBool(cat->writeLine(line)));
  ASSERT_FALSE(llvm::errorToBool(cat->writeLine("small")));
  llvm::Expected<std::string> echoed = cat->readLine(patience);
  ASSERT_TRUE(static_cast<bool>(echoed)) << llvm::toString(echoed.takeError());
  EXPECT_EQ(echoed->size(), line.size());
  EXPECT_TRUE(*echoed == line);
  llvm::Expected<std::string> small = cat->readLine(patience);
  ASSERT_TRUE(static_cast<bool>(small)) << llvm::toString(small.takeError());
  EXPECT_EQ(*small, "small");
}

TEST(SubprocessTest, SeveralLinesInOneRead) {
  std::unique_ptr<Subprocess> child = shell("printf 'a\\nb\\n\\nc\\n'");
  ASSERT_TRUE(child);
  for (const char *expected : {"a", "b", "", "c"}) {
    llvm::Expected<std::string> line = child->readLine(patience);
    ASSERT_TRUE(static_cast<bool>(line)) << llvm::toString(line.takeError());
    EXPECT_EQ(*line, expected);
  }
  ExitReport report = expectExited(child->readLine(patience));
  EXPECT_EQ(report.exitCode, 0);
}

TEST(SubprocessTest, TimeoutKeepsPartialLine) {
  std::unique_ptr<Subprocess> child =
      shell("printf 'abc'; sleep 1; printf 'def\\n'");
  ASSERT_TRUE(child);
  llvm::Expected<std::string> early = child->readLine(100ms);
  ASSERT_FALSE(static_cast<bool>(early));
  EXPECT_TRUE(early.takeError().isA<SubprocessTimeout>());
  llvm::Expected<std::string> line = child->readLine(patience);
  ASSERT_TRUE(static_cast<bool>(line)) << llvm::toString(line.takeError());
  EXPECT_EQ(*line, "abcdef");
}

TEST(SubprocessTest, TimeoutThenKill) {
  auto start = std::chrono::steady_clock::now();
  // The shell forks sleep (a command follows it), so the kill must reach a
  // grandchild too; otherwise sleep would hold the pipes open for 5 s.
  std::unique_ptr<Subprocess> child = shell("sleep 5; echo late");
  ASSERT_TRUE(child);
  llvm::Expected<std::string> line = child->readLine(200ms);
  ASSERT_FALSE(static_cast<bool>(line));
  llvm::Error error = line.takeError();
  ASSERT_TRUE(error.isA<SubprocessTimeout>());
  std::string message = llvm::toString(std::move(error));
  EXPECT_CONTAINS(message, "'sh' sent no complete line within 200 ms");
  EXPECT_TRUE(child->isRunning());

  child->kill();
  EXPECT_EQ(child->wait(), std::nullopt);
  EXPECT_FALSE(child->isRunning());
  ExitReport report = expectExited(child->readLine(patience));
  EXPECT_EQ(report.signal, SIGKILL);
  child.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

TEST(SubprocessTest, CrashReportsTheSignal) {
  std::unique_ptr<Subprocess> child = shell("kill -SEGV $$");
  ASSERT_TRUE(child);
  ExitReport report = expectExited(child->readLine(patience));
  EXPECT_EQ(report.signal, SIGSEGV);
  EXPECT_EQ(report.exitCode, std::nullopt);
  EXPECT_CONTAINS(report.message, "'sh' exited with signal 11");
  EXPECT_CONTAINS(report.message, "Segmentation fault");
  EXPECT_EQ(child->wait(), std::nullopt);
}

TEST(SubprocessTest, ExitStatusIsReported) {
  std::unique_ptr<Subprocess> child = shell("exit 3");
  ASSERT_TRUE(child);
  ExitReport report = expectExited(child->readLine(patience));
  EXPECT_EQ(report.exitCode, 3);
  EXPECT_EQ(report.signal, std::nullopt);
  EXPECT_CONTAINS(report.message, "'sh' exited with status 3");
  EXPECT_EQ(child->wait(), 3);
}

TEST(SubprocessTest, WritingToAnExitedChildIsAnError) {
  // The child is gone (but not yet reaped) when we write, so the write fails
  // with EPIPE; SIGPIPE must not kill the test.
  std::unique_ptr<Subprocess> child = shell("exit 0");
  ASSERT_TRUE(child);
  std::this_thread::sleep_for(300ms);
  ExitReport report = expectExited(child->writeLine("request"));
  EXPECT_EQ(report.exitCode, 0);
}

TEST(SubprocessTest, NonexistentProgramIsAnError) {
  llvm::Expected<std::unique_ptr<Subprocess>> child =
      Subprocess::spawn({"/nonexistent/kf-no-such-program", "--flag"});
  ASSERT_FALSE(static_cast<bool>(child));
  std::string message = llvm::toString(child.takeError());
  EXPECT_CONTAINS(message, "cannot run '/nonexistent/kf-no-such-program'");
  EXPECT_CONTAINS(message, "No such file or directory");
}

TEST(SubprocessTest, EmptyArgvIsAnError) {
  llvm::Expected<std::unique_ptr<Subprocess>> child = Subprocess::spawn({});
  ASSERT_FALSE(static_cast<bool>(child));
  EXPECT_CONTAINS(llvm::toString(child.takeError()), "argv[0]");
}

TEST(SubprocessTest, StderrTailIsCaptured) {
  std::unique_ptr<Subprocess> child =
      shell("echo 'CUDA_ERROR_ILLEGAL_ADDRESS in kernel' >&2; kill -ABRT $$");
  ASSERT_TRUE(child);
  ExitReport report = expectExited(child->readLine(patience));
  EXPECT_EQ(report.signal, SIGABRT);
  EXPECT_EQ(child->stderrTail(), "CUDA_ERROR_ILLEGAL_ADDRESS in kernel\n");
}

TEST(SubprocessTest, StderrTailKeepsOnlyTheEnd) {
  // 200 KB of noise then a marker: the tail is bounded and ends with the
  // marker.
  std::unique_ptr<Subprocess> child =
      shell("head -c 200000 /dev/zero | tr '\\0' x >&2; echo END >&2");
  ASSERT_TRUE(child);
  EXPECT_EQ(child->wait(), 0);
  std::string tail = child->stderrTail();
  EXPECT_EQ(tail.size(), 64u * 1024);
  EXPECT_EQ(tail.substr(tail.size() - 4), "END\n");
  EXPECT_EQ(tail.find_first_not_of('x'), tail.size() - 4);
}

TEST(SubprocessTest, ExtraEnvironmentIsAddedAndOverrides) {
  std::unique_ptr<Subprocess> child =
      spawnOrFail({"/bin/sh", "-c", "echo \"$KF_TEST_VALUE $HOME\""},
                  {"KF_TEST_VALUE=42", "HOME=/kf-test-home"});
  ASSERT_TRUE(child);
  llvm::Expected<std::string> line = child->readLine(patience);
  ASSERT_TRUE(static_cast<bool>(line)) << llvm::toString(line.takeError());
  EXPECT_EQ(*line, "42 /kf-test-home");
}

TEST(SubprocessTest, MalformedEnvironmentEntryIsAnError) {
  llvm::Expected<std::unique_ptr<Subprocess>> child =
      Subprocess::spawn({"/bin/true"}, {"NOEQUALS"});
  ASSERT_FALSE(static_cast<bool>(child));
  EXPECT_CONTAINS(llvm::toString(child.takeError()), "NAME=value");
}

/// Whether `pid` is gone or a zombie (dead, waiting for init to reap it).
bool isDead(const std::string &pid) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> stat =
      llvm::MemoryBuffer::getFileAsStream("/proc/" + pid + "/stat");
  if (!stat)
    return true;
  // The state follows the parenthesized command name: "123 (sleep) Z ...".
  llvm::StringRef afterName = (*stat)->getBuffer().rsplit(')').second.trim();
  return afterName.starts_with("Z") || afterName.starts_with("X");
}

TEST(SubprocessTest, KillReachesGrandchildren) {
  std::unique_ptr<Subprocess> child = shell("sleep 30 & echo $!; wait");
  ASSERT_TRUE(child);
  llvm::Expected<std::string> grandchild = child->readLine(patience);
  ASSERT_TRUE(static_cast<bool>(grandchild))
      << llvm::toString(grandchild.takeError());
  EXPECT_FALSE(isDead(*grandchild));
  child->kill();
  EXPECT_EQ(child->wait(), std::nullopt);
  auto deadline = std::chrono::steady_clock::now() + 2s;
  while (!isDead(*grandchild) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(isDead(*grandchild));
}

TEST(SubprocessTest, DestructorEndsARunningChild) {
  auto start = std::chrono::steady_clock::now();
  {
    std::unique_ptr<Subprocess> child = spawnOrFail({"/bin/sleep", "30"});
    ASSERT_TRUE(child);
    EXPECT_TRUE(child->isRunning());
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 2s);
}

} // namespace
