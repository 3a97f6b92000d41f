/* Allocations as GL render targets in the application's context, and the
 * copies between them and the surfaces GL renders into. */
#include <stdint.h>
#include <string.h>

#include <uda/uda_gl.h>

#include "gl_target.h"

/* Exports the allocation with the first handle type its set carries that
 * the GL device imports, into the backend's own context or, with
 * UDA_GL_IMPORT_CURRENT_CONTEXT in gl_flags, the calling thread's. */
static EGLint share_with_device(struct platform_display *display, uda_allocation *allocation, uint32_t gl_flags,
                                uda_allocation **out_import)
{
	const uda_gl_import_info gl_info = {UDA_STRUCTURE_TYPE_GL_IMPORT_INFO, NULL, gl_flags};
	const uda_allocation_import_info info = {
		.type = UDA_STRUCTURE_TYPE_ALLOCATION_IMPORT_INFO,
		.next = &gl_info,
		.allocation = allocation,
		.device = display->device,
	};
	if (uda_import_allocation(&info, out_import) == UDA_SUCCESS)
		return EGL_SUCCESS;
	platform_set_error(display->platform, EGL_BAD_MATCH,
	                   "the allocation cannot be shared with the display's GL device: %s",
	                   uda_context_get_error(uda_device_get_context(display->device)));
	return EGL_BAD_MATCH;
}

EGLint gl_image_from_allocation(struct platform_display *display, uda_allocation *allocation,
                                uda_allocation **out_import, EGLImage *out_image, bool *out_owns_image)
{
	struct uda_platform *platform = display->platform;
	*out_import = NULL;
	*out_image = EGL_NO_IMAGE;
	*out_owns_image = false;
	uda_device *owner = NULL;
	uda_allocation_get_device(allocation, &owner);
	uda_allocation *gl_allocation = allocation;
	if (owner != display->device) {
		EGLint error = share_with_device(display, allocation, 0, out_import);
		if (error != EGL_SUCCESS)
			return error;
		gl_allocation = *out_import;
	}
	uda_gl_native native = {.type = UDA_STRUCTURE_TYPE_GL_NATIVE};
	if (uda_allocation_get_native(gl_allocation, &native) != UDA_SUCCESS) {
		uda_allocation_destroy(*out_import);
		*out_import = NULL;
		platform_set_error(platform, EGL_BAD_MATCH, "the allocation has no GL objects");
		return EGL_BAD_MATCH;
	}
	if (native.egl_image) {
		*out_image = native.egl_image; /* a DMA-BUF import is one already */
		return EGL_SUCCESS;
	}
	/* A memory-object texture lives in the backend's context; an EGLImage
	 * of it reaches every context of the display. */
	const EGLint attribs[] = {EGL_GL_TEXTURE_LEVEL_KHR, 0, EGL_IMAGE_PRESERVED_KHR, EGL_TRUE, EGL_NONE};
	EGLImage image = platform->egl.CreateImageKHR(display->internal, native.egl_context, EGL_GL_TEXTURE_2D_KHR,
	                                              (EGLClientBuffer)(uintptr_t)native.texture, attribs);
	if (image == EGL_NO_IMAGE) {
		EGLint error = platform->egl.GetError();
		uda_allocation_destroy(*out_import);
		*out_import = NULL;
		/* NVIDIA's driver (580.159) refuses EGLImages of textures in
		 * imported memory objects (EGL_BAD_ACCESS): there only a
		 * DMA-BUF of the allocation makes an EGLImage. */
		platform_set_error(platform, EGL_BAD_MATCH,
		                   "the driver makes no EGLImage of the allocation's texture (0x%x), and the "
		                   "allocation has no DMA-BUF the display imports",
		                   error);
		return EGL_BAD_MATCH;
	}
	*out_image = image;
	*out_owns_image = true;
	return EGL_SUCCESS;
}

