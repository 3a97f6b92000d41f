/*
 * gbm_bo_import: buffers that come as fds (GBM_BO_IMPORT_FD and
 * GBM_BO_IMPORT_FD_MODIFIER).
 *
 * An fd this device exported (exports.c) comes back with the metadata it
 * left with. Any other fd must say what it is: a DMA-BUF (its file is
 * "dmabuf:") or a sealed memfd; its size is the file's. GBM_BO_IMPORT_FD
 * carries no modifier, and uda has no implicit layouts: such a buffer is
 * taken as pitch linear. wl_buffer and EGLImage imports need Mesa's EGL
 * and are refused (ENOSYS).
 */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gbm_private.h"

struct import_request {
	uint32_t width, height, format;
	uint32_t fd_count;
	const int *fds;
	uint32_t plane_count;
	uint64_t offsets[UDA_MAX_PLANES];
	uint64_t pitches[UDA_MAX_PLANES];
	uint64_t modifier;
	bool modifier_given; /* FD_MODIFIER with a modifier other than INVALID */
};

static uda_handle_type fd_handle_type(int fd, uint64_t *out_size)
{
	char path[64], target[64] = {0};
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ssize_t length = readlink(path, target, sizeof(target) - 1);
	if (length > 0 && (strncmp(target, "/dmabuf:", 8) == 0 || strncmp(target, "anon_inode:dmabuf", 17) == 0)) {
		off_t end = lseek(fd, 0, SEEK_END);
		lseek(fd, 0, SEEK_SET);
		*out_size = end > 0 ? (uint64_t)end : 0;
		return UDA_HANDLE_TYPE_DMA_BUF;
	}
	struct stat st;
	if (fcntl(fd, F_GET_SEALS) >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
		*out_size = (uint64_t)st.st_size;
		return UDA_HANDLE_TYPE_MEMFD;
	}
	return UDA_HANDLE_TYPE_NONE;
}

/* The one-set list an fd from elsewhere satisfies: its layout and handle. */
static uda_result describe_foreign(uda_context *ctx, uint64_t modifier, uda_handle_type handle,
                                   uda_capability_set_list **out)
{
	uda_capability_set_builder *builder = NULL;
	uda_result result = uda_capability_set_builder_create(ctx, &builder);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_layout(builder, modifier, UDA_CAPABILITY_FLAG_REQUIRED);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_HANDLE, handle,
		                                            UDA_CAPABILITY_FLAG_REQUIRED);
	/* A memfd is host memory: mappable and coherent by nature. */
	if (result == UDA_SUCCESS && handle == UDA_HANDLE_TYPE_MEMFD)
		result = uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE, 0);
	if (result == UDA_SUCCESS && handle == UDA_HANDLE_TYPE_MEMFD)
		result = uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_COHERENT, 0);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_list_create(ctx, out);
	if (result == UDA_SUCCESS) {
		result = uda_capability_set_list_append_set(*out, builder);
		if (result != UDA_SUCCESS) {
			uda_capability_set_list_destroy(*out);
			*out = NULL;
		}
	}
	uda_capability_set_builder_destroy(builder);
	return result;
}

/* The devices an import is tried on, in turn: the GPU's (so the BO can
 * be rendered with), then system memory. */
static uint32_t import_candidates(const struct uda_gbm_device *device,
                                  uda_device *out[UDA_GBM_MAX_RENDER_DEVICES + 1])
{
	uint32_t count = 0;
	for (uint32_t i = 0; i < device->render_count; i++)
		out[count++] = device->render[i];
	if (device->cpu)
		out[count++] = device->cpu;
	return count;
}

/* A fourcc with its alpha channel named unused: DRM names the pair by
 * an A or an X in its first two letters (AR24/XR24, RA24/RX24, AB30/XB30). */
static uint32_t without_alpha(uint32_t fourcc)
{
	char name[4];
	memcpy(name, &fourcc, sizeof(name));
	for (int i = 0; i < 2; i++) {
		if (name[i] == 'A')
			name[i] = 'X';
	}
	memcpy(&fourcc, name, sizeof(fourcc));
	return fourcc;
}

/* Whether two formats are the same pixels in memory: equal, or one the
 * other with its alpha unused (ARGB8888 imported as XRGB8888, to be shown
 * opaque). Channels in another order (XBGR for XRGB, NV21 for NV12) or
 * of other depths are other pixels. */
static bool same_memory_layout(uint32_t a, uint32_t b)
{
	uda_format_info x, y;
	if (a == b)
		return true;
	if (without_alpha(a) != without_alpha(b) || uda_format_get_info(a, &x) != UDA_SUCCESS ||
	    uda_format_get_info(b, &y) != UDA_SUCCESS || x.plane_count != y.plane_count)
		return false;
	for (uint32_t p = 0; p < x.plane_count; p++) {
		const uda_format_plane_info *u = &x.planes[p], *v = &y.planes[p];
		if (u->bytes_per_block != v->bytes_per_block || u->block_width != v->block_width ||
		    u->horizontal_subsampling != v->horizontal_subsampling ||
		    u->vertical_subsampling != v->vertical_subsampling)
			return false;
	}
	return true;
}

