/* One uda device (API DRM) per DRM device: its display engine's scanout
 * sets, dumb buffers for CPU-drawn frames, and PRIME import and export of
 * DMA-BUFs. */
#ifndef UDA_DRM_DEVICE_H
#define UDA_DRM_DEVICE_H

#include <uda/uda_backend.h>

#include "drm_io.h"

#define DRM_BACKEND_NAME "drm"

#ifdef __cplusplus
extern "C" {
#endif

/* Registers the device of `node`, its kernel reached through `io` (which
 * must outlive the context). UDA_ERROR_UNSUPPORTED when neither node
 * opens. */
uda_result drm_device_add(uda_context *ctx, const struct drm_node_record *node, const struct drm_io *io,
                          uda_device **out_device);

/* Every device `io` lists, registered; the count registered. */
uint32_t drm_devices_add_all(uda_context *ctx, const struct drm_io *io);

#ifdef __cplusplus
}
#endif

#endif
