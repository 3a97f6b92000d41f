/* zwp_linux_dmabuf_v1 on the client side: the compositor's feedback
 * (version 4: default and per-surface, format table, tranches; version 3:
 * format and modifier events) kept as struct feedback, and wl_buffers of
 * DMA-BUF allocations. Every event is untrusted: table sizes and indices
 * are checked, and a feedback the compositor got wrong is dropped, not
 * used. */
#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "wayland_platform.h"

static void on_done(void *data, struct zwp_linux_dmabuf_feedback_v1 *object)
{
	(void)object;
	struct feedback_receiver *receiver = data;
	const bool was_broken = receiver->broken || receiver->tranche_open;
	feedback_receiver_done(receiver);
	if (was_broken)
		platform_debug("Wayland: the compositor sent broken dmabuf feedback; it is not used");
}

static void on_format_table(void *data, struct zwp_linux_dmabuf_feedback_v1 *object, int32_t fd, uint32_t size)
{
	(void)object;
	feedback_receiver_format_table(data, fd, size);
}

static void on_main_device(void *data, struct zwp_linux_dmabuf_feedback_v1 *object, struct wl_array *device)
{
	(void)object;
	feedback_receiver_main_device(data, device ? device->data : NULL, device ? device->size : 0);
}

static void on_tranche_done(void *data, struct zwp_linux_dmabuf_feedback_v1 *object)
{
	(void)object;
	feedback_receiver_tranche_done(data);
}

static void on_tranche_target_device(void *data, struct zwp_linux_dmabuf_feedback_v1 *object, struct wl_array *device)
{
	(void)object;
	feedback_receiver_tranche_target_device(data, device ? device->data : NULL, device ? device->size : 0);
}

static void on_tranche_formats(void *data, struct zwp_linux_dmabuf_feedback_v1 *object, struct wl_array *indices)
{
	(void)object;
	feedback_receiver_tranche_formats(data, indices ? indices->data : NULL, indices ? indices->size : 0);
}

static void on_tranche_flags(void *data, struct zwp_linux_dmabuf_feedback_v1 *object, uint32_t flags)
{
	(void)object;
	feedback_receiver_tranche_flags(data, flags);
}

static const struct zwp_linux_dmabuf_feedback_v1_listener feedback_events = {
	.done = on_done,
	.format_table = on_format_table,
	.main_device = on_main_device,
	.tranche_done = on_tranche_done,
	.tranche_target_device = on_tranche_target_device,
	.tranche_formats = on_tranche_formats,
	.tranche_flags = on_tranche_flags,
};

void dmabuf_feedback_listen(struct dmabuf_feedback_listener *state, struct zwp_linux_dmabuf_feedback_v1 *object)
{
	feedback_receiver_init(&state->receiver);
	state->object = object;
	zwp_linux_dmabuf_feedback_v1_add_listener(object, &feedback_events, &state->receiver);
}

void dmabuf_feedback_stop(struct dmabuf_feedback_listener *state)
{
	if (state->object)
		zwp_linux_dmabuf_feedback_v1_destroy(state->object);
	feedback_receiver_finish(&state->receiver);
	state->object = NULL;
}

/* Version 3: one tranche of every format and modifier announced. */
static void on_format(void *data, struct zwp_linux_dmabuf_v1 *object, uint32_t format)
{
	(void)data;
	(void)object;
	(void)format; /* version 3 sends modifier events for every format too */
}

static void on_modifier(void *data, struct zwp_linux_dmabuf_v1 *object, uint32_t format, uint32_t modifier_hi,
                        uint32_t modifier_lo)
{
	(void)object;
	struct wayland_display *wayland = data;
	struct feedback *legacy = &wayland->legacy_formats;
	if (legacy->tranche_count == 0 && !feedback_add_tranche(legacy))
		return;
	feedback_tranche_add(&legacy->tranches[0], format, ((uint64_t)modifier_hi << 32) | modifier_lo);
}

static const struct zwp_linux_dmabuf_v1_listener dmabuf_events = {
	.format = on_format,
	.modifier = on_modifier,
};

void wayland_dmabuf_bind(struct wayland_display *wayland, struct wl_registry *registry, uint32_t name,
                         uint32_t version)
{
	/* Version 3 brought modifiers, 4 feedback; older ones describe no
	 * layout uda could allocate. */
	if (version < 3 || wayland->dmabuf)
		return;
	wayland->dmabuf_version = version < 4 ? version : 4;
	wayland->dmabuf = wl_registry_bind(registry, name, &zwp_linux_dmabuf_v1_interface, wayland->dmabuf_version);
	if (!wayland->dmabuf)
		return;
	if (wayland->dmabuf_version < 4) {
		zwp_linux_dmabuf_v1_add_listener(wayland->dmabuf, &dmabuf_events, wayland);
		return;
	}
	struct zwp_linux_dmabuf_feedback_v1 *object = zwp_linux_dmabuf_v1_get_default_feedback(wayland->dmabuf);
	if (object)
		dmabuf_feedback_listen(&wayland->default_feedback, object);
}

void wayland_dmabuf_unbind(struct wayland_display *wayland)
{
	dmabuf_feedback_stop(&wayland->default_feedback);
	feedback_clear(&wayland->legacy_formats);
	if (wayland->dmabuf)
		zwp_linux_dmabuf_v1_destroy(wayland->dmabuf);
	wayland->dmabuf = NULL;
	wayland->dmabuf_version = 0;
}

