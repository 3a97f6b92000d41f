/*
 * The gl backend module. It finds EGL displays (one per EGL device where
 * EGL_EXT_platform_device exists, else the surfaceless platform), makes a
 * GLES 3 context on each without any surface, and registers a uda device
 * for each context that names its hardware through GL_EXT_memory_object's
 * device and driver UUIDs. Those UUIDs are what let a Vulkan allocation be
 * imported here: the opaque-fd path is only defined between equal UUIDs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "gl_backend.h"

#define MAX_EGL_DEVICES 16

bool gl_device_enter(struct gl_device *device, EGLContext target, struct gl_binding *saved)
{
	/* Only the backend's own context is shared between the threads that
	 * call into uda; an application's context is the application's. */
	saved->locked = target == device->context;
	if (saved->locked)
		pthread_mutex_lock(&device->lock);
	saved->target = target;
	/* Each query is a trip through glvnd: ask for the rest only when
	 * another context is current and must be put back. */
	saved->context = eglGetCurrentContext();
	if (saved->context == target)
		return true;
	saved->api = eglQueryAPI();
	if (saved->context != EGL_NO_CONTEXT) {
		saved->display = eglGetCurrentDisplay();
		saved->draw = eglGetCurrentSurface(EGL_DRAW);
		saved->read = eglGetCurrentSurface(EGL_READ);
	}
	if ((saved->api != EGL_OPENGL_ES_API && !eglBindAPI(EGL_OPENGL_ES_API)) ||
	    !eglMakeCurrent(device->display, EGL_NO_SURFACE, EGL_NO_SURFACE, target)) {
		eglBindAPI(saved->api);
		if (saved->locked)
			pthread_mutex_unlock(&device->lock);
		return false;
	}
	return true;
}

void gl_device_leave(struct gl_device *device, const struct gl_binding *saved)
{
	if (saved->context != saved->target) {
		if (saved->context != EGL_NO_CONTEXT) {
			if (saved->api != EGL_OPENGL_ES_API)
				eglBindAPI(saved->api);
			eglMakeCurrent(saved->display, saved->draw, saved->read, saved->context);
		} else {
			eglMakeCurrent(device->display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
		}
		if (saved->api != EGL_OPENGL_ES_API)
			eglBindAPI(saved->api);
	}
	if (saved->locked)
		pthread_mutex_unlock(&device->lock);
}

static bool has_word(const char *list, const char *word)
{
	size_t length = strlen(word);
	for (const char *p = list; p && (p = strstr(p, word)); p += length) {
		if ((p == list || p[-1] == ' ') && (p[length] == ' ' || p[length] == '\0'))
			return true;
	}
	return false;
}

static void node_from_path(const char *path, uda_drm_node *node)
{
	struct stat st;
	if (path && stat(path, &st) == 0 && S_ISCHR(st.st_mode))
		*node = (uda_drm_node){true, major(st.st_rdev), minor(st.st_rdev)};
}

static void gl_device_destroy(void *device_data)
{
	struct gl_device *device = device_data;
	if (device->context != EGL_NO_CONTEXT)
		eglDestroyContext(device->display, device->context);
	/* Without reference counting, terminating would pull the display out
	 * from under the application, which shares it; leave it then. */
	if (device->owns_display_reference)
		eglTerminate(device->display);
	pthread_mutex_destroy(&device->lock);
	free(device);
}

static uda_result gl_get_device_native(void *device_data, uda_context *ctx, void *out_native)
{
	struct gl_device *device = device_data;
	uda_gl_device_native *native = out_native;
	if (native->type != UDA_STRUCTURE_TYPE_GL_DEVICE_NATIVE || native->next)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "gl: device native objects are uda_gl_device_native");
	native->egl_display = device->display;
	native->egl_context = device->context;
	return UDA_SUCCESS;
}

static const uda_device_interface gl_device_interface = {
	.version = UDA_DEVICE_INTERFACE_VERSION_2,
	.get_device_native = gl_get_device_native,
	.get_capability_sets = gl_get_capability_sets,
	.destroy = gl_device_destroy,
	.import = gl_import,
	.free = gl_free,
	.get_native = gl_get_native,
};

