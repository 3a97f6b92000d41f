/* zwp_linux_dmabuf_v1 on the client side: the compositor's feedback
 * (version 4: default and per-surface, format table, tranches; version 3:
 * format and modifier events) kept as struct feedback, and wl_buffers of
 * DMA-BUF allocations. Every event is untrusted: table sizes and indices
 * are checked, and a feedback the compositor got wrong is dropped, not
 * used. */
#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "linux-dmabuf-unstable-v1-client-protocol.h"
#include "wayland_platform.h"

/* A format table of more entries than this is refused (16 bytes each). */
#define DMABUF_MAX_TABLE_BYTES (16u * 1024u * 1024u)

struct table_entry {
	uint32_t format;
	uint32_t padding;
	uint64_t modifier;
};

static void drop_table(struct dmabuf_feedback_listener *state)
{
	if (state->table && state->table != MAP_FAILED)
		munmap(state->table, state->table_size);
	state->table = NULL;
	state->table_size = 0;
}

static void on_done(void *data, struct zwp_linux_dmabuf_feedback_v1 *object)
{
	(void)object;
	struct dmabuf_feedback_listener *state = data;
	if (state->broken) {
		platform_debug("Wayland: the compositor sent broken dmabuf feedback; it is not used");
		feedback_clear(&state->pending);
	} else {
		feedback_move(&state->current, &state->pending);
		state->generation++;
	}
	state->broken = false;
	state->received = true;
}

static void on_format_table(void *data, struct zwp_linux_dmabuf_feedback_v1 *object, int32_t fd, uint32_t size)
{
	(void)object;
	struct dmabuf_feedback_listener *state = data;
	drop_table(state);
	if (size == 0 || size % sizeof(struct table_entry) != 0 || size > DMABUF_MAX_TABLE_BYTES) {
		state->broken = true;
	} else {
		/* MAP_PRIVATE: the protocol says the compositor's table must be
		 * mapped so; a file shorter than `size` faults only past its
		 * end, which the size check below leaves unread. */
		off_t real = lseek(fd, 0, SEEK_END);
		if (real < (off_t)size) {
			state->broken = true;
		} else {
			state->table = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
			if (state->table == MAP_FAILED) {
				state->table = NULL;
				state->broken = true;
			} else {
				state->table_size = size;
			}
		}
	}
	close(fd);
}

static bool read_dev_t(struct wl_array *array, dev_t *out)
{
	if (!array || array->size != sizeof(dev_t))
		return false;
	memcpy(out, array->data, sizeof(dev_t));
	return true;
}

static void on_main_device(void *data, struct zwp_linux_dmabuf_feedback_v1 *object, struct wl_array *device)
{
	(void)object;
	struct dmabuf_feedback_listener *state = data;
	state->pending.has_main_device = read_dev_t(device, &state->pending.main_device);
	state->broken = state->broken || !state->pending.has_main_device;
}

static struct feedback_tranche *open_tranche(struct dmabuf_feedback_listener *state)
{
	if (!state->tranche_open) {
		if (!feedback_add_tranche(&state->pending)) {
			state->broken = true;
			return NULL;
		}
		state->tranche_open = true;
	}
	return &state->pending.tranches[state->pending.tranche_count - 1];
}

static void on_tranche_done(void *data, struct zwp_linux_dmabuf_feedback_v1 *object)
{
	(void)object;
	struct dmabuf_feedback_listener *state = data;
	open_tranche(state); /* an empty tranche is still one */
	state->tranche_open = false;
}

static void on_tranche_target_device(void *data, struct zwp_linux_dmabuf_feedback_v1 *object, struct wl_array *device)
{
	(void)object;
	struct dmabuf_feedback_listener *state = data;
	struct feedback_tranche *tranche = open_tranche(state);
	if (tranche && !read_dev_t(device, &tranche->target_device))
		state->broken = true;
}

