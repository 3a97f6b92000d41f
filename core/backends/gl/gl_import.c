/*
 * Imports into GL: an OPAQUE_FD becomes a GL_EXT_memory_object memory
 * object with a GL_TEXTURE_2D stored in it; a DMA_BUF becomes an EGLImage
 * and a texture with EGLImage storage. Either way the texture is what the
 * application samples from or renders to.
 */
#include <drm_fourcc.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gl_backend.h"
#include "mesa_memory_file.h"

struct gl_allocation {
	EGLContext context; /* where the GL names live */
	GLuint memory_object;
	GLuint texture;
	GLenum internal_format;
	EGLImageKHR image;
};

static void release(struct gl_device *device, struct gl_allocation *a)
{
	if (a->texture)
		glDeleteTextures(1, &a->texture);
	if (a->memory_object)
		device->gl.DeleteMemoryObjectsEXT(1, &a->memory_object);
	if (a->image)
		device->gl.DestroyImageKHR(device->display, a->image);
	free(a);
}

static uint64_t layout_modifier(const uda_capability_set_list *set, bool *out_opaque)
{
	uint64_t modifier = DRM_FORMAT_MOD_INVALID;
	uda_capability_set_list_get_modifier(set, 0, &modifier);
	*out_opaque = modifier == DRM_FORMAT_MOD_INVALID;
	return modifier;
}

/* *consumed: GL took the fd. *out_code: the GL or EGL error behind a
 * failure, for the message. */
static const char *import_opaque(struct gl_device *device, int fd, bool take_fd, const uda_allocation_metadata *m,
                                 bool optimal, struct gl_allocation *a, bool *consumed, uint32_t *out_code)
{
	if (!device->has_memory_object_fd)
		return "no GL_EXT_memory_object_fd";
	int dup_fd = take_fd ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0)
		return "cannot duplicate the fd";
	device->gl.CreateMemoryObjectsEXT(1, &a->memory_object);
	/* uda's exporters allocate image memory dedicated to the image
	 * (see uda_backend.h), and the import must say so. */
	const GLint dedicated = GL_TRUE;
	device->gl.MemoryObjectParameterivEXT(a->memory_object, GL_DEDICATED_MEMORY_OBJECT_EXT, &dedicated);
	device->gl.ImportMemoryFdEXT(a->memory_object, m->size, GL_HANDLE_TYPE_OPAQUE_FD_EXT, dup_fd);
	GLenum error = glGetError();
	if (error != GL_NO_ERROR) {
		/* Ownership passes only on success (a taken fd the core closes). */
		if (!take_fd)
			close(dup_fd);
		*out_code = error;
		return "glImportMemoryFdEXT failed";
	}
	*consumed = true;
	glGenTextures(1, &a->texture);
	glBindTexture(GL_TEXTURE_2D, a->texture);
	glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_TILING_EXT, optimal ? GL_OPTIMAL_TILING_EXT : GL_LINEAR_TILING_EXT);
	device->gl.TexStorageMem2DEXT(GL_TEXTURE_2D, 1, a->internal_format, (GLsizei)m->width, (GLsizei)m->height,
	                              a->memory_object, 0);
	glBindTexture(GL_TEXTURE_2D, 0);
	error = glGetError();
	if (error == GL_NO_ERROR)
		return NULL;
	*out_code = error;
	return optimal ? "glTexStorageMem2DEXT (optimal tiling) failed" : "glTexStorageMem2DEXT (linear tiling) failed";
}

