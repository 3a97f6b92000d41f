/*
 * V4L2 objects behind a uda device of the v4l2 backend (a camera, a
 * decoder, an encoder, a converter) and behind its allocations, for the
 * program that streams: it sets the negotiated format on the queue
 * (VIDIOC_S_FMT with pixelformat and bytesperline below), then queues
 * each allocation's memory:
 *
 *   V4L2_MEMORY_DMABUF (memory another device allocated, or any import):
 *     VIDIOC_REQBUFS with DMABUF on the program's own fd or on
 *     uda_v4l2_device_native::fd, then VIDIOC_QBUF with m.fd (m.planes[0].m.fd
 *     on a multi-planar queue) = dma_buf and length = size.
 *   V4L2_MEMORY_MMAP (memory the V4L2 device allocated itself, through
 *     VIDIOC_CREATE_BUFS on uda's fd of the node): VIDIOC_QBUF of `index`
 *     on uda_v4l2_device_native::fd, the fd whose queue owns the buffer.
 */
#ifndef UDA_V4L2_H
#define UDA_V4L2_H

#include <uda/uda.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct uda_v4l2_device_native {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_V4L2_DEVICE_NATIVE */
	const void *next;
	/* The backend's fd of the node (O_RDWR); valid while the context
	 * lives. Buffers the device allocated are on its queues. */
	int fd;
	/* VIDIOC_QUERYCAP's device_caps. */
	uint32_t device_caps;
	/* V4L2_BUF_TYPE_* of the capture and output queues, 0 where the node
	 * has none. */
	uint32_t capture_type;
	uint32_t output_type;
} uda_v4l2_device_native;

typedef struct uda_v4l2_native {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_V4L2_NATIVE */
	const void *next;
	/* The queue the memory was negotiated for (V4L2_BUF_TYPE_*). */
	uint32_t buffer_type;
	/* V4L2_MEMORY_MMAP or V4L2_MEMORY_DMABUF, as above. */
	uint32_t memory;
	/* MMAP: the buffer's index on buffer_type's queue of the device's fd. */
	uint32_t index;
	/* The memory as a DMA-BUF, owned by uda (dup it to keep it): what
	 * DMABUF queues take, and what other devices imported. */
	int dma_buf;
	/* Bytes of the memory. */
	uint64_t size;
	/* The V4L2 format of the negotiated layout on that queue, and its
	 * bytesperline (0 for a tiled format whose modifier fixes it). */
	uint32_t pixelformat;
	uint32_t bytesperline;
} uda_v4l2_native;

#ifdef __cplusplus
}
#endif

#endif /* UDA_V4L2_H */
