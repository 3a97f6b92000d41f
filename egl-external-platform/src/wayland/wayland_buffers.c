/* A Wayland window's buffers: negotiated with the compositor (its
 * linux-dmabuf feedback, its devices where uda knows them) for zero-copy
 * DMA-BUFs, or readable by the CPU for the wl_shm copy where nothing is
 * common; negotiated again when the surface's feedback changes; and the
 * wl_buffers of the DMA-BUF ones. */
#include <drm_fourcc.h>
#include <string.h>

#include "wayland_platform.h"

static const uda_usage_atom render_atoms[] = {{UDA_VENDOR_NONE, UDA_USAGE_RENDER_TARGET, 0, NULL}};
static const uda_usage_atom sampled_atoms[] = {{UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, NULL}};
static const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
static const uda_usage_atom read_atoms[] = {{UDA_VENDOR_NONE, UDA_USAGE_CPU_READ, sizeof(often), often}};
static const uda_usage render_usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, render_atoms};
static const uda_usage sampled_usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, sampled_atoms};
static const uda_usage cpu_read_usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, read_atoms};
static const uda_usage_atom scanout_atoms[] = {{UDA_VENDOR_NONE, UDA_USAGE_SCANOUT, 0, NULL}};
static const uda_usage scanout_usage = {UDA_STRUCTURE_TYPE_USAGE, NULL, 1, scanout_atoms};

/* Which default feedback the display holds: version 4's counts its
 * changes; version 3's format list never changes. */
static uint64_t default_generation(const struct wayland_display *wayland)
{
	return wayland->dmabuf_version >= 4 ? wayland->default_feedback.receiver.generation : 0;
}

/* The feedback the window's buffers follow: its own (version 4) once it
 * came, else the display's. */
static const struct feedback *window_feedback(const struct wayland_window *window, uint64_t *out_generation)
{
	*out_generation = 0;
	if (window->feedback.object && window->feedback.receiver.received) {
		*out_generation = window->feedback.receiver.generation;
		return &window->feedback.receiver.current;
	}
	return wayland_dmabuf_feedback(window->wayland);
}

static uda_surface *create_surface(struct wayland_display *wayland, const uda_device_usage *devices, uint32_t count,
                                   const void *next, uint32_t width, uint32_t height, uint32_t format)
{
	const uda_surface_create_info info = {
		.type = UDA_STRUCTURE_TYPE_SURFACE_CREATE_INFO,
		.next = next,
		.width = width,
		.height = height,
		.format = format,
		.device_count = count,
		.devices = devices,
		.present_mode = UDA_PRESENT_MODE_FIFO,
	};
	uda_surface *buffers = NULL;
	if (uda_surface_create(wayland->context, &info, &buffers) != UDA_SUCCESS)
		return NULL;
	return buffers;
}

/* Zero-copy buffers: negotiated between the GL device (which renders),
 * the device that allocates for it, and the compositor: the sets of its
 * feedback (DMA-BUF of the modifiers it listed, its order kept) and its
 * devices where uda knows them: its GPU (sampling) and, while a scanout
 * tranche lasts, its display (scanning out), whose constraints (pitch,
 * size, placement) a layout alone does not carry. Buffers the display
 * cannot take are still buffers the compositor composites: negotiated
 * again without it. NULL where nothing is common. */
