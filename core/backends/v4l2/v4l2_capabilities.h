/* The capability sets of a probed V4L2 node for one buffer: from the
 * driver's VIDIOC_TRY_FMT answer for that size and format, checked before
 * anything uses it. */
#ifndef UDA_V4L2_CAPABILITIES_H
#define UDA_V4L2_CAPABILITIES_H

#include <uda/uda.h>

#include "v4l2_probe.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One set per V4L2 format of `queue` (the capture queue of a camera or a
 * decoder, the output queue of an encoder) that carries `drm_format` at
 * width x height as one buffer: its layout (linear, or the modifier of a
 * tiled format), DMA-BUF as the handle, and the driver's pitch as the only
 * one (pitch alignment and maximum both bytesperline). A format the size
 * does not fit, a driver that answers another size or format, a
 * bytesperline below the row or a sizeimage below the planes is left out,
 * the reason logged at debug. UDA_ERROR_INCOMPATIBLE when none is left
 * (the message names the last reason). */
uda_result v4l2_capability_sets(uda_context *context, const struct v4l2_io *io, int fd,
                                const struct v4l2_probed_queue *queue, uint32_t width, uint32_t height,
                                uint32_t drm_format, uda_capability_set_list **out_sets);

#ifdef __cplusplus
}
#endif

#endif
