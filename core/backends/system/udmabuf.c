/* UDMABUF_CREATE over /dev/udmabuf. */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/udmabuf.h>

#include "udmabuf.h"

#define UDMABUF_NODE "/dev/udmabuf"

bool udmabuf_available(void)
{
	return access(UDMABUF_NODE, R_OK | W_OK) == 0;
}

int udmabuf_create(int memfd, uint64_t size)
{
	int node = open(UDMABUF_NODE, O_RDWR | O_CLOEXEC);
	if (node < 0)
		return -errno;
	struct udmabuf_create request = {
		.memfd = (uint32_t)memfd,
		.flags = UDMABUF_FLAGS_CLOEXEC,
		.offset = 0,
		.size = size,
	};
	int fd = ioctl(node, UDMABUF_CREATE, &request);
	int result = fd < 0 ? -errno : fd;
	close(node);
	return result;
}
