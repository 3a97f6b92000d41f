/* Recorded displays behind the drm backend's seam (drm_io.h): each file
 * (the format of tests/backends/drm-fixtures/) describes one display
 * engine, its mode config limits, planes and each plane's formats and
 * modifiers, and the replay answers as its kernel would, dumb buffers and
 * PRIME included (sealed memfds stand in for DMA-BUFs). The drm backend
 * uses it in place of the kernel when UDA_DRM_REPLAY names files, so that
 * programs negotiate with displays this machine does not have. */
#ifndef UDA_DRM_REPLAY_H
#define UDA_DRM_REPLAY_H

#include <stddef.h>

#include "drm_io.h"

#ifdef __cplusplus
extern "C" {
#endif

struct drm_replay;

/* Reads the files of `paths`, separated by ':'. NULL, with why, when one
 * does not read or parse (the line is named). */
struct drm_replay *drm_replay_create(const char *paths, char *why, size_t why_size);
void drm_replay_destroy(struct drm_replay *replay);
/* The seam over the replay: one device per file, primary node
 * "replay:<file name>", in the order given. Valid while the replay lives. */
const struct drm_io *drm_replay_io(struct drm_replay *replay);
/* Dumb buffers and imports the replayed kernels hold: what a leak test
 * counts. */
unsigned drm_replay_live_handles(const struct drm_replay *replay);

#ifdef __cplusplus
}
#endif

#endif
