/* Private to the gl backend: one uda device per EGL display whose GLES
 * context reports GL_EXT_memory_object UUIDs. The backend imports memory
 * other devices allocated; it never allocates. */
#ifndef UDA_GL_BACKEND_H
#define UDA_GL_BACKEND_H

#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GLES3/gl32.h>
#include <GLES2/gl2ext.h>
#include <pthread.h>

#include <uda/uda_backend.h>
#include <uda/uda_gl.h>

#define GL_BACKEND_NAME "gl"

struct gl_functions {
	PFNGLCREATEMEMORYOBJECTSEXTPROC CreateMemoryObjectsEXT;
	PFNGLDELETEMEMORYOBJECTSEXTPROC DeleteMemoryObjectsEXT;
	PFNGLMEMORYOBJECTPARAMETERIVEXTPROC MemoryObjectParameterivEXT;
	PFNGLIMPORTMEMORYFDEXTPROC ImportMemoryFdEXT;
	PFNGLTEXSTORAGEMEM2DEXTPROC TexStorageMem2DEXT;
	PFNGLGETUNSIGNEDBYTEVEXTPROC GetUnsignedBytevEXT;
	PFNGLGETUNSIGNEDBYTEI_VEXTPROC GetUnsignedBytei_vEXT;
	PFNGLEGLIMAGETARGETTEXSTORAGEEXTPROC EGLImageTargetTexStorageEXT;
	PFNEGLCREATEIMAGEKHRPROC CreateImageKHR;
	PFNEGLDESTROYIMAGEKHRPROC DestroyImageKHR;
	PFNEGLQUERYDMABUFFORMATSEXTPROC QueryDmaBufFormatsEXT;
	PFNEGLQUERYDMABUFMODIFIERSEXTPROC QueryDmaBufModifiersEXT;
};

struct gl_device {
	EGLDisplay display;
	EGLContext context;
	bool owns_display_reference; /* EGL_KHR_display_reference: terminate is safe */
	/* The context is current on one thread at a time: this lock holds
	 * it for the backend's own calls. */
	pthread_mutex_t lock;
	struct gl_functions gl;
	uint8_t device_uuid[UDA_UUID_SIZE];
	uint8_t driver_uuid[UDA_UUID_SIZE];
	char name[256];
	bool has_memory_object_fd;
	/* llvmpipe: its opaque fds are memfds headed by what its import
	 * maps (mesa_memory_file.c). */
	bool opaque_fds_are_mesa_files;
	bool has_dma_buf_import;
	bool has_dma_buf_modifiers;
	GLint max_texture_size;
	/* Per internal format, as asked once (gl_capabilities.c): whether
	 * the context makes immutable storage of it at all (in the order
	 * the memory lies), and whether
	 * GL_TILING_TYPES_EXT lists linear. A context switch spared on every
	 * later capability query. Guarded by `lock`. */
	struct gl_format_answer {
		GLenum internal_format;
		bool storage;
		bool linear;
	} format_answers[32];
	uint32_t format_answer_count;
	uda_drm_node drm_primary, drm_render;
};

/* The EGL binding of the calling thread, saved around the backend's own
 * use of its context and put back afterwards. */
struct gl_binding {
	EGLContext target;
	bool locked;
	EGLDisplay display;
	EGLContext context;
	EGLSurface draw, read;
	EGLenum api;
};

/* Makes `target` (the device's context, locked for the call, or an
 * application's context on the device's display) current on the calling
 * thread; false, with nothing changed, if EGL refuses. */
bool gl_device_enter(struct gl_device *device, EGLContext target, struct gl_binding *saved);
void gl_device_leave(struct gl_device *device, const struct gl_binding *saved);

/* gl_capabilities.c */
/* The device's answer for an internal format, asked in its context the
 * first time (gl_capabilities.c); false when the context could not be
 * entered. */
bool gl_device_format_answer(struct gl_device *device, GLenum internal_format, struct gl_format_answer *out);
uda_result gl_get_capability_sets(void *device_data, uda_context *ctx, const uda_assertion *assertion,
                                  const uda_usage *usage, uda_capability_set_list *out_list);

/* gl_import.c */
uda_result gl_import(void *device_data, uda_context *ctx, int fd, bool take_fd, const uda_allocation_metadata *metadata,
                     const uda_capability_set_list *set, const void *next, uda_backend_allocation *out);
void gl_free(void *device_data, void *allocation);
uda_result gl_get_native(void *device_data, uda_context *ctx, void *allocation, void *out_native);

#endif
