/* GL objects of allocations in the application's contexts: what window
 * and pixmap surfaces render into and copy through (gl_target.c). */
#ifndef UDA_EGL_GL_TARGET_H
#define UDA_EGL_GL_TARGET_H

#include "platform.h"

/* An allocation made usable in one GL context: imported into the GL
 * device if another device owns it, as an EGLImage, bound to a texture
 * and a framebuffer of that context. */
struct gl_target {
	uint64_t key; /* the uda_surface buffer id; 0 for a pixmap */
	uint32_t width, height;
	EGLContext context;
	uda_allocation *import; /* NULL when the GL device owns the allocation */
	EGLImage image;
	bool owns_image;
	GLuint texture;
	bool texture_of_import; /* the import's texture, freed with it */
	GLuint framebuffer;
	GLuint depth_stencil; /* direct rendering with a depth or stencil config */
};

/* How a target is made: for the copy path, the texture alone; for direct
 * rendering, also the config's depth/stencil and rows flipped like a
 * window's framebuffer. */
struct gl_target_options {
	bool direct;
	EGLint depth_size, stencil_size;
};

#define PLATFORM_MAX_TARGETS (2u * UDA_SURFACE_MAX_BUFFERS)

/* A target for `allocation` in the current context, cached in `targets`
 * under `key`; NULL with an EGL error set on failure. */
struct gl_target *gl_target_get(struct platform_display *display, struct gl_target *targets, uint32_t *count,
                                uint32_t capacity, uint64_t key, uda_allocation *allocation,
                                const struct gl_target_options *options);
/* Whether the current context can render rows flipped into a framebuffer
 * object (GL_MESA_framebuffer_flip_y). */
bool gl_has_flip_y(struct uda_platform *platform);
/* Frees what needs no context, and the GL names when their context is
 * current on this thread. */
void gl_target_release(struct platform_display *display, struct gl_target *target);
/* Releases the current context's targets of another size than width x
 * height (their buffers are retired, and their imports keep the memory),
 * compacting the array. None of them may be bound. */
void gl_target_release_other_sizes(struct platform_display *display, struct gl_target *targets, uint32_t *count,
                                   uint32_t width, uint32_t height);
/* Copies the current draw surface (framebuffer 0) into the target,
 * flipping rows so the buffer's first row is the image's top, as
 * consumers of window buffers expect; GL state left as found. */
void gl_target_copy_from_surface(struct platform_display *display, const struct gl_target *target, uint32_t width,
                                 uint32_t height);
/* The other way, for a pixmap's existing content. */
void gl_target_copy_to_surface(struct platform_display *display, const struct gl_target *target, uint32_t width,
                               uint32_t height);
/* Imports `allocation` into the display's GL device and makes an EGLImage
 * of it. */
EGLint gl_image_from_allocation(struct platform_display *display, uda_allocation *allocation,
                                uda_allocation **out_import, EGLImage *out_image, bool *out_owns_image);

#endif