static const char *import_dma_buf(struct gl_device *device, int fd, const uda_allocation_metadata *m,
                                  uint64_t modifier, struct gl_allocation *a, uint32_t *out_code)
{
	if (!device->has_dma_buf_import)
		return "no EGL_EXT_image_dma_buf_import";
	if (modifier != DRM_FORMAT_MOD_LINEAR && !device->has_dma_buf_modifiers)
		return "a non-linear modifier needs EGL_EXT_image_dma_buf_import_modifiers";
	/* Attribute names per plane, as EGL_EXT_image_dma_buf_import(_modifiers)
	 * numbers them. */
	static const EGLint plane_attributes[UDA_MAX_PLANES][5] = {
		{EGL_DMA_BUF_PLANE0_FD_EXT, EGL_DMA_BUF_PLANE0_OFFSET_EXT, EGL_DMA_BUF_PLANE0_PITCH_EXT,
		 EGL_DMA_BUF_PLANE0_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE0_MODIFIER_HI_EXT},
		{EGL_DMA_BUF_PLANE1_FD_EXT, EGL_DMA_BUF_PLANE1_OFFSET_EXT, EGL_DMA_BUF_PLANE1_PITCH_EXT,
		 EGL_DMA_BUF_PLANE1_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE1_MODIFIER_HI_EXT},
		{EGL_DMA_BUF_PLANE2_FD_EXT, EGL_DMA_BUF_PLANE2_OFFSET_EXT, EGL_DMA_BUF_PLANE2_PITCH_EXT,
		 EGL_DMA_BUF_PLANE2_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE2_MODIFIER_HI_EXT},
		{EGL_DMA_BUF_PLANE3_FD_EXT, EGL_DMA_BUF_PLANE3_OFFSET_EXT, EGL_DMA_BUF_PLANE3_PITCH_EXT,
		 EGL_DMA_BUF_PLANE3_MODIFIER_LO_EXT, EGL_DMA_BUF_PLANE3_MODIFIER_HI_EXT},
	};
	if (m->plane_count > 1 && !device->has_dma_buf_modifiers)
		return "several planes need EGL_EXT_image_dma_buf_import_modifiers";
	EGLint attributes[7 + UDA_MAX_PLANES * 10 + 1];
	int n = 0;
	attributes[n++] = EGL_WIDTH;
	attributes[n++] = (EGLint)m->width;
	attributes[n++] = EGL_HEIGHT;
	attributes[n++] = (EGLint)m->height;
	attributes[n++] = EGL_LINUX_DRM_FOURCC_EXT;
	attributes[n++] = (EGLint)m->format;
	for (uint32_t p = 0; p < m->plane_count && p < UDA_MAX_PLANES; p++) {
		/* EGLint attributes: offsets and pitches past 2^31 cannot be
		 * said, so they are refused rather than truncated. */
		if (m->planes[p].offset > INT32_MAX || m->planes[p].pitch > INT32_MAX)
			return "a plane offset or pitch beyond what EGL attributes hold";
		attributes[n++] = plane_attributes[p][0];
		attributes[n++] = fd; /* one buffer; EGL duplicates what it keeps */
		attributes[n++] = plane_attributes[p][1];
		attributes[n++] = (EGLint)m->planes[p].offset;
		attributes[n++] = plane_attributes[p][2];
		attributes[n++] = (EGLint)m->planes[p].pitch;
		if (device->has_dma_buf_modifiers) {
			attributes[n++] = plane_attributes[p][3];
			attributes[n++] = (EGLint)(modifier & 0xffffffffu);
			attributes[n++] = plane_attributes[p][4];
			attributes[n++] = (EGLint)(modifier >> 32);
		}
	}
	attributes[n++] = EGL_NONE;
	a->image = device->gl.CreateImageKHR(device->display, EGL_NO_CONTEXT, EGL_LINUX_DMA_BUF_EXT, NULL, attributes);
	if (a->image == EGL_NO_IMAGE_KHR) {
		*out_code = (uint32_t)eglGetError();
		return "eglCreateImageKHR refused the DMA-BUF";
	}
	glGenTextures(1, &a->texture);
	glBindTexture(GL_TEXTURE_2D, a->texture);
	device->gl.EGLImageTargetTexStorageEXT(GL_TEXTURE_2D, a->image, NULL);
	glBindTexture(GL_TEXTURE_2D, 0);
	*out_code = glGetError();
	return *out_code == GL_NO_ERROR ? NULL : "glEGLImageTargetTexStorageEXT failed";
}

/* GL_EXT_memory_object's UUIDs of the current context against the
 * device's. A context of a driver without the extension writes nothing
 * (glvnd's no-op entry), and zeros match no device. */
static bool current_context_on_device(const struct gl_device *device)
{
	uint8_t device_uuid[UDA_UUID_SIZE] = {0}, driver_uuid[UDA_UUID_SIZE] = {0};
	device->gl.GetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, device_uuid);
	device->gl.GetUnsignedBytevEXT(GL_DRIVER_UUID_EXT, driver_uuid);
	return memcmp(device_uuid, device->device_uuid, UDA_UUID_SIZE) == 0 &&
	       memcmp(driver_uuid, device->driver_uuid, UDA_UUID_SIZE) == 0;
}

/* The context an import asks for: the backend's, or the caller's current
 * one with UDA_GL_IMPORT_CURRENT_CONTEXT. */
static uda_result import_context(struct gl_device *device, uda_context *ctx, const void *next, EGLContext *out,
                                 bool *out_is_current)
{
	*out = device->context;
	*out_is_current = false;
	for (const uda_gl_import_info *link = next; link; link = link->next) {
		if (link->type != UDA_STRUCTURE_TYPE_GL_IMPORT_INFO)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "gl import: unknown extension struct %d",
			                             (int)link->type);
		if (link->flags & ~UDA_GL_IMPORT_CURRENT_CONTEXT)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "gl import: unknown flags 0x%x",
			                             link->flags);
		if (link->flags & UDA_GL_IMPORT_CURRENT_CONTEXT) {
			/* Each EGL query is a glvnd fork check (a getpid) and
			 * the import path is measured against raw GL: one query
			 * for the context, and GL itself says whether that
			 * context is on this device, which is what an import
			 * needs (an EGL platform's context is not on the
			 * device's display, yet on its GPU). */
			EGLContext current = eglGetCurrentContext();
			if (current == EGL_NO_CONTEXT)
				return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
				                             "gl import: UDA_GL_IMPORT_CURRENT_CONTEXT without a current "
				                             "context");
			if (!current_context_on_device(device))
				return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
				                             "gl import: the current context is not on %s (its device or "
				                             "driver UUID differs)",
				                             device->name);
			*out = current;
			*out_is_current = true;
		}
	}
	return UDA_SUCCESS;
}