static uda_surface *negotiate_dmabuf(struct wayland_window *window, const struct feedback *feedback, uint32_t width,
                                     uint32_t height)
{
	struct wayland_display *wayland = window->wayland;
	struct feedback_negotiation negotiation;
	if (!wayland->dmabuf ||
	    feedback_negotiation_init(&negotiation, feedback, wayland->context, window->format) != UDA_SUCCESS)
		return NULL;
	uda_device_usage devices[4] = {{wayland->gl, &render_usage}, {wayland->allocator, &render_usage}};
	uint32_t count = 2;
	uda_device *reader = negotiation.reader, *display = negotiation.display;
	if (reader && reader != wayland->gl && reader != wayland->allocator)
		devices[count++] = (uda_device_usage){reader, &sampled_usage};
	if (display)
		devices[count++] = (uda_device_usage){display, &scanout_usage};
	uda_surface *buffers = create_surface(wayland, devices, count, &negotiation.peer, width, height, window->format);
	if (!buffers && display) {
		platform_debug("Wayland: no DMA-BUF buffers its display scans out (%s): buffers for composition",
		               uda_context_get_error(wayland->context));
		buffers = create_surface(wayland, devices, count - 1, &negotiation.peer, width, height, window->format);
		display = NULL;
	}
	platform_debug("Wayland: DMA-BUF buffers with the compositor's %u modifier(s)%s%s: %s", negotiation.ranking.count,
	               reader ? ", its GPU" : "", display ? ", its display" : "",
	               buffers ? "negotiated" : uda_context_get_error(wayland->context));
	feedback_negotiation_finish(&negotiation);
	return buffers;
}

/* Zero-copy buffers from the compositor's own sets (uda's protocol):
 * constraints, placement and handle types included, not only layouts. */
static uda_surface *negotiate_uda(struct wayland_window *window, const uda_capability_set_list *sets, uint32_t width,
                                  uint32_t height)
{
	struct wayland_display *wayland = window->wayland;
	const uda_negotiation_peer_info peer = {UDA_STRUCTURE_TYPE_NEGOTIATION_PEER_INFO, NULL, sets};
	const uda_device_usage devices[] = {{wayland->gl, &render_usage}, {wayland->allocator, &render_usage}};
	uda_surface *buffers = create_surface(wayland, devices, 2, &peer, width, height, window->format);
	platform_debug("Wayland: buffers with the compositor's capability sets (uda's protocol): %s",
	               buffers ? "negotiated" : uda_context_get_error(wayland->context));
	return buffers;
}

/* The fallback: GL renders into memory the CPU can read, which copies
 * each frame into wl_shm memory. */
static uda_surface *negotiate_shm(struct wayland_window *window, uint32_t width, uint32_t height)
{
	struct wayland_display *wayland = window->wayland;
	const uda_device_usage devices[] = {{wayland->gl, &render_usage}, {wayland->allocator, &cpu_read_usage}};
	uda_surface *buffers = create_surface(wayland, devices, 2, NULL, width, height, window->format);
	if (!buffers)
		platform_debug("Wayland: no CPU-readable buffers either: %s", uda_context_get_error(wayland->context));
	return buffers;
}

/* A release finds its buffer by its wl_buffer: slots are reused, and a
 * buffer may be retiring while buffers are negotiated anew. */
static void dmabuf_buffer_release(void *data, struct wl_buffer *wl_buffer)
{
	struct wayland_window *window = data;
	struct wayland_dmabuf_buffer *buffer = NULL;
	for (uint32_t i = 0; i < UDA_SURFACE_MAX_BUFFERS && !buffer; i++) {
		if (window->dmabuf[i].buffer == wl_buffer)
			buffer = &window->dmabuf[i];
		else if (window->retiring[i].buffer == wl_buffer)
			buffer = &window->retiring[i];
	}
	if (!buffer || !buffer->busy)
		return; /* a compositor that releases twice */
	buffer->busy = false;
	uda_surface_release(window->surface->window, buffer->buffer_id);
}

static const struct wl_buffer_listener dmabuf_buffer_listener = {.release = dmabuf_buffer_release};

void wayland_buffers_forget(struct wayland_window *window)
{
	for (uint32_t i = 0; i < UDA_SURFACE_MAX_BUFFERS; i++) {
		if (window->dmabuf[i].buffer)
			wl_buffer_destroy(window->dmabuf[i].buffer);
		window->dmabuf[i] = (struct wayland_dmabuf_buffer){0};
	}
}

/* The layout of one buffer: the uda_surface negotiates again for a new
 * size, and per-modifier limits (a maximum width) may pick another then. */
