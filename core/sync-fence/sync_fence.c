/* Waiting on fences on the CPU, for a side of a uda_surface that does not
 * take fences itself. */
#include "sync_fence.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

bool sync_fence_is_valid_argument(int fd)
{
	return fd == -1 || (fd >= 0 && fcntl(fd, F_GETFD) != -1);
}

struct timespec sync_fence_deadline_after(uint64_t timeout_ns)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (timeout_ns == 0 || timeout_ns == UINT64_MAX)
		return now;
	uint64_t seconds = timeout_ns / 1000000000u;
	uint64_t nanoseconds = (uint64_t)now.tv_nsec + timeout_ns % 1000000000u;
	now.tv_sec += (time_t)(seconds + nanoseconds / 1000000000u);
	now.tv_nsec = (long)(nanoseconds % 1000000000u);
	return now;
}

/* poll()'s milliseconds until the deadline, rounded up so a wait never
 * ends before it. */
static int milliseconds_until(const struct timespec *deadline)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int64_t left_s = (int64_t)deadline->tv_sec - (int64_t)now.tv_sec;
	/* Timeouts up to UINT64_MAX - 1 ns are centuries: no nanosecond sum. */
	if (left_s > INT_MAX / 1000)
		return INT_MAX;
	int64_t left_ns = left_s * 1000000000 + ((int64_t)deadline->tv_nsec - (int64_t)now.tv_nsec);
	if (left_ns <= 0)
		return 0;
	int64_t ms = (left_ns + 999999) / 1000000;
	return ms > INT_MAX ? INT_MAX : (int)ms;
}

bool sync_fence_wait_any(struct pollfd *fds, unsigned count, uint64_t timeout_ns, const struct timespec *deadline)
{
	for (unsigned i = 0; i < count; i++)
		fds[i].events = POLLIN;
	for (;;) {
		int timeout_ms = timeout_ns == UINT64_MAX ? -1 : timeout_ns == 0 ? 0 : milliseconds_until(deadline);
		int ready = poll(fds, count, timeout_ms);
		if (ready > 0)
			return true;
		if (ready == 0) {
			/* INT_MAX ms is not forever: look again until the deadline. */
			if (timeout_ms == 0 || milliseconds_until(deadline) == 0)
				return false;
			continue;
		}
		if (errno == ENOMEM) {
			/* Kernel memory is short for a moment: look again soon
			 * rather than call a fence signalled that is not. */
			if (timeout_ms == 0)
				return false;
			struct timespec pause = {0, 1000000};
			nanosleep(&pause, NULL);
		} else if (errno != EINTR && errno != EAGAIN) {
			return true; /* not descriptors poll can wait on */
		}
	}
}

bool sync_fence_wait(int fd, uint64_t timeout_ns, const struct timespec *deadline)
{
	struct pollfd entry = {.fd = fd};
	return sync_fence_wait_any(&entry, 1, timeout_ns, deadline);
}

void sync_fence_wait_and_close(int fd)
{
	if (fd < 0)
		return;
	sync_fence_wait(fd, UINT64_MAX, NULL);
	close(fd);
}
