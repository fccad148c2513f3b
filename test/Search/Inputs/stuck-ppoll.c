// Preloaded into rank 0 by mpi-stall.test: once the records file
// KF_TEST_STALL_RECORDS holds a line (a candidate was recorded, however
// slow the machine), the next ppoll that does not wait (rank 0's readiness
// checks while it dispatches candidates) never returns: a stall the work
// channel should never have. kf's channel is the only caller of ppoll in
// kf-evolve (WorkChannel.cpp).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int checks;

static int recorded(const char *path) {
  FILE *file = fopen(path, "r");
  if (!file)
    return 0;
  int c, lines = 0;
  while ((c = fgetc(file)) != EOF)
    lines += c == '\n';
  fclose(file);
  return lines > 0;
}

int ppoll(struct pollfd *fds, nfds_t count, const struct timespec *timeout,
          const sigset_t *mask) {
  static int (*real)(struct pollfd *, nfds_t, const struct timespec *,
                     const sigset_t *);
  const char *records = getenv("KF_TEST_STALL_RECORDS");
  int check = timeout && timeout->tv_sec == 0 && timeout->tv_nsec == 0;
  // Reading the file every 50th check keeps the dispatch loop fast.
  if (records && check &&
      __atomic_add_fetch(&checks, 1, __ATOMIC_SEQ_CST) % 50 == 0 &&
      recorded(records))
    for (;;)
      pause();
  if (!real)
    real = dlsym(RTLD_NEXT, "ppoll");
  return real(fds, count, timeout, mask);
}
