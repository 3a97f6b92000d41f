/* EGL displays of wl_displays: the connection the platform keeps on its
 * own event queue, the globals the compositor offers, and the uda devices
 * that render for it. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <uda/uda_gl.h>

#include "wayland_platform.h"

bool wayland_readable(const void *pointer, size_t size)
{
	if (!pointer)
		return false;
	const long page_size = sysconf(_SC_PAGESIZE);
	uintptr_t first = (uintptr_t)pointer & ~((uintptr_t)page_size - 1);
	uintptr_t last = ((uintptr_t)pointer + size - 1) & ~((uintptr_t)page_size - 1);
	unsigned char resident = 0;
	for (uintptr_t page = first; page <= last; page += (uintptr_t)page_size) {
		if (mincore((void *)page, (size_t)page_size, &resident) != 0)
			return false;
	}
	return true;
}

/* The first word of whatever object `native` is. Object sizes are not
 * known here (eglGetDisplay asks every platform about every native), so
 * the read may run past a small object into mapped memory: harmless, and
 * out of AddressSanitizer's view on purpose. */
__attribute__((no_sanitize("address"))) static const void *first_word(const void *native)
{
	const void *word;
	memcpy(&word, native, sizeof(word));
	return word;
}

/* A wl_display's first word is its interface, &wl_display_interface. */
static bool is_wl_display(void *native)
{
	return wayland_readable(native, sizeof(void *)) && first_word(native) == &wl_display_interface;
}

static bool wayland_display_is_native(void *native)
{
	return is_wl_display(native);
}

static const struct platform_display_impl wayland_display_impl;
static void wayland_unload(struct uda_platform *platform);

static EGLDisplay wayland_get_display(struct uda_platform *platform, EGLenum type, void *native,
                                      const EGLAttrib *attribs)
{
	if (type != EGL_PLATFORM_WAYLAND_KHR) {
		platform_set_error(platform, EGL_BAD_PARAMETER, "uda Wayland platform: asked for platform 0x%x", type);
		return EGL_NO_DISPLAY;
	}
	for (const EGLAttrib *a = attribs; a && a[0] != EGL_NONE; a += 2) {
		platform_set_error(platform, EGL_BAD_ATTRIBUTE, "eglGetPlatformDisplay: attribute 0x%lx",
		                   (unsigned long)a[0]);
		return EGL_NO_DISPLAY;
	}
	/* EGL_DEFAULT_DISPLAY: the platform connects to $WAYLAND_DISPLAY
	 * itself at eglInitialize, as Mesa's and NVIDIA's platforms do. */
	if (native && !is_wl_display(native)) {
		platform_set_error(platform, EGL_BAD_PARAMETER, "eglGetPlatformDisplay: %p is not a wl_display", native);
		return EGL_NO_DISPLAY;
	}
	return platform_display_of_native(platform, native, &wayland_display_impl);
}

const struct platform_module platform_module_wayland = {
	.platform = EGL_PLATFORM_WAYLAND_KHR,
	.client_extensions = "EGL_KHR_platform_wayland EGL_EXT_platform_wayland",
	.is_native_display = wayland_display_is_native,
	.get_display = wayland_get_display,
	.unload = wayland_unload,
};

/* What came for `queue`; for a window's, what came for the display's too
 * (its default feedback), where no other thread is at it. */
static int dispatch_pending(struct wayland_display *wayland, struct wl_event_queue *queue)
{
	struct wl_display *native = wayland->native;
	if (queue == wayland->queue) {
		pthread_mutex_lock(&wayland->lock);
		const int dispatched = wl_display_dispatch_queue_pending(native, queue);
		pthread_mutex_unlock(&wayland->lock);
		return dispatched < 0 ? -1 : 1;
	}
	if (pthread_mutex_trylock(&wayland->lock) == 0) {
		if (wayland->queue)
			wl_display_dispatch_queue_pending(native, wayland->queue);
		pthread_mutex_unlock(&wayland->lock);
	}
	return wl_display_dispatch_queue_pending(native, queue) < 0 ? -1 : 1;
}

