// Preloaded into an evaluating rank by the MPI tests: the rank dies (exit
// status 9) as it sends its KF_TEST_DIE_AFTER'th message (default 1) with
// the tag KF_TEST_DIE_AT_TAG on kf's work channel (tags, MpiCluster.cpp:
// 2, a reply; 5, "stopped", the answer to rank 0's stop, made holding no
// candidate; 8, the hello a rank says before its first candidate). The
// channel's frames are 'k', 'f', the tag, 0, a 4-byte big-endian length,
// the payload; every other write is passed on.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

static int sends;

ssize_t send(int fd, const void *buffer, size_t size, int flags) {
  static ssize_t (*real)(int, const void *, size_t, int);
  const char *dieTag = getenv("KF_TEST_DIE_AT_TAG");
  const char *after = getenv("KF_TEST_DIE_AFTER");
  const unsigned char *bytes = buffer;
  // Each frame the write holds (a write starts at a frame's beginning
  // unless the socket took only part of the one before).
  for (size_t at = 0; dieTag && at + 8 <= size;) {
    if (bytes[at] != 'k' || bytes[at + 1] != 'f' || bytes[at + 3] != 0)
      break;
    if (bytes[at + 2] == atoi(dieTag) && ++sends >= (after ? atoi(after) : 1))
      _exit(9);
    size_t length = ((size_t)bytes[at + 4] << 24) | (bytes[at + 5] << 16) |
                    (bytes[at + 6] << 8) | bytes[at + 7];
    at += 8 + length;
  }
  if (!real)
    real = dlsym(RTLD_NEXT, "send");
  return real(fd, buffer, size, flags);
}