static void on_tranche_formats(void *data, struct zwp_linux_dmabuf_feedback_v1 *object, struct wl_array *indices)
{
	(void)object;
	struct dmabuf_feedback_listener *state = data;
	struct feedback_tranche *tranche = open_tranche(state);
	if (!tranche)
		return;
	const uint32_t entries = state->table_size / sizeof(struct table_entry);
	if (!state->table || !indices || indices->size % sizeof(uint16_t) != 0) {
		state->broken = true;
		return;
	}
	const uint16_t *index = indices->data;
	for (size_t i = 0; i < indices->size / sizeof(uint16_t); i++) {
		if (index[i] >= entries) {
			state->broken = true;
			return;
		}
		const struct table_entry *entry = &state->table[index[i]];
		if (!feedback_tranche_add(tranche, entry->format, entry->modifier))
			state->broken = true;
	}
}

static void on_tranche_flags(void *data, struct zwp_linux_dmabuf_feedback_v1 *object, uint32_t flags)
{
	(void)object;
	struct dmabuf_feedback_listener *state = data;
	struct feedback_tranche *tranche = open_tranche(state);
	if (tranche)
		tranche->scanout = (flags & ZWP_LINUX_DMABUF_FEEDBACK_V1_TRANCHE_FLAGS_SCANOUT) != 0;
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
	memset(state, 0, sizeof(*state));
	feedback_init(&state->current);
	feedback_init(&state->pending);
	state->object = object;
	zwp_linux_dmabuf_feedback_v1_add_listener(object, &feedback_events, state);
}

void dmabuf_feedback_stop(struct dmabuf_feedback_listener *state)
{
	if (state->object)
		zwp_linux_dmabuf_feedback_v1_destroy(state->object);
	drop_table(state);
	feedback_clear(&state->current);
	feedback_clear(&state->pending);
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
		return wayland->default_feedback.received ? &wayland->default_feedback.current : NULL;
	return wayland->legacy_formats.tranche_count ? &wayland->legacy_formats : NULL;
}

struct params_answer {
	struct wl_buffer *buffer;
	bool answered;
};

static void params_created(void *data, struct zwp_linux_buffer_params_v1 *params, struct wl_buffer *buffer)
{
	(void)params;
	struct params_answer *answer = data;
	answer->buffer = buffer;
	answer->answered = true;
}

static void params_failed(void *data, struct zwp_linux_buffer_params_v1 *params)
{
	(void)params;
	((struct params_answer *)data)->answered = true;
}

static const struct zwp_linux_buffer_params_v1_listener params_events = {
	.created = params_created,
	.failed = params_failed,
};

/* `create`, not `create_immed`: a compositor that cannot import the
 * buffer answers `failed` instead of ending the application's connection
 * (create_immed's invalid_wl_buffer error), and the window falls back to
 * wl_shm. Once per buffer: wl_buffers are kept with their allocations. */
struct wl_buffer *wayland_dmabuf_create_buffer(struct wayland_display *wayland, uda_allocation *allocation,
                                               uint64_t modifier)
{
	uda_allocation_metadata metadata = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	int fd = -1;
	if (uda_allocation_get_metadata(allocation, &metadata) != UDA_SUCCESS ||
	    uda_allocation_export(allocation, UDA_HANDLE_TYPE_DMA_BUF, &fd) != UDA_SUCCESS)
		return NULL;
	struct zwp_linux_buffer_params_v1 *params = zwp_linux_dmabuf_v1_create_params(wayland->dmabuf);
	if (!params) {
		close(fd);
		return NULL;
	}
	struct params_answer answer = {0};
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
	const int64_t deadline = wayland_now_ms() + WAYLAND_ANSWER_TIMEOUT_MS;
	while (fits && !answer.answered) {
		int64_t left = deadline - wayland_now_ms();
		if (left <= 0 || wayland_display_dispatch(wayland, (int)left) < 0)
			break;
	}
	zwp_linux_buffer_params_v1_destroy(params);
	if (!answer.buffer)
		platform_debug("Wayland: the compositor did not take a DMA-BUF of modifier 0x%016llx",
		               (unsigned long long)modifier);
	return answer.buffer;
}
