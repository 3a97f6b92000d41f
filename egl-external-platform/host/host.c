/* The host's state: the real libEGL, the external platforms loaded from
 * their JSON manifests, the displays they returned, and the driver
 * imports (EGLExtDriver) the platforms call back into.
 *
 * An EGL implementation is process-wide by nature (EGLDisplay handles are
 * global), so this state is too: one lazily initialized instance. It is
 * never torn down: at exit, platforms' objects may refer to uda contexts
 * and EGL displays that are already gone, and unloading them then could
 * only crash. Everything stays reachable from here, so leak checkers do
 * not report it. */
#include <dirent.h>
#include <dlfcn.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host.h"

#define MAX_PLATFORMS 8
#define MAX_DISPLAYS 64

struct host {
	void *libegl;
	PFNEGLGETPROCADDRESSPROC real_get_proc_address;
	void *real[HOST_EP_COUNT];
	struct host_platform platforms[MAX_PLATFORMS];
	unsigned platform_count;

	pthread_mutex_t display_lock;
	struct {
		EGLDisplay display;
		struct host_platform *platform;
	} displays[MAX_DISPLAYS];
	unsigned display_count;
};

static struct host host = {.display_lock = PTHREAD_MUTEX_INITIALIZER};
static void ensure_init(void);
static pthread_once_t host_once = PTHREAD_ONCE_INIT;

static _Thread_local struct {
	bool owns; /* eglGetError answers `error`, not the real libEGL */
	EGLint error;
} thread_error;

static bool debug_enabled(void)
{
	const char *value = secure_getenv("UDA_EGL_HOST_DEBUG");
	return value && value[0] && strcmp(value, "0") != 0;
}

static void debug(const char *format, const char *detail)
{
	if (debug_enabled())
		fprintf(stderr, "uda-egl-host: %s%s\n", format, detail ? detail : "");
}

void host_error_set(EGLint error)
{
	thread_error.owns = true;
	thread_error.error = error;
}

void host_error_own(void)
{
	thread_error.owns = true;
	thread_error.error = EGL_SUCCESS;
}

void host_error_release(void)
{
	thread_error.owns = false;
}

bool host_error_take(EGLint *out_error)
{
	if (!thread_error.owns)
		return false;
	*out_error = thread_error.error;
	thread_error.owns = false;
	thread_error.error = EGL_SUCCESS;
	return true;
}

/* ---- EGLExtDriver: what platforms call back into ---------------------- */

static void *real_by_name(const char *name)
{
	enum host_entrypoint entrypoint = host_entrypoint_find(name);
	if (entrypoint != HOST_EP_COUNT)
		return host.real[entrypoint];
	void *function = dlsym(host.libegl, name);
	if (!function && host.real_get_proc_address)
		function = (void *)host.real_get_proc_address(name);
	return function;
}

/* Answers the platform's question "does this driver route framebuffer 0
 * of GL calls to me?" (uda's platform asks it to render windows direct). */
static void interposes_gl_marker(void)
{
}

static void *driver_get_proc_address(const char *name)
{
	if (name && strcmp(name, "udaEglHostInterposesGL") == 0)
		return (void *)interposes_gl_marker;
	return name ? real_by_name(name) : NULL;
}

void *host_real_gl(const char *name)
{
	ensure_init();
	return host.real_get_proc_address ? (void *)host.real_get_proc_address(name) : NULL;
}

static void driver_set_error(EGLint error, EGLint type, const char *message)
{
	(void)type;
	host_error_set(error);
	debug("platform error: ", message);
}

static void *driver_debug_message(EGLint type, const char *message)
{
	(void)type;
	debug("platform: ", message);
	return NULL;
}

static EGLint driver_stream_swap_interval(EGLStreamKHR stream, int *interval)
{
	(void)stream;
	(void)interval;
	return EGL_SUCCESS; /* no consumer here presents on its own */
}

static const EGLExtDriver host_driver = {
	.getProcAddress = driver_get_proc_address,
	.setError = driver_set_error,
	.debugMessage = driver_debug_message,
	.streamSwapInterval = driver_stream_swap_interval,
	.major = 1,
	.minor = 1,
};

/* ---- Platform manifests ------------------------------------------------ */

