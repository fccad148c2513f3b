//===- TemporaryDirectory.h - A directory that lives for one test -*- C++ -*-===//
//
// The Search unit tests' scratch space: a fresh directory, removed with
// everything in it when the test ends.
//
//===----------------------------------------------------------------------===//

#ifndef KF_UNITTESTS_SEARCH_TEMPORARYDIRECTORY_H
#define KF_UNITTESTS_SEARCH_TEMPORARYDIRECTORY_H

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include "gtest/gtest.h"

#include <string>

namespace kf::testing {

struct TemporaryDirectory {
  llvm::SmallString<128> path;
  explicit TemporaryDirectory(llvm::StringRef prefix = "kf-test") {
    EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory(prefix, path));
  }
  ~TemporaryDirectory() { llvm::sys::fs::remove_directories(path); }
  TemporaryDirectory(const TemporaryDirectory &) = delete;
  TemporaryDirectory &operator=(const TemporaryDirectory &) = delete;
  /// `name` inside the directory.
  std::string operator/(llvm::StringRef name) const {
    llvm::SmallString<128> joined(path);
    llvm::sys::path::append(joined, name);
    return std::string(joined);
  }
};

} // namespace kf::testing

#endif // KF_UNITTESTS_SEARCH_TEMPORARYDIRECTORY_H