/* Whether the caller describes an export of this device as it was made;
 * if not, `why` says how it differs. The export's own metadata is what
 * the memory holds, so a caller that describes it otherwise (another
 * format's planes, offsets, pitches or modifier) has the wrong buffer,
 * not a view of it: uda makes no views. */
static bool describes_export(const struct import_request *request, uda_allocation *allocation, char *why,
                             size_t why_size)
{
	uda_allocation_metadata m = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	const uda_capability_set_list *set = NULL;
	uint64_t modifier = DRM_FORMAT_MOD_INVALID;
	if (uda_allocation_get_metadata(allocation, &m) != UDA_SUCCESS ||
	    uda_allocation_get_capability_set(allocation, &set) != UDA_SUCCESS ||
	    uda_capability_set_list_get_modifier(set, 0, &modifier) != UDA_SUCCESS) {
		snprintf(why, why_size, "its metadata cannot be read");
		return false;
	}
	if (m.width != request->width || m.height != request->height || !same_memory_layout(m.format, request->format) ||
	    m.plane_count != request->plane_count) {
		snprintf(why, why_size, "it was exported as %ux%u %.4s in %u planes", m.width, m.height,
		         (const char *)&m.format, m.plane_count);
		return false;
	}
	for (uint32_t p = 0; p < m.plane_count; p++) {
		if (m.planes[p].offset != request->offsets[p] || m.planes[p].pitch != request->pitches[p]) {
			snprintf(why, why_size, "it was exported with plane %u at offset %llu, pitch %llu", p,
			         (unsigned long long)m.planes[p].offset, (unsigned long long)m.planes[p].pitch);
			return false;
		}
	}
	if (request->modifier_given && modifier != request->modifier) {
		snprintf(why, why_size, "it was exported with modifier 0x%016llx", (unsigned long long)modifier);
		return false;
	}
	return true;
}

/* Tries the import on each candidate in turn: of a known export through
 * its serialized metadata (`known`), else through `info`. On failure
 * the first candidate's result and message are the ones kept: the GPU's
 * says why it cannot render with the memory, where system memory's
 * refusal, the last, would say less. */
static uda_result import_on_candidates(struct uda_gbm_device *device, int fd, const void *known, size_t known_size,
                                       uda_import_info *info, uda_allocation **out, char *why, size_t why_size)
{
	uda_device *candidates[UDA_GBM_MAX_RENDER_DEVICES + 1];
	const uint32_t count = import_candidates(device, candidates);
	uda_result first = UDA_ERROR_UNSUPPORTED;
	snprintf(why, why_size, "no device to import into");
	for (uint32_t i = 0; i < count; i++) {
		uda_result result;
		if (known) {
			result = uda_import_serialized(candidates[i], fd, known, known_size, out);
		} else {
			info->device = candidates[i];
			result = uda_import(info, out);
		}
		if (result == UDA_SUCCESS)
			return UDA_SUCCESS;
		if (i == 0) {
			first = result;
			snprintf(why, why_size, "%s", uda_context_get_error(device->ctx));
		}
	}
	return first;
}

static struct gbm_bo *import_fds(struct uda_gbm_device *device, const struct import_request *request)
{
	const int fd = request->fds[0];
	struct stat first;
	if (fd < 0 || fstat(fd, &first) != 0) {
		errno = EBADF;
		return NULL;
	}
	/* uda memory is one object: planes in several fds must all be views
	 * of the same file. */
	for (uint32_t i = 1; i < request->fd_count; i++) {
		struct stat st;
		if (request->fds[i] < 0 || fstat(request->fds[i], &st) != 0) {
			errno = EBADF;
			return NULL;
		}
		if (st.st_dev != first.st_dev || st.st_ino != first.st_ino) {
			uda_gbm_log(device, UDA_LOG_INFO, "gbm_bo_import: planes in different memory objects");
			errno = EINVAL;
			return NULL;
		}
	}