static uint64_t allocation_modifier(uda_allocation *allocation)
{
	uint64_t modifier = DRM_FORMAT_MOD_INVALID;
	const uda_capability_set_list *set = NULL;
	if (uda_allocation_get_capability_set(allocation, &set) == UDA_SUCCESS)
		uda_capability_set_list_get_modifier(set, 0, &modifier);
	return modifier;
}

/* The wl_buffer of a DMA-BUF buffer, made on first use. */
struct wayland_dmabuf_buffer *wayland_buffers_dmabuf_of(struct wayland_window *window, enum wayland_buffer_path path,
                                                        uint64_t buffer_id, uda_allocation *allocation)
{
	struct wayland_dmabuf_buffer *free_slot = NULL;
	for (uint32_t i = 0; i < UDA_SURFACE_MAX_BUFFERS; i++) {
		if (window->dmabuf[i].buffer && window->dmabuf[i].buffer_id == buffer_id)
			return &window->dmabuf[i];
		if (!window->dmabuf[i].buffer && !free_slot)
			free_slot = &window->dmabuf[i];
	}
	if (!free_slot) {
		/* Buffers retired by a resize leave their slots to new ones. */
		for (uint32_t i = 0; i < UDA_SURFACE_MAX_BUFFERS && !free_slot; i++) {
			if (!window->dmabuf[i].busy) {
				wl_buffer_destroy(window->dmabuf[i].buffer);
				window->dmabuf[i] = (struct wayland_dmabuf_buffer){0};
				free_slot = &window->dmabuf[i];
			}
		}
		if (!free_slot)
			return NULL;
	}
	struct wl_buffer *buffer = path == WAYLAND_PATH_UDA
	                                   ? wayland_uda_create_buffer(window, allocation)
	                                   : wayland_dmabuf_create_buffer(window, allocation,
	                                                                  allocation_modifier(allocation));
	if (!buffer)
		return NULL;
	*free_slot = (struct wayland_dmabuf_buffer){buffer_id, buffer, false};
	wl_buffer_add_listener(buffer, &dmabuf_buffer_listener, window);
	return free_slot;
}

/* Buffers for the window at this size: DMA-BUFs the compositor takes
 * where its feedback and uda's devices agree on one (the first one is
 * offered to it at once, so a refusal falls back here, not at a swap),
 * else wl_shm copies. */
uda_surface *wayland_buffers_negotiate(struct wayland_window *window, uint32_t width, uint32_t height)
{
	uint64_t generation = 0;
	wayland_buffers_forget(window);
	/* The default feedback is the display queue's, which another
	 * window's thread may be dispatching: read under the lock. */
	pthread_mutex_lock(&window->wayland->lock);
	const struct feedback *feedback = window_feedback(window, &generation);
	window->negotiated_generation = generation;
	window->negotiated_default = feedback && feedback == wayland_dmabuf_feedback(window->wayland);
	window->negotiated_default_generation = default_generation(window->wayland);
	window->negotiated_uda_generation = window->uda_sets.generation;
	/* uda's protocol first: the compositor took these sets from its own
	 * devices, whole. A buffer it cannot import is a protocol error
	 * there, so no buffer is offered ahead. */
	const uda_capability_set_list *uda_sets = uda_sets_receiver_find(&window->uda_sets, window->format);
	uda_surface *buffers = uda_sets && !window->uda_refused ? negotiate_uda(window, uda_sets, width, height) : NULL;
	const bool by_uda = buffers != NULL;
	if (!buffers && feedback && !window->dmabuf_refused)
		buffers = negotiate_dmabuf(window, feedback, width, height);
	pthread_mutex_unlock(&window->wayland->lock);
	if (by_uda) {
		window->path = WAYLAND_PATH_UDA;
		platform_debug("Wayland: %ux%u frames go to the compositor through uda's protocol", width, height);
		return buffers;
	}
	if (buffers) {
		uda_surface_buffer first;
		struct wayland_dmabuf_buffer *offered = NULL;
		uint64_t modifier = DRM_FORMAT_MOD_INVALID;
		if (uda_surface_dequeue(buffers, 0, &first) == UDA_SUCCESS) {
			modifier = allocation_modifier(first.allocation);
			offered = wayland_buffers_dmabuf_of(window, WAYLAND_PATH_DMABUF, first.buffer_id, first.allocation);
			uda_surface_cancel(buffers, first.buffer_id);
		}
		if (offered) {
			window->path = WAYLAND_PATH_DMABUF;
			platform_debug("Wayland: %ux%u frames go to the compositor as DMA-BUFs of modifier 0x%016llx", width,
			               height, (unsigned long long)modifier);
			return buffers;
		}
		wayland_buffers_forget(window);
		uda_surface_destroy(buffers);
		window->dmabuf_refused = true;
	}
	window->path = WAYLAND_PATH_SHM;
	if (!window->shm_format) {
		platform_debug("Wayland: the compositor takes 0x%08x neither as DMA-BUF nor through wl_shm", window->format);
		return NULL;
	}
	buffers = negotiate_shm(window, width, height);
	if (buffers)
		platform_debug("Wayland: %ux%u frames are copied into wl_shm buffers (0x%08x)", width, height,
		               window->shm_format);
	return buffers;
}