int wayland_display_dispatch(struct wayland_display *wayland, struct wl_event_queue *queue, int timeout_ms)
{
	struct wl_display *native = wayland->native;
	if (wl_display_prepare_read_queue(native, queue) != 0)
		return dispatch_pending(wayland, queue);
	/* Requests must be out before waiting for their answers; a full
	 * socket (EAGAIN) drains while we poll. */
	if (wl_display_flush(native) < 0 && errno != EAGAIN) {
		wl_display_cancel_read(native);
		return -1;
	}
	struct pollfd fd = {.fd = wl_display_get_fd(native), .events = POLLIN};
	int ready;
	do
		ready = poll(&fd, 1, timeout_ms);
	while (ready < 0 && errno == EINTR);
	if (ready <= 0) {
		wl_display_cancel_read(native);
		return ready == 0 ? 0 : -1;
	}
	if (wl_display_read_events(native) < 0)
		return -1;
	return dispatch_pending(wayland, queue);
}

bool wayland_display_wait_for(struct wayland_display *wayland, struct wl_event_queue *queue, const bool *flag,
                              int timeout_ms)
{
	const int64_t deadline = wayland_now_ms() + timeout_ms;
	while (!*flag) {
		int64_t left = deadline - wayland_now_ms();
		if (left <= 0 || wayland_display_dispatch(wayland, queue, (int)left) < 0)
			break;
	}
	return *flag;
}