/* Platforms the real libEGL implements itself stay the real libEGL's:
 * a platform module written for another driver (NVIDIA's egl-wayland)
 * must not take them over. */
static bool real_libegl_has_platform(EGLenum platform)
{
	static const struct {
		EGLenum platform;
		const char *extension;
	} natives[] = {
		{EGL_PLATFORM_WAYLAND_KHR, "EGL_KHR_platform_wayland"}, {EGL_PLATFORM_WAYLAND_KHR, "EGL_EXT_platform_wayland"},
		{EGL_PLATFORM_X11_KHR, "EGL_KHR_platform_x11"},         {EGL_PLATFORM_X11_KHR, "EGL_EXT_platform_x11"},
		{EGL_PLATFORM_GBM_KHR, "EGL_KHR_platform_gbm"},         {EGL_PLATFORM_GBM_KHR, "EGL_MESA_platform_gbm"},
		{EGL_PLATFORM_DEVICE_EXT, "EGL_EXT_platform_device"},   {EGL_PLATFORM_SURFACELESS_MESA, "EGL_MESA_platform_surfaceless"},
	};
	PFNEGLQUERYSTRINGPROC query = (PFNEGLQUERYSTRINGPROC)host.real[HOST_EP_eglQueryString];
	const char *extensions = query ? query(EGL_NO_DISPLAY, EGL_EXTENSIONS) : NULL;
	for (size_t i = 0; extensions && i < sizeof(natives) / sizeof(natives[0]); i++) {
		if (natives[i].platform != platform)
			continue;
		const char *found = strstr(extensions, natives[i].extension);
		size_t length = strlen(natives[i].extension);
		if (found && (found[length] == ' ' || found[length] == '\0'))
			return true;
	}
	return false;
}

/* The user may pick uda's own Wayland platform over libEGL's: with
 * UDA_EGL_WAYLAND=1, a Wayland module that is uda's (it answers uda's
 * host hooks) serves EGL_PLATFORM_WAYLAND_KHR. Nothing changes for
 * programs run without it. */
static bool platform_chosen_over_libegl(struct host_platform *platform)
{
	if (platform->ext.platform != EGL_PLATFORM_WAYLAND_KHR)
		return false;
	const char *chosen = secure_getenv("UDA_EGL_WAYLAND");
	if (!chosen || strcmp(chosen, "1") != 0)
		return false;
	return platform->ext.exports.getHookAddress(platform->ext.data, "udaPlatformDefaultFramebuffer") != NULL;
}

static char *library_path_of(const char *manifest_path)
{
	json_object *root = json_object_from_file(manifest_path);
	if (!root) {
		debug("unreadable manifest ", manifest_path);
		return NULL;
	}
	char *path = NULL;
	json_object *version, *icd, *library;
	if (json_object_object_get_ex(root, "file_format_version", &version) &&
	    json_object_is_type(version, json_type_string) && strncmp(json_object_get_string(version), "1.", 2) == 0 &&
	    json_object_object_get_ex(root, "ICD", &icd) && json_object_object_get_ex(icd, "library_path", &library) &&
	    json_object_is_type(library, json_type_string)) {
		const char *value = json_object_get_string(library);
		const char *slash = strrchr(manifest_path, '/');
		/* A relative path with a slash is relative to the manifest. */
		if (value[0] != '/' && strchr(value, '/') && slash) {
			size_t length = (size_t)(slash - manifest_path) + 1 + strlen(value) + 1;
			path = malloc(length);
			if (path)
				snprintf(path, length, "%.*s/%s", (int)(slash - manifest_path), manifest_path, value);
		} else {
			path = strdup(value);
		}
	} else {
		debug("manifest without file_format_version 1.x and ICD.library_path: ", manifest_path);
	}
	json_object_put(root);
	return path;
}

/* A module the manifest names by file name alone is the dynamic linker's
 * to find (installed manifests name uda's platforms so, for NVIDIA's
 * libEGL); where it finds none (a prefix whose folder ld.so.cache does not
 * list yet, a package unpacked into a folder of its own), the folder this
 * host was loaded from, where uda installs the platforms beside it. */