uda_result gl_import(void *device_data, uda_context *ctx, int fd, bool take_fd, const uda_allocation_metadata *m,
                     const uda_capability_set_list *set, const void *next, uda_backend_allocation *out)
{
	struct gl_device *device = device_data;
	EGLContext target;
	bool target_is_current;
	uda_result result = import_context(device, ctx, next, &target, &target_is_current);
	if (result != UDA_SUCCESS)
		return result;
	uda_format_info format;
	if (uda_format_get_info(m->format, &format) != UDA_SUCCESS || !format.gl_internal_format)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "gl import: no GL format for 0x%08x", m->format);
	if (m->width > (uint32_t)device->max_texture_size || m->height > (uint32_t)device->max_texture_size)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "gl import: %ux%u exceeds GL_MAX_TEXTURE_SIZE",
		                             m->width, m->height);
	bool opaque;
	const uint64_t modifier = layout_modifier(set, &opaque);
	if (m->handle_type == UDA_HANDLE_TYPE_OPAQUE_FD && !opaque && modifier != DRM_FORMAT_MOD_LINEAR)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "gl import: opaque fds carry optimal or linear tiling only");
	if (m->handle_type != UDA_HANDLE_TYPE_OPAQUE_FD && m->handle_type != UDA_HANDLE_TYPE_DMA_BUF)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "gl import: handle type %d not supported",
		                             (int)m->handle_type);
	/* Memory made elsewhere becomes a texture of the format's GL internal
	 * format, which a driver may keep in another channel order than the
	 * memory's (GL_BGRA8_EXT red first on Mesa 25.0): refused then, as
	 * the capability sets never offered it. */
	struct gl_format_answer answer;
	if (m->handle_type == UDA_HANDLE_TYPE_OPAQUE_FD &&
	    gl_device_format_answer(device, format.gl_internal_format, &answer) && !answer.storage)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "gl import: this GL makes no texture of format 0x%08x in the memory's order",
		                             m->format);
	char why[160];
	const char *file_problem = m->handle_type == UDA_HANDLE_TYPE_OPAQUE_FD && device->opaque_fds_are_mesa_files
	                                   ? mesa_memory_file_problem(fd, m->size, why, sizeof(why))
	                                   : NULL;
	if (file_problem)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "gl import: %s", file_problem);
	struct gl_allocation *a = calloc(1, sizeof(*a));
	if (!a)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	a->internal_format = format.gl_internal_format;
	a->context = target;

	struct gl_binding saved = {.target = target, .context = target};
	if (!target_is_current && !gl_device_enter(device, target, &saved)) {
		free(a);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "gl import: eglMakeCurrent failed (0x%x)",
		                             eglGetError());
	}
	/* Errors left pending would read as the import's. In the backend's
	 * own context they are stale; in an application's current context
	 * they are the application's, and this consumes them (documented in
	 * uda_gl.h). */
	while (glGetError() != GL_NO_ERROR)
		;
	uint32_t code = 0;
	const char *problem = m->handle_type == UDA_HANDLE_TYPE_OPAQUE_FD
	                              ? import_opaque(device, fd, take_fd, m, opaque, a, &out->took_fd, &code)
	                              : import_dma_buf(device, fd, m, modifier, a, &code);
	if (problem)
		release(device, a);
	else if (!target_is_current)
		glFlush(); /* so that contexts sharing the backend's see the texture */
	gl_device_leave(device, &saved);
	if (problem && code)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "gl import: %s (error 0x%04x)", problem, code);
	if (problem)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "gl import: %s", problem);
	out->data = a;
	return UDA_SUCCESS;
}

void gl_free(void *device_data, void *allocation)
{
	struct gl_device *device = device_data;
	struct gl_allocation *a = allocation;
	struct gl_binding saved;
	if (gl_device_enter(device, a->context, &saved)) {
		release(device, a);
		gl_device_leave(device, &saved);
	} else {
		/* The context is current on another thread (or gone): its GL
		 * names go with it. The EGLImage, and the dma-buf reference it
		 * holds, need no context. */
		if (a->image)
			device->gl.DestroyImageKHR(device->display, a->image);
		free(a);
	}
}

uda_result gl_get_native(void *device_data, uda_context *ctx, void *allocation, void *out_native)
{
	struct gl_device *device = device_data;
	struct gl_allocation *a = allocation;
	uda_gl_native *native = out_native;
	if (native->type != UDA_STRUCTURE_TYPE_GL_NATIVE || native->next)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "gl: native objects are uda_gl_native");
	native->egl_display = device->display;
	native->egl_context = a->context;
	native->memory_object = a->memory_object;
	native->texture = a->texture;
	native->target = GL_TEXTURE_2D;
	native->internal_format = a->internal_format;
	native->egl_image = a->image;
	return UDA_SUCCESS;
}