int64_t wayland_now_ms(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

static void sync_done(void *data, struct wl_callback *callback, uint32_t serial)
{
	(void)serial;
	*(bool *)data = true;
	wl_callback_destroy(callback);
}

static const struct wl_callback_listener sync_listener = {.done = sync_done};

/* wl_display_roundtrip_queue, bounded in time. */
static bool roundtrip(struct wayland_display *wayland)
{
	bool done = false;
	struct wl_callback *callback = wl_display_sync(wayland->wrapper);
	if (!callback)
		return false;
	wl_callback_add_listener(callback, &sync_listener, &done);
	if (!wayland_display_wait_for(wayland, wayland->queue, &done, WAYLAND_ANSWER_TIMEOUT_MS))
		wl_callback_destroy(callback);
	return done;
}

static void shm_format(void *data, struct wl_shm *shm, uint32_t format)
{
	(void)shm;
	struct wayland_display *wayland = data;
	if (wayland->shm_format_count < WAYLAND_MAX_SHM_FORMATS &&
	    !wayland_display_has_shm_format(wayland, format))
		wayland->shm_formats[wayland->shm_format_count++] = format;
}

static const struct wl_shm_listener shm_listener = {.format = shm_format};

static void registry_global(void *data, struct wl_registry *registry, uint32_t name, const char *interface,
                            uint32_t version)
{
	struct wayland_display *wayland = data;
	if (strcmp(interface, wl_shm_interface.name) == 0 && !wayland->shm) {
		wayland->shm = wl_registry_bind(registry, name, &wl_shm_interface, 1);
		if (wayland->shm)
			wl_shm_add_listener(wayland->shm, &shm_listener, wayland);
	} else if (strcmp(interface, "zwp_linux_dmabuf_v1") == 0) {
		wayland_dmabuf_bind(wayland, registry, name, version);
	} else if (strcmp(interface, "uda_allocation_manager_v1") == 0) {
		wayland_uda_bind(wayland, registry, name);
	}
}

static void registry_global_remove(void *data, struct wl_registry *registry, uint32_t name)
{
	(void)data;
	(void)registry;
	(void)name;
}

static const struct wl_registry_listener registry_listener = {
	.global = registry_global,
	.global_remove = registry_global_remove,
};

bool wayland_display_has_shm_format(const struct wayland_display *wayland, uint32_t format)
{
	for (uint32_t i = 0; i < wayland->shm_format_count; i++) {
		if (wayland->shm_formats[i] == format)
			return true;
	}
	return false;
}

/* The GL device renders; a device of the same hardware that allocates
 * (its Vulkan device) gives the memory GL renders into; the system device
 * gives wl_shm's memory. */
static bool choose_devices(struct wayland_devices *chosen)
{
	uint32_t count = 0;
	if (uda_context_enumerate_devices(chosen->context, &count, NULL) != UDA_SUCCESS || count == 0)
		return false;
	uda_device **devices = calloc(count, sizeof(*devices));
	if (!devices || uda_context_enumerate_devices(chosen->context, &count, devices) != UDA_SUCCESS) {
		free(devices);
		return false;
	}
	for (uint32_t i = 0; i < count; i++) {
		uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
		if (uda_device_get_info(devices[i], &info) != UDA_SUCCESS)
			continue;
		if (info.api == UDA_DEVICE_API_CPU && !chosen->system)
			chosen->system = devices[i];
		if (info.api != UDA_DEVICE_API_GL || chosen->gl)
			continue;
		for (uint32_t j = 0; j < count; j++) {
			uda_device_info other = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
			if (j != i && uda_device_get_info(devices[j], &other) == UDA_SUCCESS &&
			    other.api == UDA_DEVICE_API_VULKAN && uda_device_same_hardware(devices[i], devices[j])) {
				chosen->gl = devices[i];
				chosen->allocator = devices[j];
				platform_debug("Wayland: GL device %s renders, its Vulkan device allocates", info.name);
				break;
			}
		}
	}
	free(devices);
	return chosen->gl && chosen->system;
}

static void devices_destroy(struct wayland_devices *devices)
{
	if (devices)
		uda_context_destroy(devices->context);
	free(devices);
}

/* The module's devices, made by the first display that needs them. The
 * platform's lock is not held while uda loads its backends: the GL
 * backend calls EGL, which may call back into the platform. */
static struct wayland_devices *module_devices(struct uda_platform *platform)
{
	pthread_mutex_lock(&platform->lock);
	struct wayland_devices *devices = platform->module_data;
	pthread_mutex_unlock(&platform->lock);
	if (devices)
		return devices;
	struct wayland_devices *made = calloc(1, sizeof(*made));
	if (!made || uda_context_create(NULL, &made->context) != UDA_SUCCESS || !choose_devices(made)) {
		devices_destroy(made);
		return NULL;
	}
	pthread_mutex_lock(&platform->lock);
	if (!platform->module_data) {
		platform->module_data = made;
		made = NULL;
	}
	devices = platform->module_data;
	pthread_mutex_unlock(&platform->lock);
	devices_destroy(made); /* another thread was first */
	return devices;
}

static void wayland_unload(struct uda_platform *platform)
{
	devices_destroy(platform->module_data);
	platform->module_data = NULL;
}

/* Windows that outlive eglTerminate (current on a thread) keep their own
 * queues and objects; only the display's go. */
static void disconnect(struct wayland_display *wayland)
{
	pthread_mutex_lock(&wayland->lock);
	wayland_dmabuf_unbind(wayland);
	wayland_uda_unbind(wayland);
	if (wayland->shm)
		wl_shm_destroy(wayland->shm);
	if (wayland->registry)
		wl_registry_destroy(wayland->registry);
	if (wayland->wrapper)
		wl_proxy_wrapper_destroy(wayland->wrapper);
	if (wayland->queue)
		wl_event_queue_destroy(wayland->queue);
	wayland->shm = NULL;
	wayland->registry = NULL;
	wayland->wrapper = NULL;
	wayland->queue = NULL;
	wayland->shm_format_count = 0;
	pthread_mutex_unlock(&wayland->lock);
}

static bool connect_display(struct wayland_display *wayland)
{
	wayland->queue = wl_display_create_queue(wayland->native);
	wayland->wrapper = wayland->queue ? wl_proxy_create_wrapper(wayland->native) : NULL;
	if (!wayland->wrapper)
		return false;
	wl_proxy_set_queue((struct wl_proxy *)wayland->wrapper, wayland->queue);
	wayland->registry = wl_display_get_registry(wayland->wrapper);
	if (!wayland->registry)
		return false;
	wl_registry_add_listener(wayland->registry, &registry_listener, wayland);
	/* The globals, then what the bound ones announce (shm formats). */
	return roundtrip(wayland) && roundtrip(wayland);
}

static bool wayland_initialize(struct platform_display *display)
{
	struct uda_platform *platform = display->platform;
	struct wayland_display *wayland = display->impl_data;
	if (!wayland) {
		wayland = calloc(1, sizeof(*wayland));
		if (!wayland) {
			platform_set_error(platform, EGL_BAD_ALLOC, "eglInitialize: out of memory");
			return false;
		}
		wayland->display = display;
		wayland->native = display->native;
		pthread_mutex_init(&wayland->lock, NULL);
		display->impl_data = wayland;
	}
	if (!wayland->native) {
		wayland->native = wl_display_connect(NULL);
		if (!wayland->native) {
			platform_set_error(platform, EGL_NOT_INITIALIZED, "eglInitialize: no Wayland compositor to connect to");
			return false;
		}
	}
	const struct wayland_devices *devices = module_devices(platform);
	if (!devices) {
		platform_set_error(platform, EGL_NOT_INITIALIZED,
		                   "eglInitialize: uda found no GL device with a device that allocates for it");
		return false;
	}
	wayland->context = devices->context;
	wayland->gl = devices->gl;
	wayland->allocator = devices->allocator;
	wayland->system = devices->system;
	uda_gl_device_native gl_native = {.type = UDA_STRUCTURE_TYPE_GL_DEVICE_NATIVE};
	if (uda_device_get_native(wayland->gl, &gl_native) != UDA_SUCCESS) {
		platform_set_error(platform, EGL_NOT_INITIALIZED, "eglInitialize: the GL device has no EGL display");
		return false;
	}
	if (!connect_display(wayland)) {
		disconnect(wayland);
		platform_set_error(platform, EGL_NOT_INITIALIZED, "eglInitialize: the compositor did not answer");
		return false;
	}
	const struct feedback *feedback = wayland_dmabuf_feedback(wayland);
	platform_debug("Wayland: wl_shm with %u formats; zwp_linux_dmabuf_v1 %s%u, %u tranche(s)%s; uda's protocol %s",
	               wayland->shm_format_count, wayland->dmabuf_version ? "version " : "absent ",
	               wayland->dmabuf_version, feedback ? feedback->tranche_count : 0,
	               feedback && feedback->has_main_device ? " for a main device" : "",
	               wayland->uda_manager ? "offered" : "absent");
	pthread_mutex_lock(&platform->lock);
	display->device = wayland->gl;
	display->internal = gl_native.egl_display;
	pthread_mutex_unlock(&platform->lock);
	return true;
}

static void wayland_terminate(struct platform_display *display)
{
	struct wayland_display *wayland = display->impl_data;
	if (wayland)
		disconnect(wayland);
}

/* The uda context stays with the module: contexts the application made
 * on the GL device's display may stay current past eglTerminate (EGL
 * 1.5, 3.2), so its display must too. */
static void wayland_destroy(struct platform_display *display)
{
	struct wayland_display *wayland = display->impl_data;
	if (!wayland)
		return;
	disconnect(wayland);
	if (!display->native && wayland->native)
		wl_display_disconnect(wayland->native);
	pthread_mutex_destroy(&wayland->lock);
	free(wayland);
	display->impl_data = NULL;
}

static const struct platform_display_impl wayland_display_impl = {
	.initialize = wayland_initialize,
	.terminate = wayland_terminate,
	.destroy = wayland_destroy,
	.create_window = wayland_window_create,
};
