//===- OutputDirectory.h - One writer per search output directory -*- C++ -*-===//
//
// A search's output directory has one writer: the run holds an exclusive
// lock (flock on `.kf-run.lock`) for as long as it runs, and a second run
// into the same directory is refused with the first one's process id. The
// lock goes with the process, so a killed run leaves nothing to clean up.
// Files are written by creating a new file next to the target and renaming
// it over the target: a symlink planted in the directory is replaced, never
// followed, and a reader never sees a half-written file.
//
//===----------------------------------------------------------------------===//

#ifndef KF_SEARCH_OUTPUTDIRECTORY_H
#define KF_SEARCH_OUTPUTDIRECTORY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <string>

namespace kf {

class OutputDirectoryLock {
public:
  /// Creates `directory` when missing and takes its lock, or says which
  /// process holds it.
  static llvm::Expected<std::unique_ptr<OutputDirectoryLock>>
  acquire(llvm::StringRef directory);
  ~OutputDirectoryLock();

  static constexpr const char *kLockName = ".kf-run.lock";

private:
  explicit OutputDirectoryLock(int fd) : fd(fd) {}
  int fd;
};

/// Writes `text` to `path` through a new file in the same directory renamed
/// over it: never through a symlink at `path`.
llvm::Error writeFileReplacing(llvm::StringRef path, llvm::StringRef text);

/// Opens `path` for appending (creating it with `create`) without following
/// a symlink; returns the file descriptor.
llvm::Expected<int> openForAppendNoFollow(llvm::StringRef path, bool create,
                                          bool truncate);

} // namespace kf

#endif // KF_SEARCH_OUTPUTDIRECTORY_H
