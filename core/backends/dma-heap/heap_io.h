/* The only place the dma-heap backend touches the kernel: listing
 * /dev/dma_heap, DMA_HEAP_IOCTL_ALLOC and DMA_BUF_IOCTL_SYNC. Everything
 * above it takes a struct dma_heap_io, so the selection and sizing logic
 * runs in tests on recorded heap sets with no device node at all. */
#ifndef UDA_DMA_HEAP_IO_H
#define UDA_DMA_HEAP_IO_H

#include <stdbool.h>
#include <stdint.h>

#define DMA_HEAP_NAME_MAX 64
#define DMA_HEAP_MAX 16

#ifdef __cplusplus
extern "C" {
#endif

struct dma_heap_io {
	/* Fills names[] with the heaps there are (at most DMA_HEAP_MAX);
	 * returns their count, 0 when there is no heap directory. */
	uint32_t (*list)(void *data, char names[][DMA_HEAP_NAME_MAX]);
	/* A new dma-buf of `size` bytes from the heap, O_RDWR | O_CLOEXEC;
	 * -errno on failure. */
	int (*allocate)(void *data, const char *heap, uint64_t size);
	/* DMA_BUF_IOCTL_SYNC with DMA_BUF_SYNC_{START,END} | {READ,WRITE};
	 * 0 or -errno. */
	int (*sync)(void *data, int fd, bool start, bool read, bool write);
	void *data;
};

/* The kernel's: /dev/dma_heap/<name>. */
extern const struct dma_heap_io dma_heap_io_kernel;

#ifdef __cplusplus
}
#endif

#endif
