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
	/* The EGLDisplay and the EGLContext the objects below belong to (with
	 * its share group): the backend's own, or the application's for an
	 * import with UDA_GL_IMPORT_CURRENT_CONTEXT. For the backend's, create
	 * your context with it as share_context (same display). */
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

/* The device itself, from uda_device_get_native. */
typedef struct uda_gl_device_native {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_GL_DEVICE_NATIVE */
	const void *next;
	/* The initialized EGLDisplay the device's imports live on; the
	 * device keeps it initialized while it lives. Contexts an application
	 * creates on it can use the device's imports through EGLImages or
	 * UDA_GL_IMPORT_CURRENT_CONTEXT. */
	void *egl_display;
	/* The backend's own EGLContext on it (as share_context, or for
	 * eglCreateImage from its textures); current on no thread outside
	 * the backend's calls. */
	void *egl_context;
} uda_gl_device_native;

/* Chained to uda_import_info::next on an import into a gl device. */
typedef struct uda_gl_import_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_GL_IMPORT_INFO */
	const void *next;
	/* UDA_GL_IMPORT_* */
	uint32_t flags;
} uda_gl_import_info;

/* Create the texture and memory object in the EGL context current on the
 * calling thread instead of the backend's own; that context must be on
 * the device's GPU and driver (its GL_EXT_memory_object UUIDs are the
 * device's) and, for a DMA-BUF import, on the backend's display, whose
 * EGLImage it binds. No context switch: how a compositor imports into
 * the context it renders with. GL errors pending in that context are
 * consumed by the import. The allocation must then be destroyed while
 * that context is current on the calling thread, or not current
 * anywhere. */
#define UDA_GL_IMPORT_CURRENT_CONTEXT 0x1u

#ifdef __cplusplus
}
#endif

#endif /* UDA_GL_H */
