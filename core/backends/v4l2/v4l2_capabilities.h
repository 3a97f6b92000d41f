/* The capability sets of a probed V4L2 node for one buffer: from the
 * driver's VIDIOC_TRY_FMT answer for that size and format, checked before
 * anything uses it. */
#ifndef UDA_V4L2_CAPABILITIES_H
#define UDA_V4L2_CAPABILITIES_H

#include <uda/uda_backend.h>

#include "v4l2_probe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The payload of a set's UDA_CAPABILITY_V4L2_QUEUE: the queue, the V4L2
 * format and the driver's TRY_FMT answer the set came from. */
struct v4l2_queue_params {
	uint32_t type, pixelformat, bytesperline, sizeimage;
	/* A decoder's pictures: the bitstream format its OUTPUT queue was
	 * set to before the answer (the pictures follow it); 0 otherwise. */
	uint32_t bitstream;
};

/* Writes the capability's payload; its length (the decoder's form where
 * there is a bitstream). */
uint32_t v4l2_queue_params_write(const struct v4l2_queue_params *params,
                                 uint8_t out[UDA_CAPABILITY_V4L2_QUEUE_DECODER_SIZE]);
/* The device `owner`'s queue capability in set `index`; false where the
 * set has none (a set no V4L2 device of that UUID answered). */
bool v4l2_queue_params_find(const uda_capability_set_list *sets, uint32_t index, const uint8_t owner[UDA_UUID_SIZE],
                            struct v4l2_queue_params *out);

/* One set per V4L2 format of `queue` (the capture queue of a camera or a
 * decoder, the output queue of an encoder) that carries `drm_format` at
 * width x height as one buffer: its layout (linear, or the modifier of a
 * tiled format), DMA-BUF as the handle, and the driver's pitch as the only
 * one (pitch alignment and maximum both bytesperline), and a LOCAL
 * UDA_CAPABILITY_V4L2_QUEUE with the queue, format and answer. A
 * decoder's pictures are asked for on an fd whose OUTPUT queue the caller
 * set to `bitstream` at that size (0: not a decoder's), which the sets
 * record; a decoder that writes larger pictures (whole macroblocks) is
 * refused with the size to ask for. With
 * cpu_access, only pitch-linear sets, the CPU mapping them (REQUIRED
 * CPU_ACCESS MAPPABLE) through their DMA-BUF. A format the size
 * does not fit, a driver that answers another size or format, a
 * bytesperline below the row or a sizeimage below the planes is left out,
 * the reason logged at debug. UDA_ERROR_INCOMPATIBLE when none is left
 * (the message names the last reason). */
uda_result v4l2_capability_sets(uda_context *context, const struct v4l2_io *io, int fd,
                                const struct v4l2_probed_queue *queue, uint32_t width, uint32_t height,
                                uint32_t drm_format, bool cpu_access, uint32_t bitstream,
                                uda_capability_set_list **out_sets);

#ifdef __cplusplus
}
#endif

#endif
