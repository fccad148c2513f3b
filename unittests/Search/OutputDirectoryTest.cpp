//===- OutputDirectoryTest.cpp - One writer per output directory ----------===//

#include "kf/Search/OutputDirectory.h"
#include "TemporaryDirectory.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

using namespace kf;

namespace {

/// Each test's scratch directory.
struct TemporaryDirectory : kf::testing::TemporaryDirectory {
  TemporaryDirectory() : kf::testing::TemporaryDirectory("kf-output") {}
};

TEST(OutputDirectoryLock, SecondWriterIsRefusedUntilTheFirstEnds) {
  TemporaryDirectory directory;
  std::string output = directory / "run";
  auto first = OutputDirectoryLock::acquire(output);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  auto second = OutputDirectoryLock::acquire(output);
  ASSERT_FALSE(bool(second));
  std::string message = llvm::toString(second.takeError());
  EXPECT_NE(message.find("another run (process "), std::string::npos)
      << message;
  EXPECT_NE(message.find(output), std::string::npos) << message;
  first->reset();
  auto third = OutputDirectoryLock::acquire(output);
  EXPECT_TRUE(bool(third)) << llvm::toString(third.takeError());
}

TEST(WriteFileReplacing, ReplacesASymlinkInsteadOfWritingThroughIt) {
  TemporaryDirectory directory;
  std::string victim = directory / "victim.txt";
  ASSERT_FALSE(bool(writeFileReplacing(victim, "precious\n")));
  std::string link = directory / "result.json";
  ASSERT_FALSE(llvm::sys::fs::create_link(victim, link));
  ASSERT_FALSE(bool(writeFileReplacing(link, "{}\n")));
  auto kept = llvm::MemoryBuffer::getFile(victim);
  ASSERT_TRUE(bool(kept));
  EXPECT_EQ((*kept)->getBuffer(), "precious\n");
  EXPECT_FALSE(llvm::sys::fs::is_symlink_file(link));
  auto written = llvm::MemoryBuffer::getFile(link);
  ASSERT_TRUE(bool(written));
  EXPECT_EQ((*written)->getBuffer(), "{}\n");
}

TEST(OpenForAppendNoFollow, RefusesASymlink) {
  TemporaryDirectory directory;
  std::string victim = directory / "victim.txt";
  ASSERT_FALSE(bool(writeFileReplacing(victim, "precious\n")));
  std::string link = directory / "candidates.jsonl";
  ASSERT_FALSE(llvm::sys::fs::create_link(victim, link));
  llvm::Expected<int> fd = openForAppendNoFollow(link, true, true);
  ASSERT_FALSE(bool(fd));
  EXPECT_NE(llvm::toString(fd.takeError()).find("symlink"), std::string::npos);
}

} // namespace
