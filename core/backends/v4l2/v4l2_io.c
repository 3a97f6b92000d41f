/* v4l2_io.h: the kernel's side of the seam. */
#include <errno.h>
#include <stddef.h>
#include <sys/ioctl.h>

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

const struct v4l2_io v4l2_io_kernel = {kernel_ioctl, NULL};
