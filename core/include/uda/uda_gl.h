/*
 * GL objects behind a uda allocation imported by the gl backend. Handles
 * are given as plain integers and pointers so that this header works with
 * desktop GL and GLES headers alike.
 */
#ifndef UDA_GL_H
#define UDA_GL_H

#include <uda/uda.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct uda_gl_native {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_GL_NATIVE */
	const void *next;
	/* The backend's EGLDisplay and EGLContext. The texture and memory
	 * object below belong to that context's share group: create your
	 * context with it as share_context (same display), or make it
	 * current while no other thread uses the backend. */
	void *egl_display;
	void *egl_context;
	/* GLuint of a GL_EXT_memory_object memory object; 0 for an EGLImage
	 * (DMA-BUF) import. */
	uint32_t memory_object;
	/* GLuint of a GL_TEXTURE_2D with immutable storage in the memory,
	 * usable as a sampled texture and as a framebuffer colour
	 * attachment. */
	uint32_t texture;
	uint32_t target;          /* GLenum: GL_TEXTURE_2D */
	uint32_t internal_format; /* GLenum, GL_RGBA8 etc. */
	/* EGLImage of a DMA-BUF import, or NULL. */
	void *egl_image;
} uda_gl_native;

#ifdef __cplusplus
}
#endif

#endif /* UDA_GL_H */
