/* The IN_FORMATS property blob of a KMS plane (struct
 * drm_format_modifier_blob), parsed into (format, modifier) pairs.
 *
 * The blob comes from the kernel, but the parser treats it as untrusted
 * bytes (a fixture, a buggy driver, a blob id that names some other
 * blob): every count and offset is checked against the size before it is
 * read. */
#ifndef UDA_DRM_IN_FORMATS_H
#define UDA_DRM_IN_FORMATS_H

#include <stddef.h>
#include <stdint.h>

struct drm_format_pair {
	uint32_t format; /* DRM fourcc */
	uint64_t modifier;
};

struct drm_in_formats {
	struct drm_format_pair *pairs; /* malloc'ed, in blob order */
	uint32_t pair_count;
};

/* NULL on success (free with drm_in_formats_finish), or a static reason. */
const char *drm_in_formats_parse(const void *blob, size_t size, struct drm_in_formats *out);
void drm_in_formats_finish(struct drm_in_formats *formats);

#endif