/* The compositor's feedback for the surface changed since the buffers
 * were negotiated (a scanout tranche came or went): the next buffers
 * follow it. */
void wayland_buffers_follow_feedback(struct wayland_window *window)
{
	uint64_t generation = 0;
	window_feedback(window, &generation);
	if (generation != window->negotiated_generation && window->negotiated_default) {
		/* The surface's own feedback came after the buffers were made
		 * for the display's default one: most often the same, and then
		 * they stay (where that default has not changed since). */
		pthread_mutex_lock(&window->wayland->lock);
		const struct feedback *default_feedback = wayland_dmabuf_feedback(window->wayland);
		if (default_feedback && default_generation(window->wayland) == window->negotiated_default_generation &&
		    feedback_equal(default_feedback, &window->feedback.receiver.current)) {
			window->negotiated_generation = generation;
			window->negotiated_default = false;
		}
		pthread_mutex_unlock(&window->wayland->lock);
	}
	if (generation == window->negotiated_generation && window->uda_sets.generation == window->negotiated_uda_generation)
		return;
	struct platform_surface *surface = window->surface;
	uint32_t width = 0, height = 0;
	uda_surface_get_size(surface->window, &width, &height);
	const enum wayland_buffer_path old_path = window->path;
	memcpy(window->retiring, window->dmabuf, sizeof(window->retiring));
	memset(window->dmabuf, 0, sizeof(window->dmabuf));
	uda_surface *replacement = wayland_buffers_negotiate(window, width, height);
	if (!replacement) {
		/* Keep what works, with the releases that came meanwhile. */
		wayland_buffers_forget(window);
		memcpy(window->dmabuf, window->retiring, sizeof(window->dmabuf));
		memset(window->retiring, 0, sizeof(window->retiring));
		window->path = old_path;
		return;
	}
	platform_debug("Wayland: the surface's feedback changed: buffers negotiated again");
	for (uint32_t i = 0; i < UDA_SURFACE_MAX_BUFFERS; i++) {
		if (window->retiring[i].buffer)
			wl_buffer_destroy(window->retiring[i].buffer);
	}
	memset(window->retiring, 0, sizeof(window->retiring));
	uda_surface_destroy(platform_window_replace(surface, replacement));
	/* A resize that came meanwhile (another thread's) went to the old
	 * buffers: the new ones take it. */
	struct uda_platform *platform = surface->display->platform;
	pthread_mutex_lock(&platform->lock);
	const struct wl_egl_window *native = window->native;
	if (native && native->width > 0 && native->height > 0 &&
	    ((uint32_t)native->width != width || (uint32_t)native->height != height))
		uda_surface_resize(surface->window, (uint32_t)native->width, (uint32_t)native->height);
	pthread_mutex_unlock(&platform->lock);
}

