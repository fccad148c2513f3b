// Preloaded into rank 0 by mpi-stall.test: after KF_TEST_PPOLL_CALLS calls,
// ppoll never returns, a stall the work channel should never have (kf's
// channel is the only caller of ppoll in kf-evolve: WorkChannel.cpp).
#define _GNU_SOURCE
#include <dlfcn.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int calls;

int ppoll(struct pollfd *fds, nfds_t count, const struct timespec *timeout,
          const sigset_t *mask) {
  static int (*real)(struct pollfd *, nfds_t, const struct timespec *,
                     const sigset_t *);
  const char *limit = getenv("KF_TEST_PPOLL_CALLS");
  if (limit && __atomic_add_fetch(&calls, 1, __ATOMIC_SEQ_CST) > atoi(limit))
    for (;;)
      pause();
  if (!real)
    real = dlsym(RTLD_NEXT, "ppoll");
  return real(fds, count, timeout, mask);
}
