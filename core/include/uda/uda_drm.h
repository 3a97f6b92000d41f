/*
 * DRM objects behind a uda allocation of the drm backend, for a
 * compositor that puts it on a KMS plane itself (drmModeAddFB2WithModifiers
 * with the GEM handle, then an atomic commit).
 */
#ifndef UDA_DRM_H
#define UDA_DRM_H

#include <uda/uda.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct uda_drm_native {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_DRM_NATIVE */
	const void *next;
	/* The backend's fd of the device's primary node (its render node
	 * where it has no primary one); valid while the context lives. The
	 * backend never becomes DRM master and never sets a mode. */
	int drm_fd;
	/* The allocation's GEM handle on drm_fd: a dumb buffer the backend
	 * made, or a PRIME import. Valid while the allocation lives. */
	uint32_t gem_handle;
} uda_drm_native;

#ifdef __cplusplus
}
#endif

#endif /* UDA_DRM_H */