static void *open_module(const char *path)
{
	void *module = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	Dl_info self;
	if (module || strchr(path, '/') || !dladdr((void *)open_module, &self) || !self.dli_fname)
		return module;
	const char *slash = strrchr(self.dli_fname, '/');
	char beside[4096];
	if (slash && snprintf(beside, sizeof(beside), "%.*s/%s", (int)(slash - self.dli_fname), self.dli_fname, path) <
	                     (int)sizeof(beside))
		module = dlopen(beside, RTLD_NOW | RTLD_LOCAL);
	return module;
}

static void load_platform(const char *manifest_path)
{
	if (host.platform_count == MAX_PLATFORMS)
		return;
	char *path = library_path_of(manifest_path);
	if (!path)
		return;
	for (unsigned i = 0; i < host.platform_count; i++) {
		if (strcmp(host.platforms[i].path, path) == 0) {
			free(path);
			return; /* listed twice */
		}
	}
	void *module = open_module(path);
	PEGLEXTFNLOADEGLEXTERNALPLATFORM load =
	        module ? (PEGLEXTFNLOADEGLEXTERNALPLATFORM)dlsym(module, "loadEGLExternalPlatform") : NULL;
	struct host_platform *platform = &host.platforms[host.platform_count];
	memset(platform, 0, sizeof(*platform));
	if (!load || !load(host_driver.major, host_driver.minor, &host_driver, &platform->ext) ||
	    !platform->ext.exports.getHookAddress || !platform->ext.exports.getPlatformDisplay ||
	    !platform->ext.exports.getInternalHandle) {
		debug("cannot load the platform in ", path);
		if (module)
			dlclose(module);
		free(path);
		return;
	}
	if (real_libegl_has_platform(platform->ext.platform) && !platform_chosen_over_libegl(platform)) {
		debug("leaving a platform libEGL has natively to libEGL: ", path);
		if (platform->ext.exports.unloadEGLExternalPlatform)
			platform->ext.exports.unloadEGLExternalPlatform(platform->ext.data);
		dlclose(module);
		free(path);
		return;
	}
	platform->module = module;
	platform->path = path;
	for (unsigned i = 0; i < HOST_EP_COUNT; i++)
		platform->hooks[i] = platform->ext.exports.getHookAddress(platform->ext.data, host_entrypoint_names[i]);
	platform->default_framebuffer = (unsigned (*)(void))platform->ext.exports.getHookAddress(
	        platform->ext.data, "udaPlatformDefaultFramebuffer");
	platform->release_current =
	        (void (*)(void))platform->ext.exports.getHookAddress(platform->ext.data, "udaPlatformReleaseCurrent");
	platform->release_thread =
	        (void (*)(void))platform->ext.exports.getHookAddress(platform->ext.data, "udaPlatformReleaseThread");
	host.platform_count++;
	debug("loaded platform ", path);
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void load_directory(const char *directory)
{
	DIR *dir = opendir(directory);
	if (!dir)
		return;
	char *names[256];
	size_t count = 0;
	const struct dirent *entry;
	while ((entry = readdir(dir)) && count < 256) {
		size_t length = strlen(entry->d_name);
		if (length > 5 && strcmp(entry->d_name + length - 5, ".json") == 0)
			names[count++] = strdup(entry->d_name);
	}
	closedir(dir);
	qsort(names, count, sizeof(names[0]), compare_names);
	for (size_t i = 0; i < count; i++) {
		if (names[i]) {
			char path[4096];
			snprintf(path, sizeof(path), "%s/%s", directory, names[i]);
			load_platform(path);
		}
		free(names[i]);
	}
}

static void for_each_entry(const char *list, void (*visit)(const char *))
{
	char *copy = strdup(list);
	char *saved = NULL;
	for (char *item = copy ? strtok_r(copy, ":", &saved) : NULL; item; item = strtok_r(NULL, ":", &saved))
		visit(item);
	free(copy);
}

/* NVIDIA's libEGL reads the names with two leading underscores (seen on
 * 580.159: it ignores the plain ones); uda's documentation named the plain
 * ones first, so both are read, NVIDIA's first. Never when setuid. */
static const char *config_variable(const char *nvidia_name)
{
	const char *value = secure_getenv(nvidia_name);
	if (!value || !value[0])
		value = secure_getenv(nvidia_name + 2);
	return value && value[0] ? value : NULL;
}

static void load_platforms(void)
{
	const char *files = config_variable("__EGL_EXTERNAL_PLATFORM_CONFIG_FILENAMES");
	if (files) {
		for_each_entry(files, load_platform);
		return;
	}
	const char *dirs = config_variable("__EGL_EXTERNAL_PLATFORM_CONFIG_DIRS");
	for_each_entry(dirs ? dirs : "/etc/egl/egl_external_platform.d:" UDA_EGL_HOST_DATADIR
	                                         "/egl/egl_external_platform.d:/usr/share/egl/egl_external_platform.d",
	               load_directory);
}

static void host_init(void)
{
	host.libegl = dlopen("libEGL.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!host.libegl) {
		debug("cannot load libEGL.so.1: ", dlerror());
		return;
	}
	host.real_get_proc_address = (PFNEGLGETPROCADDRESSPROC)dlsym(host.libegl, "eglGetProcAddress");
	for (unsigned i = 0; i < HOST_EP_COUNT; i++) {
		const char *name = host_entrypoint_names[i];
		host.real[i] = dlsym(host.libegl, name);
		if (!host.real[i] && host.real_get_proc_address)
			host.real[i] = (void *)host.real_get_proc_address(name);
		/* Never ourselves: that would recurse. */
		if (host.real[i] == host_entrypoint_functions[i])
			host.real[i] = NULL;
	}
	load_platforms();
}

static void ensure_init(void)
{
	pthread_once(&host_once, host_init);
}

void *host_real(enum host_entrypoint entrypoint)
{
	ensure_init();
	return entrypoint < HOST_EP_COUNT ? host.real[entrypoint] : NULL;
}

struct host_platform *host_platforms(unsigned *count)
{
	ensure_init();
	*count = host.platform_count;
	return host.platforms;
}

struct host_platform *host_platform_of_display(EGLDisplay dpy)
{
	if (dpy == EGL_NO_DISPLAY)
		return NULL;
	pthread_mutex_lock(&host.display_lock);
	struct host_platform *platform = NULL;
	for (unsigned i = 0; i < host.display_count && !platform; i++) {
		if (host.displays[i].display == dpy)
			platform = host.displays[i].platform;
	}
	pthread_mutex_unlock(&host.display_lock);
	return platform;
}

void host_register_display(struct host_platform *platform, EGLDisplay dpy)
{
	pthread_mutex_lock(&host.display_lock);
	bool known = false;
	for (unsigned i = 0; i < host.display_count; i++)
		known = known || host.displays[i].display == dpy;
	if (!known && host.display_count < MAX_DISPLAYS) {
		host.displays[host.display_count].display = dpy;
		host.displays[host.display_count].platform = platform;
		host.display_count++;
	}
	pthread_mutex_unlock(&host.display_lock);
}

bool host_call_begin(struct host_call *call, EGLDisplay dpy, enum host_entrypoint entrypoint)
{
	ensure_init();
	struct host_platform *platform = host_platform_of_display(dpy);
	if (!platform) {
		host_error_release();
		return false;
	}
	*call = (struct host_call){.platform = platform, .display = dpy, .hook = platform->hooks[entrypoint]};
	if (call->hook)
		host_error_own();
	return true;
}

bool host_call_translated(struct host_call *call)
{
	host_error_release();
	call->internal = call->platform->ext.exports.getInternalHandle(call->display, EGL_OBJECT_DISPLAY_KHR,
	                                                               call->display);
	if (!call->internal) {
		host_error_set(EGL_BAD_DISPLAY);
		return false;
	}
	return true;
}

EGLSurface host_call_surface(const struct host_call *call, EGLSurface surface)
{
	if (surface == EGL_NO_SURFACE)
		return surface;
	return call->platform->ext.exports.getInternalHandle(call->display, EGL_OBJECT_SURFACE_KHR, surface);
}

void host_hook_end(bool failed)
{
	if (!failed) {
		/* Success: EGL_SUCCESS, whatever failed inside. The driver's own
		 * error is cleared rather than covered, so the next call that
		 * goes straight to it (eglBindAPI...) reports its own. */
		PFNEGLGETERRORPROC get_error = (PFNEGLGETERRORPROC)host.real[HOST_EP_eglGetError];
		if (get_error)
			get_error();
		host_error_release();
	} else if (!thread_error.owns || thread_error.error == EGL_SUCCESS) {
		host_error_release(); /* the driver failed it: its error */
	}
}
