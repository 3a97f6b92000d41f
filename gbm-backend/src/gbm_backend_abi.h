/*
 * The ABI between Mesa's libgbm loader and an external backend, as uda
 * implements it.
 *
 * Mesa keeps this contract in its private gbm_backend_abi.h; it is not
 * installed, so a backend that lives outside Mesa declares it itself. The
 * rules that matter (from the loader's side, libgbm 21.3 and later):
 *
 * - The loader dlopens <GBM_BACKEND>_gbm.so from GBM_BACKENDS_PATH (or its
 *   built-in folder) and calls gbmint_get_backend() with its gbm_core.
 * - It calls create_device(fd, version) with version = MIN(its own
 *   version, the backend's backend_version) and destroys the device again
 *   unless device->v0.backend_version equals that version.
 * - Every struct grows only at its end, one vN block per ABI version; a
 *   reader never looks past the blocks of the version an object has. So a
 *   backend of version 1 works with any loader of version 1 or later.
 * - The loader reads some fields itself: bo->v0.width, height, format,
 *   handle, user_data (gbm_bo_get_*), device->v0.fd and name; it runs
 *   destroy_user_data before calling bo_destroy.
 *
 * Version 1 changed no layout: since it, bo_create and surface_create get
 * the caller's usage flags along with a modifier list (version 0 passed 0,
 * and meant scanout: a version-1 loader passes GBM_BO_USE_SCANOUT for
 * gbm_*_create_with_modifiers to keep that). Debian 12's libgbm (Mesa
 * 22.3) is version 1; a version-0 loader is served too.
 */
#ifndef UDA_GBM_BACKEND_ABI_H
#define UDA_GBM_BACKEND_ABI_H

#include <stddef.h>
#include <stdint.h>

#include <gbm.h>

#define UDA_GBM_BACKEND_ABI_VERSION 1u

struct gbm_backend_desc; /* the loader's, opaque */

struct gbm_device_v0 {
	const struct gbm_backend_desc *backend_desc; /* set by the loader */
	uint32_t backend_version;
	int fd;
	const char *name;

	void (*destroy)(struct gbm_device *gbm);
	int (*is_format_supported)(struct gbm_device *gbm, uint32_t format, uint32_t usage);
	int (*get_format_modifier_plane_count)(struct gbm_device *device, uint32_t format, uint64_t modifier);

	struct gbm_bo *(*bo_create)(struct gbm_device *gbm, uint32_t width, uint32_t height, uint32_t format,
	                            uint32_t usage, const uint64_t *modifiers, const unsigned int count);
	struct gbm_bo *(*bo_import)(struct gbm_device *gbm, uint32_t type, void *buffer, uint32_t usage);
	void *(*bo_map)(struct gbm_bo *bo, uint32_t x, uint32_t y, uint32_t width, uint32_t height, uint32_t flags,
	                uint32_t *stride, void **map_data);
	void (*bo_unmap)(struct gbm_bo *bo, void *map_data);
	int (*bo_write)(struct gbm_bo *bo, const void *buf, size_t data);
	int (*bo_get_fd)(struct gbm_bo *bo);
	int (*bo_get_planes)(struct gbm_bo *bo);
	union gbm_bo_handle (*bo_get_handle)(struct gbm_bo *bo, int plane);
	int (*bo_get_plane_fd)(struct gbm_bo *bo, int plane);
	uint32_t (*bo_get_stride)(struct gbm_bo *bo, int plane);
	uint32_t (*bo_get_offset)(struct gbm_bo *bo, int plane);
	uint64_t (*bo_get_modifier)(struct gbm_bo *bo);
	void (*bo_destroy)(struct gbm_bo *bo);

	struct gbm_surface *(*surface_create)(struct gbm_device *gbm, uint32_t width, uint32_t height, uint32_t format,
	                                      uint32_t flags, const uint64_t *modifiers, const unsigned count);
	struct gbm_bo *(*surface_lock_front_buffer)(struct gbm_surface *surface);
	void (*surface_release_buffer)(struct gbm_surface *surface, struct gbm_bo *bo);
	int (*surface_has_free_buffers)(struct gbm_surface *surface);
	void (*surface_destroy)(struct gbm_surface *surface);
};

struct gbm_device {
	/* Lets libgbm tell a gbm_device from other pointers it is handed. */
	struct gbm_device *(*dummy)(int);
	struct gbm_device_v0 v0;
};

struct gbm_bo_v0 {
	uint32_t width;
	uint32_t height;
	uint32_t stride;
	uint32_t format;
	union gbm_bo_handle handle;
	void *user_data;
	void (*destroy_user_data)(struct gbm_bo *, void *);
};

struct gbm_bo {
	struct gbm_device *gbm;
	struct gbm_bo_v0 v0;
};

struct gbm_surface_v0 {
	uint32_t width;
	uint32_t height;
	uint32_t format;
	uint32_t flags;
	struct {
		uint64_t *modifiers;
		unsigned count;
	};
};

struct gbm_surface {
	struct gbm_device *gbm;
	struct gbm_surface_v0 v0;
};

struct gbm_backend_v0 {
	uint32_t backend_version;
	const char *backend_name;
	struct gbm_device *(*create_device)(int fd, uint32_t gbm_backend_version);
};

struct gbm_backend {
	struct gbm_backend_v0 v0;
};

struct gbm_core_v0 {
	uint32_t core_version;
	/* GBM_BO_FORMAT_XRGB8888/ARGB8888 (0, 1) to their fourccs. */
	uint32_t (*format_canonicalize)(uint32_t gbm_format);
};

struct gbm_core {
	struct gbm_core_v0 v0;
};

/* The one symbol the loader looks up; its name and prototype never change. */
#define UDA_GBM_GET_BACKEND_PROC gbmint_get_backend

#endif
