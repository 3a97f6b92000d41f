/* uda_gbm.so's objects: each embeds the libgbm struct it stands for as its
 * first member, so the loader's pointers are ours. */
#ifndef UDA_GBM_PRIVATE_H
#define UDA_GBM_PRIVATE_H

#include <pthread.h>
#include <stdbool.h>

#include <uda/uda.h>
#include <uda/uda_backend.h>
#include <uda/uda_gbm.h>
#include <uda/uda_surface.h>

#include "gbm_backend_abi.h"

/* Vulkan and GL devices of one GPU, and then some. */
#define UDA_GBM_MAX_RENDER_DEVICES 4u

struct uda_gbm_export;
struct uda_gbm_gem_handle;

struct uda_gbm_device {
	struct gbm_device base;
	const struct gbm_core *core;
	uda_context *ctx;
	/* The GPU that renders, every API it is reached through; render[0]
	 * is the one that allocates (Vulkan where there is one). */
	uda_device *render[UDA_GBM_MAX_RENDER_DEVICES];
	uint32_t render_count;
	/* The DRM device behind fd, for SCANOUT and CURSOR; NULL if fd is no
	 * DRM node or no backend drives it. */
	uda_device *display;
	/* System memory, the importer of last resort for memfds. */
	uda_device *cpu;
	bool fd_is_drm;

	pthread_mutex_t lock; /* exports, gem_handles and BOs' map counts */
	struct uda_gbm_export *exports;
	struct uda_gbm_gem_handle *gem_handles;
	uint32_t gem_handle_count, gem_handle_capacity;
};

struct uda_gbm_surface;

struct uda_gbm_bo {
	struct gbm_bo base;
	struct uda_gbm_device *device;
	uda_allocation *allocation;
	uda_allocation_metadata metadata;
	/* DRM_FORMAT_MOD_INVALID for a driver-private layout. */
	uint64_t modifier;
	/* The handle type gbm_bo_get_fd exports: DMA_BUF where the set
	 * carries it, else the first one it carries. */
	uda_handle_type handle_type;
	bool has_gem_handle;
	uint32_t gem_handle;
	/* gbm_bo_map nests; the allocation is mapped once. */
	uint32_t map_count;
	uint8_t *map_base;
	uint32_t map_access;
	/* Surface buffers belong to their surface, not to gbm_bo_destroy. */
	struct uda_gbm_surface *surface;
	uint64_t buffer_id;
	bool locked;
};

static inline struct uda_gbm_device *uda_gbm_device_from(struct gbm_device *gbm)
{
	return (struct uda_gbm_device *)gbm;
}

static inline struct uda_gbm_bo *uda_gbm_bo_from(struct gbm_bo *bo)
{
	return (struct uda_gbm_bo *)bo;
}

/* Whether a gbm_device is one of ours (not another backend's). */
bool uda_gbm_device_is_ours(const struct gbm_device *gbm);

