//===- OutputDirectory.cpp - One writer per search output directory -------===//

#include "kf/Search/OutputDirectory.h"
#include "kf/Support/Redaction.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

using namespace kf;

static llvm::Error errorOf(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 message.str());
}

llvm::Expected<std::unique_ptr<OutputDirectoryLock>>
OutputDirectoryLock::acquire(llvm::StringRef directory) {
  if (std::error_code ec = llvm::sys::fs::create_directories(directory))
    return errorOf("cannot create " + directory + ": " + ec.message());
  llvm::SmallString<256> path(directory);
  llvm::sys::path::append(path, kLockName);
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
                  0644);
  if (fd < 0)
    return errorOf("cannot open the lock " + path + ": " +
                   std::strerror(errno));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int saved = errno;
    char holder[32] = {0};
    ssize_t read = ::pread(fd, holder, sizeof(holder) - 1, 0);
    ::close(fd);
    if (saved != EWOULDBLOCK)
      return errorOf("cannot lock " + path + ": " + std::strerror(saved));
    llvm::StringRef pid =
        read > 0 ? llvm::StringRef(holder, read).trim() : "unknown";
    return errorOf("another run (process " + pid + ") is writing to " +
                   directory + " (it holds " + path +
                   "): give this run another --output directory, or wait "
                   "for that one to end");
  }
  std::string pid = std::to_string(llvm::sys::Process::getProcessId()) + "\n";
  if (::ftruncate(fd, 0) != 0 ||
      ::pwrite(fd, pid.data(), pid.size(), 0) != (ssize_t)pid.size()) {
    ::close(fd);
    return errorOf("cannot write " + path + ": " + std::strerror(errno));
  }
  return std::unique_ptr<OutputDirectoryLock>(new OutputDirectoryLock(fd));
}

OutputDirectoryLock::~OutputDirectoryLock() {
  // The lock file stays: removing it would let a third run lock a new file
  // while a second one waits on the old.
  ::close(fd);
}

llvm::Error kf::writeFileReplacing(llvm::StringRef path,
                                   llvm::StringRef original) {
  // Every file of the output directory passes through the one redaction.
  std::string redacted = redactSecrets(original);
  llvm::StringRef text = redacted;
  llvm::SmallString<256> model(path);
  model += ".tmp-%%%%%%%%";
  int fd;
  llvm::SmallString<256> temporary;
  // createUniqueFile opens with O_CREAT | O_EXCL: never an existing file or
  // symlink.
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(model, fd, temporary))
    return errorOf("cannot write " + path + ": " + ec.message());
  const char *data = text.data();
  size_t left = text.size();
  while (left) {
    ssize_t written = ::write(fd, data, left);
    if (written < 0) {
      if (errno == EINTR)
        continue;
      int saved = errno;
      ::close(fd);
      llvm::sys::fs::remove(temporary);
      return errorOf("cannot write " + path + ": " + std::strerror(saved));
    }
    data += written;
    left -= written;
  }
  ::close(fd);
  // rename replaces a symlink at `path` itself, never what it points to.
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path)) {
    llvm::sys::fs::remove(temporary);
    return errorOf("cannot write " + path + ": " + ec.message());
  }
  return llvm::Error::success();
}

llvm::Expected<int> kf::openForAppendNoFollow(llvm::StringRef path,
                                              bool create, bool truncate) {
  llvm::SmallString<256> name(path);
  int flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC;
  if (create)
    flags |= O_CREAT;
  if (truncate)
    flags |= O_TRUNC;
  int fd = ::open(name.c_str(), flags, 0644);
  if (fd < 0) {
    int saved = errno;
    if (saved == ELOOP)
      return errorOf("cannot write " + path +
                     ": it is a symlink, which kf never writes through");
    return errorOf("cannot write " + path + ": " + std::strerror(saved));
  }
  return fd;
}
