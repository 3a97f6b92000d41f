/* libFuzzer target: a compositor's check of clients' DMA-BUFs
 * (uda_wayland_feedback_import_dmabuf), fed any sizes, formats, modifiers,
 * plane counts, offsets, strides and files (a short one, another buffer,
 * none). Whatever it answers must be one of its three answers, and a
 * buffer it takes must be inside its file. */
#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <uda/uda_wayland_server.h>

#include "test_device.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uda_context *ctx;
static uda_wayland_feedback *feedback;

static uda_capability_set_list *gpu_sets(void)
{
	uda_capability_set_list *list = NULL;
	uda_capability_set_builder *b = NULL;
	uda_capability_set_list_create(ctx, &list);
	uda_capability_set_builder_create(ctx, &b);
	const uint64_t layouts[] = {DRM_FORMAT_MOD_LINEAR, I915_FORMAT_MOD_Y_TILED};
	for (size_t i = 0; i < 2; i++) {
		uda_capability_set_builder_reset(b);
		uda_capability_set_builder_add_layout(b, layouts[i], 0);
		uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF, 0);
		uda_capability_set_list_append_set(list, b);
	}
	uda_capability_set_builder_destroy(b);
	return list;
}

static void set_up(void)
{
	const uda_context_create_info info = {UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO, NULL,
	                                      UDA_CONTEXT_CREATE_NO_BACKENDS, 0, NULL, NULL};
	uda_device *gpu = NULL;
	const struct test_device_node node = {UDA_DEVICE_API_VULKAN, 226, 128, true};
	const uint32_t formats[] = {DRM_FORMAT_XRGB8888, DRM_FORMAT_NV12};
	if (uda_context_create(&info, &ctx) != UDA_SUCCESS ||
	    test_device_add_on_node(ctx, "gpu", 1, gpu_sets(), &node, &gpu) != UDA_SUCCESS)
		abort();
	const uda_wayland_feedback_create_info create = {UDA_STRUCTURE_TYPE_WAYLAND_FEEDBACK_CREATE_INFO,
	                                                 NULL, gpu, 2, formats, 0, 0, 0, NULL};
	if (uda_wayland_feedback_create(ctx, &create, &feedback) != UDA_SUCCESS)
		abort();
}

struct reader {
	const uint8_t *data;
	size_t size, at;
};

static uint32_t take(struct reader *r, int bytes)
{
	uint32_t value = 0;
	for (int i = 0; i < bytes; i++)
		value |= (uint32_t)(r->at < r->size ? r->data[r->at++] : 0) << (8 * i);
	return value;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!feedback)
		set_up();
	struct reader r = {data, size, 0};
	int files[2] = {memfd_create("client", MFD_CLOEXEC), memfd_create("other", MFD_CLOEXEC)};
	if (files[0] < 0 || files[1] < 0 || ftruncate(files[0], (off_t)take(&r, 2) * 64) != 0 ||
	    ftruncate(files[1], 4096) != 0)
		abort();
	static const uint32_t formats[] = {DRM_FORMAT_XRGB8888, DRM_FORMAT_NV12, DRM_FORMAT_ARGB8888, 0x12345678};
	static const uint64_t modifiers[] = {DRM_FORMAT_MOD_LINEAR, I915_FORMAT_MOD_Y_TILED, DRM_FORMAT_MOD_INVALID,
	                                     I915_FORMAT_MOD_X_TILED};
	uda_wayland_dmabuf_attributes a = {UDA_STRUCTURE_TYPE_WAYLAND_DMABUF_ATTRIBUTES, NULL, 0, 0, 0, 0, 0, {{0}}};
	a.width = (int16_t)take(&r, 2);
	a.height = (int16_t)take(&r, 2);
	a.format = formats[take(&r, 1) % 4];
	a.modifier = modifiers[take(&r, 1) % 4];
	a.plane_count = take(&r, 1) % (UDA_MAX_PLANES + 2);
	for (uint32_t p = 0; p < UDA_MAX_PLANES; p++) {
		uint32_t which = take(&r, 1) % 3;
		a.planes[p].fd = which == 2 ? -1 : files[which];
		a.planes[p].offset = take(&r, 2) * 16u;
		a.planes[p].stride = take(&r, 2);
	}
	/* plane_count may be one past what the struct holds: it must be
	 * refused before any plane is read. */
	uda_allocation *allocation = NULL;
	uint32_t error = 0;
	uda_result result = uda_wayland_feedback_import_dmabuf(feedback, &a, &allocation, &error);
	if (result == UDA_SUCCESS) {
		if (!allocation || error)
			abort();
		uda_allocation_destroy(allocation);
	} else if (allocation) {
		abort();
	} else if (result == UDA_ERROR_INVALID_DATA && (error < UDA_WAYLAND_DMABUF_ERROR_INCOMPLETE ||
	                                                 error > UDA_WAYLAND_DMABUF_ERROR_OUT_OF_BOUNDS)) {
		abort();
	}
	close(files[0]);
	close(files[1]);
	return 0;
}
