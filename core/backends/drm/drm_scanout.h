/* What a display engine can scan out, as uda capability sets: derived from
 * the planes' IN_FORMATS and the mode config limits, recorded in plain
 * structs so that the derivation runs on fixtures as well as on a live
 * device (the ioctls that fill the records are elsewhere). */
#ifndef UDA_DRM_SCANOUT_H
#define UDA_DRM_SCANOUT_H

#include <uda/uda_backend.h>

#include "drm_in_formats.h"

struct drm_plane_record {
	uint32_t type; /* DRM_PLANE_TYPE_OVERLAY, _PRIMARY, _CURSOR */
	struct drm_in_formats formats;
};

struct drm_display_record {
	uint32_t max_width, max_height;       /* drmModeRes max_width/height */
	uint32_t cursor_width, cursor_height; /* DRM_CAP_CURSOR_*; 0: unknown */
	/* The scanout pitch alignment the driver is known to need; 0 when
	 * it is not known (no constraint is stated). */
	uint32_t pitch_alignment;
	uint32_t plane_count;
	struct drm_plane_record *planes;
};

/* One set per modifier every requested plane type takes for the format:
 * the display's tiled modifiers first (in the order the planes list
 * them), LINEAR last, since a display reads tiled memory with less
 * bandwidth. Usage atoms: SCANOUT (primary planes), SCANOUT_OVERLAY,
 * SCANOUT_CURSOR; anything else is UDA_ERROR_UNSUPPORTED. */
uda_result drm_scanout_capability_sets(const struct drm_display_record *display, uda_context *ctx,
                                       const uda_assertion *assertion, const uda_usage *usage,
                                       uda_capability_set_list *out);

#endif
