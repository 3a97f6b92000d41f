/* Fences as uda_surface carries them: file descriptors that poll readable
 * once the work they stand for is done (sync_files, and anything that
 * behaves like one). The core never looks inside a fence. */
#ifndef UDA_SYNC_FENCE_H
#define UDA_SYNC_FENCE_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* -1 (no fence) or an open descriptor. */
bool sync_fence_is_valid_argument(int fd);

/* Absolute CLOCK_MONOTONIC time timeout_ns from now; the present for 0
 * and UINT64_MAX, which sync_fence_wait treats as "don't wait" and
 * "forever" without looking at it. */
struct timespec sync_fence_deadline_after(uint64_t timeout_ns);

/* Waits until the fence signals or the deadline passes; true once it has
 * signalled. A fence that errors or hangs up counts as signalled: there
 * is nothing left to wait for. */
bool sync_fence_wait(int fd, uint64_t timeout_ns, const struct timespec *deadline);

/* Waits until any of `fds` polls readable (or errors, or hangs up) or
 * the deadline passes; true if one did, its revents then say which. */
bool sync_fence_wait_any(struct pollfd *fds, unsigned count, uint64_t timeout_ns, const struct timespec *deadline);

/* Waits as long as it takes, then closes. Accepts -1. */
void sync_fence_wait_and_close(int fd);

#endif /* UDA_SYNC_FENCE_H */