static void load_functions(struct gl_functions *gl)
{
#define LOAD(name) gl->name = (void *)eglGetProcAddress("gl" #name)
	LOAD(CreateMemoryObjectsEXT);
	LOAD(DeleteMemoryObjectsEXT);
	LOAD(MemoryObjectParameterivEXT);
	LOAD(ImportMemoryFdEXT);
	LOAD(TexStorageMem2DEXT);
	LOAD(GetUnsignedBytevEXT);
	LOAD(GetUnsignedBytei_vEXT);
	LOAD(EGLImageTargetTexStorageEXT);
#undef LOAD
	gl->CreateImageKHR = (PFNEGLCREATEIMAGEKHRPROC)eglGetProcAddress("eglCreateImageKHR");
	gl->DestroyImageKHR = (PFNEGLDESTROYIMAGEKHRPROC)eglGetProcAddress("eglDestroyImageKHR");
	gl->QueryDmaBufFormatsEXT = (PFNEGLQUERYDMABUFFORMATSEXTPROC)eglGetProcAddress("eglQueryDmaBufFormatsEXT");
	gl->QueryDmaBufModifiersEXT =
		(PFNEGLQUERYDMABUFMODIFIERSEXTPROC)eglGetProcAddress("eglQueryDmaBufModifiersEXT");
}

/* Opens one display; registers a device if its context names its UUIDs.
 * Takes over the display reference either way. */
static void try_display(uda_context *ctx, EGLDisplay display, bool tracks_references, const char *what,
                        const uda_drm_node *primary, const uda_drm_node *render)
{
	EGLint major = 0, minor = 0;
	if (display == EGL_NO_DISPLAY || !eglInitialize(display, &major, &minor)) {
		uda_context_log(ctx, UDA_LOG_INFO, "gl: %s: no usable EGL display", what);
		return;
	}
	const char *egl_extensions = eglQueryString(display, EGL_EXTENSIONS);
	struct gl_device *device = calloc(1, sizeof(*device));
	if (!device) {
		if (tracks_references)
			eglTerminate(display);
		return;
	}
	device->display = display;
	device->owns_display_reference = tracks_references;
	pthread_mutex_init(&device->lock, NULL);
	if (primary)
		device->drm_primary = *primary;
	if (render)
		device->drm_render = *render;

	const char *problem = NULL;
	const EGLint context_attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 0, EGL_NONE};
	if (!has_word(egl_extensions, "EGL_KHR_surfaceless_context") ||
	    !has_word(egl_extensions, "EGL_KHR_no_config_context"))
		problem = "no surfaceless, config-less contexts";
	else {
		/* eglCreateContext takes the API bound on this thread: bind GLES
		 * for it, and give the application back what it had bound. */
		const EGLenum api = eglQueryAPI();
		if (eglBindAPI(EGL_OPENGL_ES_API))
			device->context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, context_attributes);
		eglBindAPI(api);
		if (device->context == EGL_NO_CONTEXT)
			problem = "no GLES 3 context";
	}

	struct gl_binding saved;
	if (!problem && !gl_device_enter(device, device->context, &saved))
		problem = "the context cannot be made current";
	if (!problem) {
		load_functions(&device->gl);
		const char *gl_extensions = (const char *)glGetString(GL_EXTENSIONS);
		const char *renderer = (const char *)glGetString(GL_RENDERER);
		snprintf(device->name, sizeof(device->name), "%s (GL)", renderer ? renderer : "?");
		/* GL names no driver but in its renderer string. */
		device->opaque_fds_are_mesa_files = renderer && strncmp(renderer, "llvmpipe", 8) == 0;
		if (!has_word(gl_extensions, "GL_EXT_memory_object") || !device->gl.GetUnsignedBytevEXT ||
		    !device->gl.GetUnsignedBytei_vEXT) {
			problem = "no GL_EXT_memory_object, so no device UUID";
		} else {
			device->gl.GetUnsignedBytei_vEXT(GL_DEVICE_UUID_EXT, 0, device->device_uuid);
			device->gl.GetUnsignedBytevEXT(GL_DRIVER_UUID_EXT, device->driver_uuid);
			device->has_memory_object_fd = has_word(gl_extensions, "GL_EXT_memory_object_fd") &&
			                               device->gl.ImportMemoryFdEXT && device->gl.TexStorageMem2DEXT &&
			                               device->gl.CreateMemoryObjectsEXT;
			device->has_dma_buf_import = has_word(egl_extensions, "EGL_EXT_image_dma_buf_import") &&
			                             has_word(gl_extensions, "GL_EXT_EGL_image_storage") &&
			                             device->gl.CreateImageKHR && device->gl.EGLImageTargetTexStorageEXT;
			device->has_dma_buf_modifiers = device->has_dma_buf_import &&
			                                has_word(egl_extensions, "EGL_EXT_image_dma_buf_import_modifiers") &&
			                                device->gl.QueryDmaBufModifiersEXT;
			glGetIntegerv(GL_MAX_TEXTURE_SIZE, &device->max_texture_size);
		}
		while (glGetError() != GL_NO_ERROR)
			;
		gl_device_leave(device, &saved);
	}
	if (!problem && !device->has_memory_object_fd && !device->has_dma_buf_import)
		problem = "imports neither opaque fds nor DMA-BUFs";
	if (problem) {
		uda_context_log(ctx, UDA_LOG_INFO, "gl: %s: %s", what, problem);
		gl_device_destroy(device);
		return;
	}

	uda_device_create_info info = {
		.type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.name = device->name,
		.backend_name = GL_BACKEND_NAME,
		.api = UDA_DEVICE_API_GL,
		.drm_primary = device->drm_primary,
		.drm_render = device->drm_render,
		.interface = &gl_device_interface,
		.device_data = device,
	};
	memcpy(info.device_uuid, device->device_uuid, UDA_UUID_SIZE);
	memcpy(info.driver_uuid, device->driver_uuid, UDA_UUID_SIZE);
	if (uda_context_add_device(ctx, &info, NULL) != UDA_SUCCESS) {
		/* Typically a second EGL device for hardware already found. */
		uda_context_log(ctx, UDA_LOG_INFO, "gl: %s: %s", what, uda_context_get_error(ctx));
		gl_device_destroy(device);
	}
}

