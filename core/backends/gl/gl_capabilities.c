/*
 * What a GL device can import for an assertion, best first:
 *
 *  1. optimal tiling in the driver-private layout, over OPAQUE_FD
 *     (GL_EXT_memory_object_fd; same driver UUID only), for formats the
 *     context makes texture storage of;
 *  2. linear tiling over OPAQUE_FD (GL_LINEAR_TILING_EXT), where the
 *     driver lists it in GL_TILING_TYPES_EXT, at the pitch the driver
 *     would choose, which only a device of the same driver knows: the set
 *     says nothing of pitch and the intersection with that device supplies
 *     it;
 *  3. every modifier EGL_EXT_image_dma_buf_import_modifiers lists for the
 *     format, over DMA_BUF (linear only without the modifiers extension).
 *
 * Every set also states both CPU access capabilities: GL imports memory
 * whatever the CPU can do with it, and saying so keeps the allocator's
 * CPU access through the intersection.
 */
#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>

#include "gl_backend.h"

#define MAX_MODIFIERS 64

static uda_result check_usage(uda_context *ctx, const uda_usage *usage)
{
	for (uint32_t i = 0; i < usage->atom_count; i++) {
		const uda_usage_atom *atom = &usage->atoms[i];
		bool known = atom->vendor == UDA_VENDOR_NONE &&
		             (atom->name == UDA_USAGE_SAMPLED || atom->name == UDA_USAGE_RENDER_TARGET ||
		              atom->name == UDA_USAGE_STORAGE || atom->name == UDA_USAGE_TRANSFER_SRC ||
		              atom->name == UDA_USAGE_TRANSFER_DST);
		if (!known)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "gl: usage %04x:%u has no GL texture use (GL cannot map imported memory)",
			                             atom->vendor, atom->name);
	}
	return UDA_SUCCESS;
}

static uda_result append(uda_context *ctx, const struct gl_device *device, const uda_capability *layout,
                         uda_handle_type handle, uda_capability_set_list *out)
{
	uda_capability_set_builder *b;
	uda_result result = uda_capability_set_builder_create(ctx, &b);
	if (result != UDA_SUCCESS)
		return result;
	result = uda_capability_set_builder_add_capability(b, layout);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_HANDLE, handle, UDA_CAPABILITY_FLAG_REQUIRED);
	/* So that a buffer GL shares can still be mapped by its allocator. */
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE, 0);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_COHERENT, 0);
	if (result == UDA_SUCCESS && device->max_texture_size > 0)
		result = uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_MAX_WIDTH,
		                                                   (uint64_t)device->max_texture_size);
	if (result == UDA_SUCCESS && device->max_texture_size > 0)
		result = uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_MAX_HEIGHT,
		                                                   (uint64_t)device->max_texture_size);
	/* Opaque and linear memory of these formats has one plane; a
	 * modifier may add auxiliary planes, which EGL imports (up to 4). */
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_MAX_PLANES,
		                                                   handle == UDA_HANDLE_TYPE_DMA_BUF ? UDA_MAX_PLANES : 1);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_list_append_set(out, b);
	uda_capability_set_builder_destroy(b);
	return result;
}

static uda_result append_modifier(uda_context *ctx, const struct gl_device *device, uint64_t modifier,
                                  uda_capability_set_list *out)
{
	uint8_t payload[8];
	for (int i = 0; i < 8; i++)
		payload[i] = (uint8_t)(modifier >> (8 * i));
	const uda_capability layout = {.name = UDA_CAPABILITY_LAYOUT, .length = 8, .payload = payload};
	return append(ctx, device, &layout, UDA_HANDLE_TYPE_DMA_BUF, out);
}

