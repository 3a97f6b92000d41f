/*
 * V4L2 objects behind a uda device of the v4l2 backend (a camera, a
 * decoder, an encoder, a converter) and behind its allocations, for the
 * program that streams them:
 *
 *   V4L2_MEMORY_MMAP: memory the V4L2 device made itself, with
 *     VIDIOC_CREATE_BUFS on uda's fd of the node (uda_v4l2_device_native
 *     ::fd), after setting the negotiated format on that queue. Stream on
 *     that fd: VIDIOC_QBUF of `index`, VIDIOC_STREAMON. The queue has the
 *     format already (VIDIOC_G_FMT shows it; VIDIOC_S_FMT would fail with
 *     EBUSY while it holds buffers), and VIDIOC_REQBUFS on it would free
 *     uda's buffers: leave its buffers to uda. A decoder's pictures follow
 *     its bitstream, so uda set that fd's OUTPUT queue first, to the
 *     bitstream the usage named (else the decoder's first) at the
 *     pictures' size; VIDIOC_G_FMT shows it. Queue the bitstream there as
 *     it is: some decoders refuse another OUTPUT format while CAPTURE
 *     holds buffers (hantro), others remake the CAPTURE format under them.
 *   V4L2_MEMORY_DMABUF: memory another device made, imported. Stream on
 *     the program's own fd of the node: for a decoder, VIDIOC_S_FMT of
 *     the OUTPUT queue to the bitstream at the pictures' size first (the
 *     stateless decoder interface's order: the CAPTURE format follows it);
 *     then VIDIOC_S_FMT with pixelformat and bytesperline below,
 *     VIDIOC_REQBUFS with DMABUF, VIDIOC_QBUF with m.fd (m.planes[0].m.fd
 *     on a multi-planar queue) = dma_buf and length = size; on an
 *     OUTPUT queue (an encoder's pictures), bytesused = the format's
 *     sizeimage (VIDIOC_G_FMT), not the whole buffer, which may be
 *     larger (vb2 takes length for a 0 bytesused, and warns). Not on uda's
 *     fd where uda made MMAP buffers on the same queue: a queue holds one
 *     kind of memory.
 *
 * A decoder writes whole macroblocks (or its own alignment): 1080p is
 * 1920x1088 pictures, of which 1080 rows are shown. Ask for the size the
 * refusal names.
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
	/* The V4L2 format of the negotiated layout on that queue, and the
	 * bytesperline the driver answered for it. */
	uint32_t pixelformat;
	uint32_t bytesperline;
} uda_v4l2_native;

#ifdef __cplusplus
}
#endif

#endif /* UDA_V4L2_H */