/* errno for a uda_result, for the GBM caller. */
int uda_gbm_errno(uda_result result);
/* Logs through the context (the reason behind a NULL and errno). */
void uda_gbm_log(struct uda_gbm_device *device, uda_log_level level, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* device_select.c: which uda devices make up a GBM device. */
int uda_gbm_device_select(struct uda_gbm_device *device, int fd);

/* bo_request.c: GBM's flags and modifier lists as a negotiation. */
#define UDA_GBM_KNOWN_FLAGS                                                                                 \
	(GBM_BO_USE_SCANOUT | GBM_BO_USE_CURSOR | GBM_BO_USE_RENDERING | GBM_BO_USE_WRITE | GBM_BO_USE_LINEAR | \
	 GBM_BO_USE_PROTECTED | GBM_BO_USE_FRONT_RENDERING)
#define UDA_GBM_MAX_ATOMS 6u

/* What a request was made of, to make it again. */
struct uda_gbm_request_args {
	uint32_t width, height, format, flags;
	const uint64_t *modifiers;
	uint32_t modifier_count;
};

struct uda_gbm_request {
	struct uda_gbm_request_args args;
	/* RENDER_TARGET asked for though the flags did not (bo_request.c). */
	bool rendering_implied;
	uda_assertion assertion;
	uda_device_usage devices[UDA_GBM_MAX_RENDER_DEVICES + 1];
	uda_usage usages[UDA_GBM_MAX_RENDER_DEVICES + 1];
	uda_usage_atom atoms[UDA_GBM_MAX_RENDER_DEVICES + 1][UDA_GBM_MAX_ATOMS];
	uint64_t modifiers[UDA_MAX_FILTER_MODIFIERS];
	uda_negotiation_layout_filter filter;
	uda_negotiation_info info;
};

/* Fills *request (which must not move afterwards: it points into itself).
 * `format` is canonical; modifiers may be NULL. Returns 0 or an errno,
 * with the reason logged. */
int uda_gbm_request_init(struct uda_gbm_device *device, uint32_t width, uint32_t height, uint32_t format,
                         uint32_t flags, const uint64_t *modifiers, uint32_t modifier_count,
                         struct uda_gbm_request *request);
/* Runs `attempt` (a negotiation, an allocation, a surface's creation) on
 * an initialized request; if rendering was only implied and the devices
 * cannot render the format, again on the request without it. The
 * modifiers given to init must still be valid. */
uda_result uda_gbm_request_run(struct uda_gbm_device *device, struct uda_gbm_request *request,
                               uda_result (*attempt)(struct uda_gbm_request *request, void *data), void *data);

/* bo.c */
/* Wraps an allocation as a BO; NULL with errno set on failure. Without a
 * surface the BO takes the allocation (destroyed on failure too); with
 * one, the allocation stays the surface's. */
struct uda_gbm_bo *uda_gbm_bo_wrap(struct uda_gbm_device *device, uda_allocation *allocation, uint32_t format,
                                   struct uda_gbm_surface *surface);
/* Frees a BO without the loader: the surface's buffers. Runs the user
 * data's destructor first, as gbm_bo_destroy would. */
void uda_gbm_bo_free(struct uda_gbm_bo *bo);
struct gbm_bo *uda_gbm_bo_create(struct gbm_device *gbm, uint32_t width, uint32_t height, uint32_t format,
                                 uint32_t flags, const uint64_t *modifiers, const unsigned int count);
void uda_gbm_bo_destroy(struct gbm_bo *bo);
int uda_gbm_bo_get_fd(struct gbm_bo *bo);
int uda_gbm_bo_get_plane_fd(struct gbm_bo *bo, int plane);
int uda_gbm_bo_get_planes(struct gbm_bo *bo);
union gbm_bo_handle uda_gbm_bo_get_handle(struct gbm_bo *bo, int plane);
uint32_t uda_gbm_bo_get_stride(struct gbm_bo *bo, int plane);
uint32_t uda_gbm_bo_get_offset(struct gbm_bo *bo, int plane);
uint64_t uda_gbm_bo_get_modifier(struct gbm_bo *bo);

/* formats.c */
int uda_gbm_is_format_supported(struct gbm_device *gbm, uint32_t format, uint32_t usage);
int uda_gbm_get_format_modifier_plane_count(struct gbm_device *gbm, uint32_t format, uint64_t modifier);

/* exports.c: the fds this device handed out, so that an OPAQUE_FD (which
 * says nothing about itself) can come back through gbm_bo_import. */
int uda_gbm_exports_add(struct uda_gbm_bo *bo, int fd);
void uda_gbm_exports_forget(struct uda_gbm_bo *bo);
/* Serialized metadata of a live export of the same file as fd, copied
 * into *out (malloc'ed) ; false if none. */
bool uda_gbm_exports_find(struct uda_gbm_device *device, int fd, void **out_metadata, size_t *out_size);
void uda_gbm_exports_finish(struct uda_gbm_device *device);

/* gem_handles.c: GEM handles on the device's DRM fd, counted, because
 * the kernel gives two imports of one DMA-BUF the same handle. */
int uda_gbm_gem_handle_get(struct uda_gbm_device *device, int dma_buf_fd, uint32_t *out_handle);
void uda_gbm_gem_handle_put(struct uda_gbm_device *device, uint32_t handle);
void uda_gbm_gem_handles_finish(struct uda_gbm_device *device);

/* bo_import.c */
struct gbm_bo *uda_gbm_bo_import(struct gbm_device *gbm, uint32_t type, void *buffer, uint32_t usage);

/* bo_map.c */
void *uda_gbm_bo_map(struct gbm_bo *bo, uint32_t x, uint32_t y, uint32_t width, uint32_t height, uint32_t flags,
                     uint32_t *stride, void **map_data);
void uda_gbm_bo_unmap(struct gbm_bo *bo, void *map_data);
int uda_gbm_bo_write(struct gbm_bo *bo, const void *buf, size_t count);

/* surface.c */
struct gbm_surface *uda_gbm_surface_create(struct gbm_device *gbm, uint32_t width, uint32_t height, uint32_t format,
                                           uint32_t flags, const uint64_t *modifiers, const unsigned count);
struct gbm_bo *uda_gbm_surface_lock_front_buffer(struct gbm_surface *surface);
void uda_gbm_surface_release_buffer(struct gbm_surface *surface, struct gbm_bo *bo);
int uda_gbm_surface_has_free_buffers(struct gbm_surface *surface);
void uda_gbm_surface_destroy(struct gbm_surface *surface);
bool uda_gbm_surface_is_ours(const struct gbm_surface *surface);

/* What a version-0 loader's modifier list with usage 0 means: as a
 * version-1 loader spells gbm_*_create_with_modifiers. */
static inline uint32_t uda_gbm_usage_of(uint32_t backend_version, uint32_t usage, unsigned modifier_count)
{
	return backend_version == 0 && modifier_count && !usage ? GBM_BO_USE_SCANOUT : usage;
}

#endif
