/* struct dma_heap_io over the kernel's device nodes and ioctls. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#include "heap_io.h"

#define HEAP_DIR "/dev/dma_heap"

static uint32_t kernel_list(void *data, char names[][DMA_HEAP_NAME_MAX])
{
	(void)data;
	DIR *dir = opendir(HEAP_DIR);
	if (!dir)
		return 0;
	uint32_t count = 0;
	for (struct dirent *entry; count < DMA_HEAP_MAX && (entry = readdir(dir));) {
		if (entry->d_name[0] == '.' || strlen(entry->d_name) >= DMA_HEAP_NAME_MAX)
			continue;
		memcpy(names[count++], entry->d_name, strlen(entry->d_name) + 1);
	}
	closedir(dir);
	return count;
}

static int kernel_allocate(void *data, const char *heap, uint64_t size)
{
	(void)data;
	char path[sizeof(HEAP_DIR) + DMA_HEAP_NAME_MAX + 1];
	snprintf(path, sizeof(path), HEAP_DIR "/%s", heap);
	int heap_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (heap_fd < 0)
		return -errno;
	struct dma_heap_allocation_data request = {
		.len = size,
		.fd_flags = O_RDWR | O_CLOEXEC,
	};
	int result = ioctl(heap_fd, DMA_HEAP_IOCTL_ALLOC, &request) < 0 ? -errno : (int)request.fd;
	close(heap_fd);
	return result;
}

static int kernel_sync(void *data, int fd, bool start, bool read, bool write)
{
	(void)data;
	struct dma_buf_sync sync = {
		.flags = (start ? DMA_BUF_SYNC_START : DMA_BUF_SYNC_END) | (read ? DMA_BUF_SYNC_READ : 0) |
		         (write ? DMA_BUF_SYNC_WRITE : 0),
	};
	int result;
	do
		result = ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
	while (result < 0 && (errno == EINTR || errno == EAGAIN));
	return result < 0 ? -errno : 0;
}

const struct dma_heap_io dma_heap_io_kernel = {
	.list = kernel_list,
	.allocate = kernel_allocate,
	.sync = kernel_sync,
};