	uda_allocation *allocation = NULL;
	uda_result result;
	void *known = NULL;
	size_t known_size = 0;
	char why[256];
	if (uda_gbm_exports_find(device, fd, &known, &known_size)) {
		result = import_on_candidates(device, fd, known, known_size, NULL, &allocation, why, sizeof(why));
		free(known);
		if (result == UDA_SUCCESS && !describes_export(request, allocation, why, sizeof(why))) {
			uda_allocation_destroy(allocation);
			uda_gbm_log(device, UDA_LOG_INFO, "gbm_bo_import: fd %d is not the buffer described: %s", fd, why);
			errno = EINVAL;
			return NULL;
		}
	} else {
		uint64_t size = 0;
		uda_handle_type handle = fd_handle_type(fd, &size);
		if (handle == UDA_HANDLE_TYPE_NONE) {
			uda_gbm_log(device, UDA_LOG_INFO,
			            "gbm_bo_import: fd %d is neither a DMA-BUF, nor a sealed memfd, nor one this "
			            "device exported",
			            fd);
			errno = EINVAL;
			return NULL;
		}
		uda_allocation_metadata metadata = {
			.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA,
			.width = request->width,
			.height = request->height,
			.format = request->format,
			.handle_type = handle,
			.size = size,
			.plane_count = request->plane_count,
		};
		for (uint32_t i = 0; i < request->plane_count; i++)
			metadata.planes[i] = (uda_plane_layout){request->offsets[i], request->pitches[i]};
		uda_capability_set_list *set = NULL;
		result = describe_foreign(device->ctx, request->modifier, handle, &set);
		if (result == UDA_SUCCESS) {
			uda_import_info info = {
				.type = UDA_STRUCTURE_TYPE_IMPORT_INFO,
				.fd = fd,
				.metadata = &metadata,
				.set_list = set,
			};
			result = import_on_candidates(device, fd, NULL, 0, &info, &allocation, why, sizeof(why));
		} else {
			snprintf(why, sizeof(why), "%s", uda_context_get_error(device->ctx));
		}
		uda_capability_set_list_destroy(set);
	}
	if (result != UDA_SUCCESS) {
		uda_gbm_log(device, UDA_LOG_INFO, "gbm_bo_import: %s", why);
		errno = uda_gbm_errno(result);
		return NULL;
	}
	struct uda_gbm_bo *bo = uda_gbm_bo_wrap(device, allocation, request->format, NULL);
	return bo ? &bo->base : NULL;
}

struct gbm_bo *uda_gbm_bo_import(struct gbm_device *gbm, uint32_t type, void *buffer, uint32_t usage)
{
	struct uda_gbm_device *device = uda_gbm_device_from(gbm);
	if (!buffer) {
		errno = EINVAL;
		return NULL;
	}
	struct import_request request = {.modifier = DRM_FORMAT_MOD_LINEAR};
	uda_format_info format;
	switch (type) {
	case GBM_BO_IMPORT_FD: {
		const struct gbm_import_fd_data *data = buffer;
		request.width = data->width;
		request.height = data->height;
		request.format = device->core ? device->core->v0.format_canonicalize(data->format) : data->format;
		request.fd_count = 1;
		request.fds = &data->fd;
		request.plane_count = 1;
		request.pitches[0] = data->stride;
		/* One fd and one stride say nothing of a second plane. */
		if (uda_format_get_info(request.format, &format) == UDA_SUCCESS && format.plane_count != 1) {
			errno = EINVAL;
			return NULL;
		}
		break;
	}
	case GBM_BO_IMPORT_FD_MODIFIER: {
		const struct gbm_import_fd_modifier_data *data = buffer;
		if (data->num_fds == 0 || data->num_fds > GBM_MAX_PLANES) {
			errno = EINVAL;
			return NULL;
		}
		request.width = data->width;
		request.height = data->height;
		request.format = device->core ? device->core->v0.format_canonicalize(data->format) : data->format;
		request.fd_count = data->num_fds;
		request.fds = data->fds;
		request.plane_count = data->num_fds;
		for (uint32_t i = 0; i < data->num_fds; i++) {
			if (data->strides[i] <= 0 || data->offsets[i] < 0) {
				errno = EINVAL;
				return NULL;
			}
			request.pitches[i] = (uint64_t)data->strides[i];
			request.offsets[i] = (uint64_t)data->offsets[i];
		}
		if (data->modifier != DRM_FORMAT_MOD_INVALID) {
			request.modifier = data->modifier;
			request.modifier_given = true;
		}
		/* As many fds as the layout has planes: a linear one the
		 * format's, another at least those (a modifier may add
		 * auxiliary planes). A stray plane would reach KMS. */
		if (uda_format_get_info(request.format, &format) == UDA_SUCCESS &&
		    (request.modifier == DRM_FORMAT_MOD_LINEAR ? data->num_fds != format.plane_count
		                                               : data->num_fds < format.plane_count)) {
			errno = EINVAL;
			return NULL;
		}
		break;
	}
	case GBM_BO_IMPORT_WL_BUFFER:
	case GBM_BO_IMPORT_EGL_IMAGE:
		uda_gbm_log(device, UDA_LOG_INFO, "gbm_bo_import: wl_buffer and EGLImage imports need Mesa's EGL");
		errno = ENOSYS;
		return NULL;
	default:
		errno = EINVAL;
		return NULL;
	}
	if (request.width == 0 || request.height == 0 || uda_format_get_info(request.format, &format) != UDA_SUCCESS) {
		errno = EINVAL;
		return NULL;
	}
	return import_fds(device, &request);
}