void gl_target_release(struct platform_display *display, struct gl_target *target)
{
	struct uda_platform *platform = display->platform;
	if (target->context != EGL_NO_CONTEXT && platform->egl.GetCurrentContext() == target->context &&
	    platform->gl_loaded) {
		/* Rendering still queued must not outlive the memory. */
		platform->gl.Finish();
		platform->gl.DeleteFramebuffers(1, &target->framebuffer);
		if (!target->texture_of_import)
			platform->gl.DeleteTextures(1, &target->texture);
		if (target->depth_stencil)
			platform->gl.DeleteRenderbuffers(1, &target->depth_stencil);
	}
	/* Otherwise the names go with their context; the texture keeps the
	 * memory alive until then. */
	if (target->owns_image)
		platform->egl.DestroyImageKHR(display->internal, target->image);
	uda_allocation_destroy(target->import);
	memset(target, 0, sizeof(*target));
}

bool gl_has_flip_y(struct uda_platform *platform)
{
	const int known = __atomic_load_n(&platform->flip_y_support, __ATOMIC_RELAXED);
	if (known)
		return known > 0;
	bool found = false;
	if (platform->gl.FramebufferParameteriMESA) {
		GLint count = 0;
		platform->gl.GetIntegerv(GL_NUM_EXTENSIONS, &count);
		for (GLint i = 0; i < count && !found; i++) {
			const GLubyte *name = platform->gl.GetStringi(GL_EXTENSIONS, (GLuint)i);
			found = name && strcmp((const char *)name, "GL_MESA_framebuffer_flip_y") == 0;
		}
	}
	/* One driver, one answer: asked in the first context. */
	__atomic_store_n(&platform->flip_y_support, found ? 1 : -1, __ATOMIC_RELAXED);
	return found;
}

/* The depth/stencil renderbuffer a config's framebuffer 0 would have. */
static void attach_depth_stencil(const struct platform_gl *gl, struct gl_target *target,
                                 const struct gl_target_options *options)
{
	GLenum format = 0, attachment = 0;
	if (options->depth_size && options->stencil_size) {
		format = GL_DEPTH24_STENCIL8;
		attachment = GL_DEPTH_STENCIL_ATTACHMENT;
	} else if (options->depth_size) {
		format = options->depth_size > 16 ? GL_DEPTH_COMPONENT24 : GL_DEPTH_COMPONENT16;
		attachment = GL_DEPTH_ATTACHMENT;
	} else if (options->stencil_size) {
		format = GL_STENCIL_INDEX8;
		attachment = GL_STENCIL_ATTACHMENT;
	} else {
		return;
	}
	GLint renderbuffer_binding = 0;
	gl->GetIntegerv(GL_RENDERBUFFER_BINDING, &renderbuffer_binding);
	gl->GenRenderbuffers(1, &target->depth_stencil);
	gl->BindRenderbuffer(GL_RENDERBUFFER, target->depth_stencil);
	gl->RenderbufferStorage(GL_RENDERBUFFER, format, (GLsizei)target->width, (GLsizei)target->height);
	gl->FramebufferRenderbuffer(GL_DRAW_FRAMEBUFFER, attachment, GL_RENDERBUFFER, target->depth_stencil);
	gl->BindRenderbuffer(GL_RENDERBUFFER, (GLuint)renderbuffer_binding);
}

/* The allocation imported straight into the current context, where that
 * context lives on the GL device's own display: its texture is the render
 * target, with no EGLImage between (contexts on the platform display
 * live on that display). An import into the rendering context is how
 * GL_EXT_memory_object interop is meant to be used; an EGLImage of a
 * memory-object texture is a path drivers test far less. */