static uda_result gl_load(uda_context *ctx, void **out_backend_data)
{
	*out_backend_data = NULL;
	const char *client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
	if (!client)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "gl: EGL has no client extensions");
	PFNEGLGETPLATFORMDISPLAYEXTPROC get_platform_display =
		(PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
	if (!get_platform_display)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "gl: no EGL_EXT_platform_base");
	/* Reference-counted displays can be terminated without breaking an
	 * application that opened the same one. */
	const bool references = has_word(client, "EGL_KHR_display_reference");
	const EGLint attributes[] = {EGL_TRACK_REFERENCES_KHR, EGL_TRUE, EGL_NONE};
	const EGLint *display_attributes = references ? attributes : NULL;

	PFNEGLQUERYDEVICESEXTPROC query_devices = (PFNEGLQUERYDEVICESEXTPROC)eglGetProcAddress("eglQueryDevicesEXT");
	PFNEGLQUERYDEVICESTRINGEXTPROC query_device_string =
		(PFNEGLQUERYDEVICESTRINGEXTPROC)eglGetProcAddress("eglQueryDeviceStringEXT");
	EGLDeviceEXT devices[MAX_EGL_DEVICES];
	EGLint device_count = 0;
	if (has_word(client, "EGL_EXT_platform_device") && query_devices && query_device_string &&
	    query_devices(MAX_EGL_DEVICES, devices, &device_count) && device_count > 0) {
		for (EGLint i = 0; i < device_count; i++) {
			const char *device_extensions = query_device_string(devices[i], EGL_EXTENSIONS);
			uda_drm_node primary = {0}, render = {0};
			if (has_word(device_extensions, "EGL_EXT_device_drm"))
				node_from_path(query_device_string(devices[i], EGL_DRM_DEVICE_FILE_EXT), &primary);
			if (has_word(device_extensions, "EGL_EXT_device_drm_render_node"))
				node_from_path(query_device_string(devices[i], EGL_DRM_RENDER_NODE_FILE_EXT), &render);
			char what[32];
			snprintf(what, sizeof(what), "EGL device %d", i);
			try_display(ctx, get_platform_display(EGL_PLATFORM_DEVICE_EXT, devices[i], display_attributes),
			            references, what, &primary, &render);
		}
	} else if (has_word(client, "EGL_MESA_platform_surfaceless")) {
		try_display(ctx, get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, display_attributes),
		            references, "surfaceless display", NULL, NULL);
	} else {
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
		                             "gl: neither EGL_EXT_platform_device nor EGL_MESA_platform_surfaceless");
	}
	return UDA_SUCCESS;
}

static const uda_backend_interface gl_backend_interface = {
	.version = UDA_BACKEND_INTERFACE_VERSION_1,
	.name = GL_BACKEND_NAME,
	.load = gl_load,
};

UDA_BACKEND_DEFINE_ENTRY_POINT(gl_backend_interface)
