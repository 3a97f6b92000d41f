/*
 * The entry point libgbm looks up, and the GBM device: a uda context with
 * the devices behind the caller's fd (device_select.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gbm_private.h"

static const struct gbm_core *loader_core;

static void log_to_stderr(uda_log_level level, const char *message, void *user_data)
{
	static const char *const names[] = {"", "error", "warning", "info", "debug"};
	fprintf(stderr, "uda_gbm: %s: %s\n", names[level <= UDA_LOG_DEBUG ? level : 0], message);
}

int uda_gbm_errno(uda_result result)
{
	switch (result) {
	case UDA_SUCCESS:
		return 0;
	case UDA_ERROR_OUT_OF_MEMORY:
		return ENOMEM;
	case UDA_ERROR_OVERFLOW:
		return EOVERFLOW;
	case UDA_ERROR_TIMEOUT:
		return EBUSY;
	case UDA_ERROR_BACKEND:
		return EIO;
	default:
		/* Bad values, unsupported formats and usages alike: what
		 * Mesa's own backend answers for them. */
		return EINVAL;
	}
}

void uda_gbm_log(struct uda_gbm_device *device, uda_log_level level, const char *format, ...)
{
	char message[512];
	va_list args;
	va_start(args, format);
	vsnprintf(message, sizeof(message), format, args);
	va_end(args);
	uda_context_log(device->ctx, level, "%s", message);
}

static void device_destroy(struct gbm_device *gbm)
{
	struct uda_gbm_device *device = uda_gbm_device_from(gbm);
	uda_gbm_exports_finish(device);
	uda_gbm_gem_handles_finish(device);
	pthread_mutex_destroy(&device->lock);
	uda_context_destroy(device->ctx);
	free(device);
}

bool uda_gbm_device_is_ours(const struct gbm_device *gbm)
{
	return gbm && gbm->v0.destroy == device_destroy;
}

static const struct gbm_device_v0 device_functions = {
	.name = UDA_GBM_BACKEND_NAME,
	.destroy = device_destroy,
	.is_format_supported = uda_gbm_is_format_supported,
	.get_format_modifier_plane_count = uda_gbm_get_format_modifier_plane_count,
	.bo_create = uda_gbm_bo_create,
	.bo_import = uda_gbm_bo_import,
	.bo_map = uda_gbm_bo_map,
	.bo_unmap = uda_gbm_bo_unmap,
	.bo_write = uda_gbm_bo_write,
	.bo_get_fd = uda_gbm_bo_get_fd,
	.bo_get_planes = uda_gbm_bo_get_planes,
	.bo_get_handle = uda_gbm_bo_get_handle,
	.bo_get_plane_fd = uda_gbm_bo_get_plane_fd,
	.bo_get_stride = uda_gbm_bo_get_stride,
	.bo_get_offset = uda_gbm_bo_get_offset,
	.bo_get_modifier = uda_gbm_bo_get_modifier,
	.bo_destroy = uda_gbm_bo_destroy,
	.surface_create = uda_gbm_surface_create,
	.surface_lock_front_buffer = uda_gbm_surface_lock_front_buffer,
	.surface_release_buffer = uda_gbm_surface_release_buffer,
	.surface_has_free_buffers = uda_gbm_surface_has_free_buffers,
	.surface_destroy = uda_gbm_surface_destroy,
};

static struct gbm_device *create_device(int fd, uint32_t version)
{
	/* The loader clamps to our version: ours, or an older loader's 0
	 * (the same layout; its modifier lists come with usage 0). Anything
	 * else is a loader that does not follow the contract. */
	if (version > UDA_GBM_BACKEND_ABI_VERSION) {
		fprintf(stderr, "uda_gbm: libgbm asks for backend ABI %u, this backend speaks %u\n", version,
		        UDA_GBM_BACKEND_ABI_VERSION);
		errno = ENOSYS;
		return NULL;
	}
	struct uda_gbm_device *device = calloc(1, sizeof(*device));
	if (!device) {
		errno = ENOMEM;
		return NULL;
	}
	const char *debug = secure_getenv("UDA_GBM_DEBUG");
	const uda_context_create_info info = {
		.type = UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO,
		.log_level = debug && debug[0] == '1' ? UDA_LOG_DEBUG : UDA_LOG_WARNING,
		.log_callback = log_to_stderr,
	};
	if (pthread_mutex_init(&device->lock, NULL) != 0) {
		free(device);
		errno = ENOMEM;
		return NULL;
	}
	uda_result result = uda_context_create(&info, &device->ctx);
	if (result != UDA_SUCCESS) {
		pthread_mutex_destroy(&device->lock);
		free(device);
		errno = uda_gbm_errno(result);
		return NULL;
	}
	device->core = loader_core;
	device->base.dummy = NULL;
	device->base.v0 = device_functions;
	device->base.v0.backend_version = version;
	device->base.v0.fd = fd;
	int error = uda_gbm_device_select(device, fd);
	if (error) {
		device_destroy(&device->base);
		errno = error;
		return NULL;
	}
	return &device->base;
}

static const struct gbm_backend backend = {
	.v0 =
	    {
		.backend_version = UDA_GBM_BACKEND_ABI_VERSION,
		.backend_name = UDA_GBM_BACKEND_NAME,
		.create_device = create_device,
	    },
};

__attribute__((visibility("default"))) const struct gbm_backend *UDA_GBM_GET_BACKEND_PROC(const struct gbm_core *core)
{
	/* The loader hands every backend the same core, which outlives
	 * them: keeping it in a static is keeping the loader's own. */
	loader_core = core;
	return &backend;
}

uda_result uda_gbm_device_get_context(struct gbm_device *gbm, uda_context **out_context)
{
	if (!uda_gbm_device_is_ours(gbm) || !out_context)
		return UDA_ERROR_INVALID_ARGUMENT;
	*out_context = uda_gbm_device_from(gbm)->ctx;
	return UDA_SUCCESS;
}

uda_result uda_gbm_device_get_render_device(struct gbm_device *gbm, uda_device_api api, uda_device **out_device)
{
	if (!uda_gbm_device_is_ours(gbm) || !out_device)
		return UDA_ERROR_INVALID_ARGUMENT;
	struct uda_gbm_device *device = uda_gbm_device_from(gbm);
	for (uint32_t i = 0; i < device->render_count; i++) {
		uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
		if (uda_device_get_info(device->render[i], &info) == UDA_SUCCESS && info.api == api) {
			*out_device = device->render[i];
			return UDA_SUCCESS;
		}
	}
	return UDA_ERROR_NOT_FOUND;
}