static uda_result append_dma_buf_sets(uda_context *ctx, struct gl_device *device, uint32_t fourcc,
                                      uda_capability_set_list *out)
{
	if (!device->has_dma_buf_modifiers)
		return append_modifier(ctx, device, DRM_FORMAT_MOD_LINEAR, out);
	EGLuint64KHR modifiers[MAX_MODIFIERS];
	/* Mesa 25.0's llvmpipe lists LINEAR and leaves external_only as it
	 * found it: unfilled means an ordinary 2D-texture import, and never
	 * stack garbage (which made ARGB8888's sets differ run to run). */
	EGLBoolean external_only[MAX_MODIFIERS] = {EGL_FALSE};
	EGLint count = 0;
	if (!device->gl.QueryDmaBufModifiersEXT(device->display, (EGLint)fourcc, MAX_MODIFIERS, modifiers, external_only,
	                                        &count))
		return UDA_SUCCESS;
	uda_result result = UDA_SUCCESS;
	for (EGLint i = 0; i < count && result == UDA_SUCCESS; i++) {
		/* External-only images cannot back a GL_TEXTURE_2D. */
		if (!external_only[i])
			result = append_modifier(ctx, device, modifiers[i], out);
	}
	return result;
}

#ifndef GL_BGRA8_EXT
#define GL_BGRA8_EXT 0x93A1
#endif
#ifndef GL_BGRA_EXT
#define GL_BGRA_EXT 0x80E1
#endif

/* Whether a GL_BGRA8_EXT texture lies in memory blue first, as the
 * ARGB8888 memory it would be made of does. GLES lets a driver keep
 * GL_BGRA8_EXT in whatever order it likes, and Mesa 25.0's llvmpipe keeps
 * it red first: an imported ARGB8888 buffer then shows red and blue
 * swapped (VulkanGl.BgraMemoryIsOfferedToGlOnlyWhereGlKeepsItsOrder).
 * The order a framebuffer of the texture reads back in without
 * conversion is the driver's own. */
static bool stores_blue_first(GLuint texture)
{
	GLint bound = 0;
	glGetIntegerv(GL_FRAMEBUFFER_BINDING, &bound);
	GLuint framebuffer = 0;
	glGenFramebuffers(1, &framebuffer);
	glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
	glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, texture, 0);
	GLint read_format = 0;
	if (glCheckFramebufferStatus(GL_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE)
		glGetIntegerv(GL_IMPLEMENTATION_COLOR_READ_FORMAT, &read_format);
	glBindFramebuffer(GL_FRAMEBUFFER, (GLuint)bound);
	glDeleteFramebuffers(1, &framebuffer);
	return read_format == GL_BGRA_EXT;
}

/* Whether the context makes immutable texture storage of the format, the
 * same check glTexStorageMem2DEXT applies to what it imports, in the
 * memory's channel order: Mesa 22.3's GLES refuses GL_BGRA8_EXT there
 * (GL_INVALID_ENUM) and Mesa 25.0 stores it red first, so neither can
 * make ARGB8888 memory a texture, and no set may promise it. Probed on a
 * 1x1 texture, deleted again. */
static bool ask_storage(GLenum internal_format)
{
	GLint bound = 0;
	glGetIntegerv(GL_TEXTURE_BINDING_2D, &bound);
	GLuint texture = 0;
	glGenTextures(1, &texture);
	glBindTexture(GL_TEXTURE_2D, texture);
	glTexStorage2D(GL_TEXTURE_2D, 1, internal_format, 1, 1);
	bool storage = glGetError() == GL_NO_ERROR;
	if (storage && internal_format == GL_BGRA8_EXT)
		storage = stores_blue_first(texture);
	glBindTexture(GL_TEXTURE_2D, (GLuint)bound);
	glDeleteTextures(1, &texture);
	return storage;
}

/* Whether the driver takes GL_LINEAR_TILING_EXT for textures of this
 * format in imported memory. NVIDIA's GL (580.159) refuses
 * glTexStorageMem2DEXT of linear RGBA8 that Vulkan exported, so the set is
 * offered only where GL_TILING_TYPES_EXT lists it. A driver that cannot
 * answer the query in a GLES context (Mesa allows GetInternalformativ on
 * GL_TEXTURE_2D only with ARB_internalformat_query2, which ES lacks) keeps
 * the set: llvmpipe imports linear memory. */