static bool import_into_context(struct platform_display *display, uda_allocation *allocation,
                                struct gl_target *target)
{
	uda_gl_device_native device_native = {.type = UDA_STRUCTURE_TYPE_GL_DEVICE_NATIVE};
	if (uda_device_get_native(display->device, &device_native) != UDA_SUCCESS ||
	    device_native.egl_display != (void *)display->internal)
		return false;
	uda_allocation *import = NULL;
	if (share_with_device(display, allocation, UDA_GL_IMPORT_CURRENT_CONTEXT, &import) != EGL_SUCCESS)
		return false;
	uda_gl_native native = {.type = UDA_STRUCTURE_TYPE_GL_NATIVE};
	if (uda_allocation_get_native(import, &native) != UDA_SUCCESS || native.egl_image || !native.texture) {
		uda_allocation_destroy(import);
		return false;
	}
	target->import = import;
	target->texture = native.texture;
	target->texture_of_import = true;
	return true;
}

/* A framebuffer on the target's texture: the import's own, or one made
 * here of its EGLImage. */
static bool bind_target(struct uda_platform *platform, struct gl_target *target,
                        const struct gl_target_options *options)
{
	const struct platform_gl *gl = &platform->gl;
	GLint texture_binding = 0, draw_binding = 0;
	gl->GetIntegerv(GL_TEXTURE_BINDING_2D, &texture_binding);
	gl->GetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &draw_binding);
	if (!target->texture_of_import) {
		gl->GenTextures(1, &target->texture);
		gl->BindTexture(GL_TEXTURE_2D, target->texture);
		gl->EGLImageTargetTexture2DOES(GL_TEXTURE_2D, target->image);
	}
	gl->GenFramebuffers(1, &target->framebuffer);
	gl->BindFramebuffer(GL_DRAW_FRAMEBUFFER, target->framebuffer);
	gl->FramebufferTexture2D(GL_DRAW_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target->texture, 0);
	if (options && options->direct) {
		/* Rows top-down in memory, as a window system's framebuffer 0
		 * keeps them, so consumers read the image upright. */
		gl->FramebufferParameteriMESA(GL_DRAW_FRAMEBUFFER, GL_FRAMEBUFFER_FLIP_Y_MESA, GL_TRUE);
		attach_depth_stencil(gl, target, options);
	}
	/* The status, not glGetError: the application's pending GL errors
	 * are its own and must survive eglSwapBuffers. */
	bool complete = gl->CheckFramebufferStatus(GL_DRAW_FRAMEBUFFER) == GL_FRAMEBUFFER_COMPLETE;
	gl->BindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)draw_binding);
	gl->BindTexture(GL_TEXTURE_2D, (GLuint)texture_binding);
	return complete;
}

struct gl_target *gl_target_get(struct platform_display *display, struct gl_target *targets, uint32_t *count,
                                uint32_t capacity, uint64_t key, uda_allocation *allocation,
                                const struct gl_target_options *options)
{
	struct uda_platform *platform = display->platform;
	EGLContext context = platform->egl.GetCurrentContext();
	if (context == EGL_NO_CONTEXT) {
		platform_set_error(platform, EGL_BAD_CONTEXT, "no context is current");
		return NULL;
	}
	for (uint32_t i = 0; i < *count; i++) {
		if (targets[i].key == key && targets[i].context == context)
			return &targets[i];
	}
	if (!platform_load_gl(platform)) {
		platform_set_error(platform, EGL_BAD_ALLOC, "the driver lacks GL entry points the platform needs");
		return NULL;
	}
	if (*count == capacity) {
		gl_target_release(display, &targets[0]);
		memmove(&targets[0], &targets[1], (capacity - 1) * sizeof(targets[0]));
		memset(&targets[capacity - 1], 0, sizeof(targets[0]));
		(*count)--;
	}
	struct gl_target *target = &targets[*count];
	uda_allocation_metadata metadata = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	uda_allocation_get_metadata(allocation, &metadata);
	*target = (struct gl_target){.key = key, .width = metadata.width, .height = metadata.height, .context = context};
	if (!import_into_context(display, allocation, target) &&
	    gl_image_from_allocation(display, allocation, &target->import, &target->image, &target->owns_image) !=
	            EGL_SUCCESS) {
		memset(target, 0, sizeof(*target));
		return NULL;
	}
	if (!bind_target(platform, target, options)) {
		gl_target_release(display, target);
		platform_set_error(platform, EGL_BAD_MATCH, "GL cannot render into the allocation (format 0x%08x)",
		                   metadata.format);
		return NULL;
	}
	(*count)++;
	return target;
}

