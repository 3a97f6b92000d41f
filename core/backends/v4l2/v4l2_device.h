/* One uda device (API V4L2) per V4L2 video node: a camera, a decoder, an
 * encoder or a converter, its sets from the driver's answers
 * (v4l2_capabilities.h), DMA-BUF imports queued as V4L2_MEMORY_DMABUF,
 * and buffers of its own (VIDIOC_CREATE_BUFS) exported with
 * VIDIOC_EXPBUF. */
#ifndef UDA_V4L2_DEVICE_H
#define UDA_V4L2_DEVICE_H

#include <uda/uda_backend.h>

#include "v4l2_io.h"

#define V4L2_BACKEND_NAME "v4l2"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the node at `path`, its driver reached through `io` (which
 * must outlive the context). UDA_ERROR_UNSUPPORTED, with why, for a node
 * that does not open or is no video device uda can share buffers with (a
 * metadata node, a radio, one without streaming). */
uda_result v4l2_device_add(uda_context *ctx, const char *path, const struct v4l2_io *io, uda_device **out_device);

/* Every node `io` lists, registered; the count registered. */
uint32_t v4l2_devices_add_all(uda_context *ctx, const struct v4l2_io *io);

#ifdef __cplusplus
}
#endif

#endif