static bool ask_linear_tiling(GLenum internal_format)
{
	bool linear = true;
	GLint count = 0;
	glGetInternalformativ(GL_TEXTURE_2D, internal_format, GL_NUM_TILING_TYPES_EXT, 1, &count);
	if (glGetError() == GL_NO_ERROR) {
		GLint types[8] = {0};
		if (count > 8)
			count = 8;
		if (count > 0)
			glGetInternalformativ(GL_TEXTURE_2D, internal_format, GL_TILING_TYPES_EXT, count, types);
		linear = false;
		for (GLint i = 0; i < count; i++)
			linear = linear || types[i] == GL_LINEAR_TILING_EXT;
	}
	return linear;
}

/* The driver's answers never change: asked once per format, in the
 * device's context. The lock is not held while asking, since entering the
 * device's context takes it. False when the context could not be
 * entered (not an answer, not kept). */
bool gl_device_format_answer(struct gl_device *device, GLenum internal_format, struct gl_format_answer *out)
{
	const uint32_t capacity = sizeof(device->format_answers) / sizeof(device->format_answers[0]);
	pthread_mutex_lock(&device->lock);
	for (uint32_t i = 0; i < device->format_answer_count; i++) {
		if (device->format_answers[i].internal_format == internal_format) {
			*out = device->format_answers[i];
			pthread_mutex_unlock(&device->lock);
			return true;
		}
	}
	pthread_mutex_unlock(&device->lock);

	struct gl_binding saved;
	if (!gl_device_enter(device, device->context, &saved))
		return false;
	while (glGetError() != GL_NO_ERROR)
		;
	struct gl_format_answer answer = {.internal_format = internal_format};
	answer.storage = ask_storage(internal_format);
	answer.linear = answer.storage && ask_linear_tiling(internal_format);
	while (glGetError() != GL_NO_ERROR)
		;
	gl_device_leave(device, &saved);

	pthread_mutex_lock(&device->lock);
	if (device->format_answer_count < capacity)
		device->format_answers[device->format_answer_count++] = answer;
	pthread_mutex_unlock(&device->lock);
	*out = answer;
	return true;
}

uda_result gl_get_capability_sets(void *device_data, uda_context *ctx, const uda_assertion *assertion,
                                  const uda_usage *usage, uda_capability_set_list *out)
{
	struct gl_device *device = device_data;
	uda_result result = check_usage(ctx, usage);
	if (result != UDA_SUCCESS)
		return result;
	uda_format_info format;
	if (uda_format_get_info(assertion->format, &format) != UDA_SUCCESS || !format.gl_internal_format ||
	    format.plane_count != 1)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "gl: no sized GL format for fourcc 0x%08x",
		                             assertion->format);
	if (device->max_texture_size > 0 &&
	    (assertion->width > (uint32_t)device->max_texture_size ||
	     assertion->height > (uint32_t)device->max_texture_size))
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "gl: %ux%u exceeds GL_MAX_TEXTURE_SIZE %d",
		                             assertion->width, assertion->height, device->max_texture_size);

	struct gl_format_answer answer;
	if (device->has_memory_object_fd && gl_device_format_answer(device, format.gl_internal_format, &answer) &&
	    answer.storage) {
		uint8_t payload[UDA_OPAQUE_LAYOUT_PAYLOAD_SIZE] = {0};
		memcpy(payload, device->driver_uuid, UDA_UUID_SIZE);
		payload[UDA_UUID_SIZE] = UDA_OPAQUE_LAYOUT_OPTIMAL_TILING;
		const uda_capability opaque = {
			.name = UDA_CAPABILITY_LAYOUT_OPAQUE, .length = sizeof(payload), .payload = payload};
		result = append(ctx, device, &opaque, UDA_HANDLE_TYPE_OPAQUE_FD, out);
		uint8_t linear_payload[8] = {0};
		const uda_capability linear = {.name = UDA_CAPABILITY_LAYOUT, .length = 8, .payload = linear_payload};
		if (result == UDA_SUCCESS && answer.linear)
			result = append(ctx, device, &linear, UDA_HANDLE_TYPE_OPAQUE_FD, out);
	}
	if (result == UDA_SUCCESS && device->has_dma_buf_import)
		result = append_dma_buf_sets(ctx, device, assertion->format, out);
	return result;
}