const struct feedback *wayland_dmabuf_feedback(const struct wayland_display *wayland)
{
	if (wayland->dmabuf_version >= 4)
		return wayland->default_feedback.receiver.received ? &wayland->default_feedback.receiver.current : NULL;
	return wayland->legacy_formats.tranche_count ? &wayland->legacy_formats : NULL;
}

/* A late answer (its slot in the window): nobody uses the buffer, and
 * the compositor would keep it, DMA-BUF and all, for the connection's
 * life unless it is destroyed. */
static void forget_late(struct wayland_params_answer *answer, struct wl_buffer *buffer)
{
	if (buffer)
		wl_buffer_destroy(buffer);
	zwp_linux_buffer_params_v1_destroy(answer->params);
	*answer = (struct wayland_params_answer){0};
}

static void params_created(void *data, struct zwp_linux_buffer_params_v1 *params, struct wl_buffer *buffer)
{
	(void)params;
	struct wayland_params_answer *answer = data;
	if (answer->late) {
		forget_late(answer, buffer);
		return;
	}
	answer->buffer = buffer;
	answer->answered = true;
}

static void params_failed(void *data, struct zwp_linux_buffer_params_v1 *params)
{
	(void)params;
	struct wayland_params_answer *answer = data;
	if (answer->late)
		forget_late(answer, NULL);
	else
		answer->answered = true;
}

static const struct zwp_linux_buffer_params_v1_listener params_events = {
	.created = params_created,
	.failed = params_failed,
};

/* The wait for `params` gave up: its answer may still come, on the
 * window's queue, into a slot of the window that destroys it. Without
 * a free slot the params go now (a late buffer is then the compositor's
 * to keep until the connection ends). */
static void keep_for_late_answer(struct wayland_window *window, struct zwp_linux_buffer_params_v1 *params)
{
	for (uint32_t i = 0; i < WAYLAND_MAX_LATE_PARAMS; i++) {
		struct wayland_params_answer *slot = &window->late_params[i];
		if (!slot->params) {
			*slot = (struct wayland_params_answer){.late = true, .params = params};
			wl_proxy_set_user_data((struct wl_proxy *)params, slot);
			return;
		}
	}
	zwp_linux_buffer_params_v1_destroy(params);
}

void wayland_dmabuf_forget_late_params(struct wayland_window *window)
{
	for (uint32_t i = 0; i < WAYLAND_MAX_LATE_PARAMS; i++) {
		if (window->late_params[i].params)
			forget_late(&window->late_params[i], NULL);
	}
}

/* `create`, not `create_immed`: a compositor that cannot import the
 * buffer answers `failed` instead of ending the application's connection
 * (create_immed's invalid_wl_buffer error), and the window falls back to
 * wl_shm. Once per buffer: wl_buffers are kept with their allocations. */
struct wl_buffer *wayland_dmabuf_create_buffer(struct wayland_window *window, uda_allocation *allocation,
                                               uint64_t modifier)
{
	struct wayland_display *wayland = window->wayland;
	uda_allocation_metadata metadata = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	int fd = -1;
	if (uda_allocation_get_metadata(allocation, &metadata) != UDA_SUCCESS ||
	    uda_allocation_export(allocation, UDA_HANDLE_TYPE_DMA_BUF, &fd) != UDA_SUCCESS)
		return NULL;
	struct zwp_linux_buffer_params_v1 *params =
	        window->dmabuf_global ? zwp_linux_dmabuf_v1_create_params(window->dmabuf_global) : NULL;
	if (!params) {
		close(fd);
		return NULL;
	}
	struct wayland_params_answer answer = {0};
	zwp_linux_buffer_params_v1_add_listener(params, &params_events, &answer);
	bool fits = metadata.width <= INT32_MAX && metadata.height <= INT32_MAX;
	/* Every plane of one allocation lies in the one exported DMA-BUF. */
	for (uint32_t plane = 0; plane < metadata.plane_count && fits; plane++) {
		fits = metadata.planes[plane].offset <= UINT32_MAX && metadata.planes[plane].pitch <= UINT32_MAX;
		if (fits)
			zwp_linux_buffer_params_v1_add(params, fd, plane, (uint32_t)metadata.planes[plane].offset,
			                               (uint32_t)metadata.planes[plane].pitch, (uint32_t)(modifier >> 32),
			                               (uint32_t)modifier);
	}
	close(fd); /* the requests carry their own copies */
	if (fits)
		zwp_linux_buffer_params_v1_create(params, (int32_t)metadata.width, (int32_t)metadata.height,
		                                  metadata.format, 0);
	if (fits)
		wayland_display_wait_for(wayland, window->queue, &answer.answered, WAYLAND_ANSWER_TIMEOUT_MS);
	if (fits && !answer.answered)
		keep_for_late_answer(window, params);
	else
		zwp_linux_buffer_params_v1_destroy(params);
	if (!answer.buffer)
		platform_debug("Wayland: the compositor did not take a DMA-BUF of modifier 0x%016llx",
		               (unsigned long long)modifier);
	return answer.buffer;
}