void gl_target_release_other_sizes(struct platform_display *display, struct gl_target *targets, uint32_t *count,
                                   uint32_t width, uint32_t height)
{
	EGLContext current = display->platform->egl.GetCurrentContext();
	uint32_t kept = 0;
	for (uint32_t i = 0; i < *count; i++) {
		struct gl_target *target = &targets[i];
		if ((target->width != width || target->height != height) && target->context == current) {
			gl_target_release(display, target);
			continue;
		}
		if (kept != i) {
			targets[kept] = *target;
			memset(target, 0, sizeof(*target));
		}
		kept++;
	}
	*count = kept;
}

struct saved_blit_state {
	GLint draw_framebuffer, read_framebuffer, read_buffer;
	GLboolean scissor, discard;
};

/* Blits are touched by the scissor test (and, on some drivers, by
 * rasterizer discard); nothing else of the fragment pipeline applies. */
static void save_blit_state(const struct platform_gl *gl, struct saved_blit_state *saved)
{
	gl->GetIntegerv(GL_DRAW_FRAMEBUFFER_BINDING, &saved->draw_framebuffer);
	gl->GetIntegerv(GL_READ_FRAMEBUFFER_BINDING, &saved->read_framebuffer);
	saved->scissor = gl->IsEnabled(GL_SCISSOR_TEST);
	saved->discard = gl->IsEnabled(GL_RASTERIZER_DISCARD);
	gl->BindFramebuffer(GL_READ_FRAMEBUFFER, 0);
	gl->GetIntegerv(GL_READ_BUFFER, &saved->read_buffer);
	if (saved->scissor)
		gl->Disable(GL_SCISSOR_TEST);
	if (saved->discard)
		gl->Disable(GL_RASTERIZER_DISCARD);
}

static void restore_blit_state(const struct platform_gl *gl, const struct saved_blit_state *saved)
{
	gl->BindFramebuffer(GL_READ_FRAMEBUFFER, 0);
	gl->ReadBuffer((GLenum)saved->read_buffer);
	gl->BindFramebuffer(GL_READ_FRAMEBUFFER, (GLuint)saved->read_framebuffer);
	gl->BindFramebuffer(GL_DRAW_FRAMEBUFFER, (GLuint)saved->draw_framebuffer);
	if (saved->scissor)
		gl->Enable(GL_SCISSOR_TEST);
	if (saved->discard)
		gl->Enable(GL_RASTERIZER_DISCARD);
}

void gl_target_copy_from_surface(struct platform_display *display, const struct gl_target *target, uint32_t width,
                                 uint32_t height)
{
	const struct platform_gl *gl = &display->platform->gl;
	struct saved_blit_state saved;
	save_blit_state(gl, &saved);
	gl->ReadBuffer(GL_BACK);
	gl->BindFramebuffer(GL_DRAW_FRAMEBUFFER, target->framebuffer);
	gl->BlitFramebuffer(0, 0, (GLint)width, (GLint)height, 0, (GLint)height, (GLint)width, 0, GL_COLOR_BUFFER_BIT,
	                    GL_NEAREST);
	restore_blit_state(gl, &saved);
}

void gl_target_copy_to_surface(struct platform_display *display, const struct gl_target *target, uint32_t width,
                               uint32_t height)
{
	const struct platform_gl *gl = &display->platform->gl;
	struct saved_blit_state saved;
	save_blit_state(gl, &saved);
	gl->BindFramebuffer(GL_READ_FRAMEBUFFER, target->framebuffer);
	gl->BindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
	gl->BlitFramebuffer(0, 0, (GLint)width, (GLint)height, 0, (GLint)height, (GLint)width, 0, GL_COLOR_BUFFER_BIT,
	                    GL_NEAREST);
	restore_blit_state(gl, &saved);
}
