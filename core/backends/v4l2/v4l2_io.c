/* v4l2_io.h: the kernel's side of the seam. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "v4l2_io.h"

static int kernel_ioctl(void *data, int fd, unsigned long request, void *arg)
{
	(void)data;
	int result;
	do
		result = ioctl(fd, request, arg);
	while (result == -1 && errno == EINTR);
	return result;
}

/* The N of "videoN", or -1. */
static long video_number(const char *name)
{
	if (strncmp(name, "video", 5) != 0 || !name[5])
		return -1;
	char *end;
	const long number = strtol(name + 5, &end, 10);
	return *end || number < 0 || number > 1000000 ? -1 : number;
}

static int by_number(const void *a, const void *b)
{
	const long x = video_number(a), y = video_number(b);
	return (x > y) - (x < y);
}

/* Every node is read before any is dropped: readdir's order is the
 * folder's, not the kernel's, and the nodes kept must be the same ones
 * from one process to the next. */
#define KERNEL_LIST_MAX_NAMES 4096u

static uint32_t kernel_list(void *data, char (*out)[V4L2_IO_PATH_MAX], uint32_t capacity)
{
	(void)data;
	DIR *dir = opendir("/dev");
	if (!dir)
		return 0;
	char (*names)[V4L2_IO_PATH_MAX] = NULL;
	uint32_t count = 0, allocated = 0;
	for (struct dirent *entry; count < KERNEL_LIST_MAX_NAMES && (entry = readdir(dir));) {
		if (video_number(entry->d_name) < 0)
			continue;
		if (count == allocated) {
			const uint32_t more = allocated ? allocated * 2 : 64;
			void *grown = realloc(names, (size_t)more * V4L2_IO_PATH_MAX);
			if (!grown)
				break;
			names = grown;
			allocated = more;
		}
		snprintf(names[count++], V4L2_IO_PATH_MAX, "%.50s", entry->d_name);
	}
	closedir(dir);
	/* video2 before video10: the order of the kernel's minors. */
	if (count)
		qsort(names, count, V4L2_IO_PATH_MAX, by_number);
	for (uint32_t i = 0; i < count && i < capacity; i++)
		snprintf(out[i], V4L2_IO_PATH_MAX, "/dev/%.50s", names[i]);
	free(names);
	return count;
}

static int kernel_open(void *data, const char *path)
{
	(void)data;
	/* Non-blocking: a stalled driver never holds up a context. */
	const int fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

static void kernel_close(void *data, int fd)
{
	(void)data;
	close(fd);
}

const struct v4l2_io v4l2_io_kernel = {kernel_ioctl, NULL, kernel_list, kernel_open, kernel_close};
