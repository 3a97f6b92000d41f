/* uda_surface: the buffer queue between a producer and a consumer. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <uda/uda_surface.h>

#include "context.h"
#include "negotiation_chain.h"
#include "request.h"
#include "sync_fence.h"

enum buffer_state {
	BUFFER_FREE,
	/* Reserved by a dequeue that is allocating it outside the lock. */
	BUFFER_ALLOCATING,
	BUFFER_DEQUEUED,
	BUFFER_QUEUED,
	BUFFER_ACQUIRED,
};

struct surface_buffer {
	bool live;
	enum buffer_state state;
	uint64_t id;
	uda_allocation *allocation;
	uint32_t width, height;
	/* The frame number this buffer's content was last queued as (also
	 * its place in the queue while QUEUED or ACQUIRED); 0 if it has no
	 * content. */
	uint64_t content_frame;
	uint32_t damage_count;
	uda_rect damage[UDA_SURFACE_MAX_DAMAGE_RECTS];
	/* -1, or the fence of the side that last handed the buffer over:
	 * the producer's writes while QUEUED or ACQUIRED, the consumer's
	 * reads (or, for a frame MAILBOX replaced, the producer's writes)
	 * while FREE. While DEQUEUED by uda_surface_dequeue_fenced, a copy
	 * of the fence handed over: a cancelled buffer is free only once
	 * it signals, and destroy waits for it. */
	int fence_fd;
};

static void buffer_reset(struct surface_buffer *buffer)
{
	memset(buffer, 0, sizeof(*buffer));
	buffer->fence_fd = -1;
}

/* Buffers of an old size on their way out. Memory is never freed while
 * a fence says a device may still use it, yet no call waits for that
 * (a compositor's release must not stall on a client's resize): a buffer
 * whose fence is pending lingers, outside the buffer slots, until a
 * later call finds the fence signalled, or destroy waits for it. */
struct retired_buffer {
	uda_allocation *allocation;
	int fence_fd;
};

#define SURFACE_MAX_LINGERING (2u * UDA_SURFACE_MAX_BUFFERS)

/* Taken out under the lock, destroyed (or left to linger) after it. */
struct retired_buffers {
	uint32_t count;
	struct retired_buffer entries[UDA_SURFACE_MAX_BUFFERS + SURFACE_MAX_LINGERING];
};

/* The negotiation result of the current size, so the second buffer of a
 * size costs one allocation and no negotiation. */
struct surface_negotiation {
	uint32_t width, height;
	uda_capability_set_list *sets;
	uint32_t set_index;
	uda_device *device;
};

struct destroy_callback {
	uda_surface_destroy_callback callback;
	void *user_data;
};

struct uda_surface {
	uda_context *ctx;
	struct uda_surface *registry_next; /* ctx->surfaces */

	uint32_t format;
	uint32_t device_count;
	uda_device_usage *devices;
	uda_usage *usages;
	uda_usage_atom *atoms;
	uint8_t *payloads;
	uint32_t buffer_count;
	/* The create info's peer lists and layout filter, copied. */
	struct negotiation_chain_copy chain;

	pthread_mutex_t lock;
	/* Signalled when a buffer becomes free or a frame is queued. */
	pthread_cond_t changed;
	uda_present_mode present_mode;
	uint32_t width, height;
	struct surface_buffer buffers[UDA_SURFACE_MAX_BUFFERS];
	uint64_t next_buffer_id;
	uint64_t frames_queued;
	uint64_t dropped_since_acquire;
	struct surface_negotiation negotiation;
	int frame_fd; /* eventfd, EFD_SEMAPHORE: one count per queued frame */
	/* A plain dequeue waiting in poll() on release fences is woken by
	 * this eventfd as by `changed` (surface_changed): made the first
	 * time one waits, -1 before. */
	int producer_wake_fd;
	bool producer_polling;
	struct retired_buffer lingering[SURFACE_MAX_LINGERING];
	uint32_t lingering_count;

	struct destroy_callback destroy_callbacks[UDA_SURFACE_MAX_DESTROY_CALLBACKS];
	uint32_t destroy_callback_count;
};

static uda_result copy_devices(uda_surface *surface, const uda_surface_create_info *info)
{
	size_t atom_count = 0, payload_bytes = 0;
	for (uint32_t i = 0; i < info->device_count; i++) {
		const uda_usage *usage = info->devices[i].usage;
		atom_count += usage->atom_count;
		for (uint32_t a = 0; a < usage->atom_count; a++)
			payload_bytes += usage->atoms[a].length;
	}
	surface->devices = calloc(info->device_count, sizeof(*surface->devices));
	surface->usages = calloc(info->device_count, sizeof(*surface->usages));
	surface->atoms = calloc(atom_count ? atom_count : 1, sizeof(*surface->atoms));
	surface->payloads = malloc(payload_bytes ? payload_bytes : 1);
	if (!surface->devices || !surface->usages || !surface->atoms || !surface->payloads)
		return UDA_ERROR_OUT_OF_MEMORY;

	uda_usage_atom *atom = surface->atoms;
	uint8_t *payload = surface->payloads;
	for (uint32_t i = 0; i < info->device_count; i++) {
		const uda_usage *usage = info->devices[i].usage;
		surface->usages[i] = (uda_usage){UDA_STRUCTURE_TYPE_USAGE, NULL, usage->atom_count, atom};
		for (uint32_t a = 0; a < usage->atom_count; a++, atom++) {
			*atom = usage->atoms[a];
			if (atom->length) {
				memcpy(payload, atom->payload, atom->length);
				atom->payload = payload;
				payload += atom->length;
			} else {
				atom->payload = NULL;
			}
		}
		surface->devices[i] = (uda_device_usage){info->devices[i].device, &surface->usages[i]};
	}
	surface->device_count = info->device_count;
	return UDA_SUCCESS;
}

static uda_result validate_create_info(uda_context *ctx, const uda_surface_create_info *info,
                                       struct negotiation_chain *out_chain)
{
	UDA_CHECK_ARG(ctx, info && info->type == UDA_STRUCTURE_TYPE_SURFACE_CREATE_INFO);
	uda_result chain_result = negotiation_chain_parse(ctx, info->next, "uda_surface_create", out_chain);
	if (chain_result != UDA_SUCCESS)
		return chain_result;
	UDA_CHECK_ARG(ctx, info->device_count >= 1 && info->device_count <= UDA_MAX_NEGOTIATION_DEVICES);
	UDA_CHECK_ARG(ctx, info->devices);
	UDA_CHECK_ARG(ctx, info->buffer_count == 0 ||
	                       (info->buffer_count >= 2 && info->buffer_count <= UDA_SURFACE_MAX_BUFFERS));
	UDA_CHECK_ARG(ctx, info->present_mode == UDA_PRESENT_MODE_FIFO || info->present_mode == UDA_PRESENT_MODE_MAILBOX);
	uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, info->width, info->height, info->format, 0};
	uda_result result = uda_assertion_validate(ctx, &assertion);
	if (result != UDA_SUCCESS)
		return result;
	for (uint32_t i = 0; i < info->device_count; i++) {
		UDA_CHECK_ARG(ctx, info->devices[i].device && info->devices[i].usage);
		if (uda_device_get_context(info->devices[i].device) != ctx)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "uda_surface_create: device %u belongs to another context", i);
		result = uda_usage_validate(ctx, info->devices[i].usage);
		if (result != UDA_SUCCESS)
			return result;
	}
	return UDA_SUCCESS;
}

static void surface_free(uda_surface *surface)
{
	negotiation_chain_copy_finish(&surface->chain);
	free(surface->devices);
	free(surface->usages);
	free(surface->atoms);
	free(surface->payloads);
	free(surface);
}

/* Frees a surface whose lock, condition and eventfd exist, once nothing
 * else can reach it (not or no longer in the context's registry). */
static void surface_release(uda_surface *surface)
{
	for (uint32_t i = 0; i < UDA_SURFACE_MAX_BUFFERS; i++) {
		sync_fence_wait_and_close(surface->buffers[i].fence_fd);
		uda_allocation_destroy(surface->buffers[i].allocation);
	}
	for (uint32_t i = 0; i < surface->lingering_count; i++) {
		sync_fence_wait_and_close(surface->lingering[i].fence_fd);
		uda_allocation_destroy(surface->lingering[i].allocation);
	}
	uda_capability_set_list_destroy(surface->negotiation.sets);
	close(surface->frame_fd);
	if (surface->producer_wake_fd >= 0)
		close(surface->producer_wake_fd);
	pthread_cond_destroy(&surface->changed);
	pthread_mutex_destroy(&surface->lock);
	surface_free(surface);
}

static uda_result allocate_buffer(uda_surface *surface, uint32_t width, uint32_t height,
                                  struct surface_negotiation *negotiation, uda_allocation **out);

uda_result uda_surface_create(uda_context *ctx, const uda_surface_create_info *info, uda_surface **out_surface)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(ctx, out_surface);
	*out_surface = NULL;
	struct negotiation_chain chain;
	uda_result result = validate_create_info(ctx, info, &chain);
	if (result != UDA_SUCCESS)
		return result;

	uda_surface *surface = calloc(1, sizeof(*surface));
	if (!surface)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	surface->ctx = ctx;
	surface->format = info->format;
	surface->width = info->width;
	surface->height = info->height;
	surface->buffer_count = info->buffer_count ? info->buffer_count : UDA_SURFACE_DEFAULT_BUFFERS;
	surface->present_mode = info->present_mode;
	surface->next_buffer_id = 1;
	surface->frame_fd = -1;
	surface->producer_wake_fd = -1;
	for (uint32_t i = 0; i < UDA_SURFACE_MAX_BUFFERS; i++)
		buffer_reset(&surface->buffers[i]);
	if (copy_devices(surface, info) != UDA_SUCCESS || negotiation_chain_copy_init(&surface->chain, &chain) != UDA_SUCCESS) {
		surface_free(surface);
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	}

	surface->frame_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE);
	if (surface->frame_fd < 0) {
		int error = errno;
		surface_free(surface);
		return uda_context_set_error(ctx, UDA_ERROR_BACKEND, "uda_surface_create: eventfd: %s", strerror(error));
	}
	pthread_condattr_t attributes;
	bool cond_ok = pthread_condattr_init(&attributes) == 0;
	cond_ok = cond_ok && pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC) == 0 &&
	          pthread_cond_init(&surface->changed, &attributes) == 0;
	pthread_condattr_destroy(&attributes);
	if (!cond_ok || pthread_mutex_init(&surface->lock, NULL) != 0) {
		if (cond_ok)
			pthread_cond_destroy(&surface->changed);
		close(surface->frame_fd);
		surface_free(surface);
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "uda_surface_create: no lock");
	}

	/* The first buffer now, as a swapchain's images come with it: devices
	 * that share no memory for the format are the creator's to hear of,
	 * not the first frame's. The negotiation it leaves serves the rest. */
	result = allocate_buffer(surface, surface->width, surface->height, &surface->negotiation,
	                         &surface->buffers[0].allocation);
	if (result != UDA_SUCCESS) {
		surface_release(surface);
		return result;
	}
	surface->buffers[0].live = true;
	surface->buffers[0].state = BUFFER_FREE;
	surface->buffers[0].id = surface->next_buffer_id++;
	surface->buffers[0].width = surface->width;
	surface->buffers[0].height = surface->height;

	pthread_mutex_lock(&ctx->object_lock);
	surface->registry_next = ctx->surfaces;
	ctx->surfaces = surface;
	pthread_mutex_unlock(&ctx->object_lock);
	*out_surface = surface;
	return UDA_SUCCESS;
}

/* Under the lock; the rest keep their order, which is the calling order. */
static void remove_destroy_callback_at(uda_surface *surface, uint32_t index)
{
	surface->destroy_callback_count--;
	memmove(&surface->destroy_callbacks[index], &surface->destroy_callbacks[index + 1],
	        (surface->destroy_callback_count - index) * sizeof(surface->destroy_callbacks[0]));
}

void uda_surface_destroy(uda_surface *surface)
{
	if (!surface)
		return;
	/* Callbacks first, so their owners can stop using the buffers. Each
	 * leaves the list, under the lock, just before it is called: a
	 * removal that succeeds (from another callback, or a thread tearing
	 * its object down meanwhile) means the callback will not be called,
	 * and one that fails means it is being called or was. */
	for (;;) {
		pthread_mutex_lock(&surface->lock);
		if (surface->destroy_callback_count == 0) {
			pthread_mutex_unlock(&surface->lock);
			break;
		}
		struct destroy_callback next = surface->destroy_callbacks[0];
		remove_destroy_callback_at(surface, 0);
		pthread_mutex_unlock(&surface->lock);
		next.callback(surface, next.user_data);
	}

	uda_context *ctx = surface->ctx;
	pthread_mutex_lock(&ctx->object_lock);
	for (uda_surface **link = &ctx->surfaces; *link; link = &(*link)->registry_next) {
		if (*link == surface) {
			*link = surface->registry_next;
			break;
		}
	}
	pthread_mutex_unlock(&ctx->object_lock);

	surface_release(surface);
}

uda_result uda_context_validate_surface(uda_context *ctx, const void *candidate)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	pthread_mutex_lock(&ctx->object_lock);
	const uda_surface *surface = ctx->surfaces;
	while (surface && (const void *)surface != candidate)
		surface = surface->registry_next;
	pthread_mutex_unlock(&ctx->object_lock);
	if (!surface)
		return uda_context_set_error(ctx, UDA_ERROR_NOT_FOUND, "%p is not a live uda_surface of this context",
		                             candidate);
	return UDA_SUCCESS;
}

uda_context *uda_surface_get_context(const uda_surface *surface)
{
	return surface ? surface->ctx : NULL;
}

uda_result uda_surface_get_size(const uda_surface *surface, uint32_t *out_width, uint32_t *out_height)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(surface->ctx, out_width && out_height);
	uda_surface *mutable_surface = (uda_surface *)surface;
	pthread_mutex_lock(&mutable_surface->lock);
	*out_width = surface->width;
	*out_height = surface->height;
	pthread_mutex_unlock(&mutable_surface->lock);
	return UDA_SUCCESS;
}

uda_result uda_surface_get_format(const uda_surface *surface, uint32_t *out_format)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(surface->ctx, out_format);
	*out_format = surface->format;
	return UDA_SUCCESS;
}

uda_result uda_surface_get_devices(const uda_surface *surface, uint32_t *out_count,
                                   const uda_device_usage **out_devices)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(surface->ctx, out_count && out_devices);
	*out_count = surface->device_count;
	*out_devices = surface->devices;
	return UDA_SUCCESS;
}

/* Under the lock: a buffer came free, a frame was queued, or the size
 * changed. Wakes whoever waits, on `changed` or in poll(). */
static void surface_changed(uda_surface *surface)
{
	pthread_cond_broadcast(&surface->changed);
	if (surface->producer_polling) {
		uint64_t one = 1;
		/* Cannot fail short of a counter at UINT64_MAX - 1: then the
		 * producer has a wake-up pending anyway. */
		ssize_t written = write(surface->producer_wake_fd, &one, sizeof(one));
		(void)written;
	}
}

uda_result uda_surface_resize(uda_surface *surface, uint32_t width, uint32_t height)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, width, height, surface->format, 0};
	uda_result result = uda_assertion_validate(surface->ctx, &assertion);
	if (result != UDA_SUCCESS)
		return result;
	pthread_mutex_lock(&surface->lock);
	surface->width = width;
	surface->height = height;
	/* A dequeue waiting on old-size buffers can allocate a new one. */
	surface_changed(surface);
	pthread_mutex_unlock(&surface->lock);
	return UDA_SUCCESS;
}

uda_result uda_surface_set_present_mode(uda_surface *surface, uda_present_mode mode)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(surface->ctx, mode == UDA_PRESENT_MODE_FIFO || mode == UDA_PRESENT_MODE_MAILBOX);
	pthread_mutex_lock(&surface->lock);
	surface->present_mode = mode;
	pthread_mutex_unlock(&surface->lock);
	return UDA_SUCCESS;
}

/* Waits on `changed` until the deadline; false once it has passed. */
static bool wait_changed(uda_surface *surface, uint64_t timeout_ns, const struct timespec *deadline)
{
	if (timeout_ns == 0)
		return false;
	if (timeout_ns == UINT64_MAX) {
		pthread_cond_wait(&surface->changed, &surface->lock);
		return true;
	}
	return pthread_cond_timedwait(&surface->changed, &surface->lock, deadline) != ETIMEDOUT;
}

static void buffer_retire(struct surface_buffer *buffer, struct retired_buffers *retired)
{
	retired->entries[retired->count].allocation = buffer->allocation;
	retired->entries[retired->count].fence_fd = buffer->fence_fd;
	retired->count++;
	buffer_reset(buffer);
}

/* Under the lock: lingering buffers whose fences have signalled join
 * `retired`, to be destroyed after it. */
static void collect_lingering(uda_surface *surface, struct retired_buffers *retired)
{
	uint32_t kept = 0;
	for (uint32_t i = 0; i < surface->lingering_count; i++) {
		struct retired_buffer entry = surface->lingering[i];
		if (sync_fence_wait(entry.fence_fd, 0, NULL)) {
			close(entry.fence_fd);
			entry.fence_fd = -1;
			retired->entries[retired->count++] = entry;
		} else {
			surface->lingering[kept++] = entry;
		}
	}
	surface->lingering_count = kept;
}

/* Called without the lock: destroys what no device uses any more, and
 * leaves the rest to linger. Only past SURFACE_MAX_LINGERING (resizes
 * far faster than the consumer's reads finish) does it wait. */
static void retired_buffers_destroy(uda_surface *surface, struct retired_buffers *retired)
{
	for (uint32_t i = 0; i < retired->count; i++) {
		struct retired_buffer *entry = &retired->entries[i];
		if (entry->fence_fd >= 0 && !sync_fence_wait(entry->fence_fd, 0, NULL)) {
			pthread_mutex_lock(&surface->lock);
			bool parked = surface->lingering_count < SURFACE_MAX_LINGERING;
			if (parked)
				surface->lingering[surface->lingering_count++] = *entry;
			pthread_mutex_unlock(&surface->lock);
			if (parked)
				continue;
		}
		sync_fence_wait_and_close(entry->fence_fd);
		uda_allocation_destroy(entry->allocation);
	}
	retired->count = 0;
}

static bool buffer_is_stale(const uda_surface *surface, const struct surface_buffer *buffer)
{
	return buffer->width != surface->width || buffer->height != surface->height;
}

/* Allocates a buffer of width x height, negotiating only for a new size.
 * Called without the lock: negotiation and allocation take milliseconds
 * and the consumer must not wait for them. `negotiation` is the caller's
 * snapshot of the surface's and is updated for the new size. */
static uda_result allocate_buffer(uda_surface *surface, uint32_t width, uint32_t height,
                                  struct surface_negotiation *negotiation, uda_allocation **out)
{
	uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, NULL, width, height, surface->format, 0};
	if (negotiation->sets && negotiation->width == width && negotiation->height == height) {
		uda_allocation_create_info create = {
			UDA_STRUCTURE_TYPE_ALLOCATION_CREATE_INFO, NULL, negotiation->device, &assertion,
			negotiation->sets, negotiation->set_index,
		};
		if (uda_allocate(&create, out) == UDA_SUCCESS)
			return UDA_SUCCESS;
		/* Fall through to a full negotiation with its fallbacks. */
	}
	uda_negotiation_info info = {
		UDA_STRUCTURE_TYPE_NEGOTIATION_INFO,
		negotiation_chain_copy_head(&surface->chain),
		&assertion,
		surface->device_count,
		surface->devices,
	};
	uda_capability_set_list *sets = NULL;
	uint32_t set_index = 0;
	uda_result result = uda_negotiate_allocate(surface->ctx, &info, out, &sets, &set_index);
	if (result != UDA_SUCCESS)
		return result;
	uda_capability_set_list_destroy(negotiation->sets);
	negotiation->sets = sets;
	negotiation->set_index = set_index;
	negotiation->width = width;
	negotiation->height = height;
	uda_allocation_get_device(*out, &negotiation->device);
	return UDA_SUCCESS;
}

static uint32_t buffer_age(const uda_surface *surface, const struct surface_buffer *buffer)
{
	if (!buffer->content_frame)
		return 0;
	uint64_t age = surface->frames_queued - buffer->content_frame + 1;
	return age > UINT32_MAX ? UINT32_MAX : (uint32_t)age;
}

static void fill_buffer(const uda_surface *surface, const struct surface_buffer *buffer, uda_surface_buffer *out)
{
	*out = (uda_surface_buffer){
		buffer->id, buffer->allocation, buffer->width, buffer->height, buffer_age(surface, buffer),
	};
}

static bool producer_holds_buffer(const uda_surface *surface)
{
	if (surface->producer_polling)
		return true;
	for (uint32_t i = 0; i < UDA_SURFACE_MAX_BUFFERS; i++) {
		enum buffer_state state = surface->buffers[i].state;
		if (surface->buffers[i].live && (state == BUFFER_DEQUEUED || state == BUFFER_ALLOCATING))
			return true;
	}
	return false;
}

/* Whether a free buffer can be written now: no fence, or one that has
 * signalled (closed here, so nobody waits on it again). */
static bool buffer_is_ready(struct surface_buffer *buffer)
{
	if (buffer->fence_fd < 0)
		return true;
	if (!sync_fence_wait(buffer->fence_fd, 0, NULL))
		return false;
	close(buffer->fence_fd);
	buffer->fence_fd = -1;
	return true;
}

enum release_wait {
	RELEASE_WAIT_WOKEN,
	RELEASE_WAIT_TIMED_OUT,
	RELEASE_WAIT_NO_DESCRIPTORS,
};

/* Under the lock, for a plain dequeue that found every free buffer still
 * being read: waits without the lock until the first of their release
 * fences signals or the surface changes (a buffer released fence-free),
 * whichever comes first, then takes the lock again for the caller to look
 * anew. The fences are waited on as duplicates, so nothing the surface
 * does with its own meanwhile matters. */
static enum release_wait wait_for_any_release(uda_surface *surface, uint64_t timeout_ns,
                                              const struct timespec *deadline, struct retired_buffers *retired)
{
	if (timeout_ns == 0)
		return RELEASE_WAIT_TIMED_OUT;
	struct pollfd fds[UDA_SURFACE_MAX_BUFFERS + 1];
	unsigned fence_count = 0;
	for (uint32_t i = 0; i < surface->buffer_count; i++) {
		const struct surface_buffer *buffer = &surface->buffers[i];
		if (!buffer->live || buffer->state != BUFFER_FREE || buffer->fence_fd < 0)
			continue;
		int copy = fcntl(buffer->fence_fd, F_DUPFD_CLOEXEC, 0);
		if (copy < 0) {
			while (fence_count)
				close(fds[--fence_count].fd);
			return RELEASE_WAIT_NO_DESCRIPTORS;
		}
		fds[fence_count++].fd = copy;
	}
	unsigned count = fence_count;
	/* Without the eventfd (none to be had), a buffer released without a
	 * fence is noticed only when a fence signals or the time is up. */
	if (surface->producer_wake_fd < 0)
		surface->producer_wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (surface->producer_wake_fd >= 0) {
		fds[count++].fd = surface->producer_wake_fd;
		surface->producer_polling = true;
	}
	pthread_mutex_unlock(&surface->lock);
	retired_buffers_destroy(surface, retired);

	bool woken = sync_fence_wait_any(fds, count, timeout_ns, deadline);
	for (unsigned i = 0; i < fence_count; i++)
		close(fds[i].fd);

	pthread_mutex_lock(&surface->lock);
	if (surface->producer_polling) {
		uint64_t wake_ups;
		ssize_t got = read(surface->producer_wake_fd, &wake_ups, sizeof(wake_ups));
		(void)got; /* EAGAIN: a fence woke it */
		surface->producer_polling = false;
	}
	return woken ? RELEASE_WAIT_WOKEN : RELEASE_WAIT_TIMED_OUT;
}

/* out_release_fence: where a fenced producer takes the buffer's fence;
 * NULL to have it waited for here. */
static uda_result dequeue_buffer(uda_surface *surface, uint64_t timeout_ns, uda_surface_buffer *out_buffer,
                                 int *out_release_fence, const char *call)
{
	struct timespec deadline = sync_fence_deadline_after(timeout_ns);
	struct retired_buffers retired = {0};

	pthread_mutex_lock(&surface->lock);
	if (producer_holds_buffer(surface)) {
		pthread_mutex_unlock(&surface->lock);
		return uda_context_set_error(surface->ctx, UDA_ERROR_INVALID_ARGUMENT, "%s: a buffer is already dequeued",
		                             call);
	}
	collect_lingering(surface, &retired);
	for (;;) {
		/* Free buffers of an old size make room for new ones. */
		uint32_t live = 0;
		struct surface_buffer *empty = NULL, *ready = NULL, *pending = NULL;
		for (uint32_t i = 0; i < surface->buffer_count; i++) {
			struct surface_buffer *buffer = &surface->buffers[i];
			if (buffer->live && buffer->state == BUFFER_FREE && buffer_is_stale(surface, buffer))
				buffer_retire(buffer, &retired);
			if (!buffer->live) {
				if (!empty)
					empty = buffer;
				continue;
			}
			live++;
			if (buffer->state != BUFFER_FREE)
				continue;
			/* The free buffer whose content is newest: the smallest age
			 * gives a damage-tracking producer the least to redraw. One
			 * the consumer may still be reading comes last. */
			struct surface_buffer **best = buffer_is_ready(buffer) ? &ready : &pending;
			if (!*best || buffer->content_frame > (*best)->content_frame)
				*best = buffer;
		}
		struct surface_buffer *chosen = ready;
		if (!chosen && empty && live < surface->buffer_count) {
			empty->live = true;
			empty->state = BUFFER_ALLOCATING;
			empty->width = surface->width;
			empty->height = surface->height;
			struct surface_negotiation negotiation = surface->negotiation;
			surface->negotiation.sets = NULL; /* taken for the call */
			pthread_mutex_unlock(&surface->lock);
			retired_buffers_destroy(surface, &retired);

			uda_allocation *allocation = NULL;
			uda_result result = allocate_buffer(surface, empty->width, empty->height, &negotiation,
			                                    &allocation);

			pthread_mutex_lock(&surface->lock);
			surface->negotiation = negotiation;
			if (result != UDA_SUCCESS) {
				buffer_reset(empty);
				surface_changed(surface);
				pthread_mutex_unlock(&surface->lock);
				return result;
			}
			empty->allocation = allocation;
			empty->id = surface->next_buffer_id++;
			chosen = empty;
		}
		if (!chosen && pending && !out_release_fence) {
			enum release_wait waited = wait_for_any_release(surface, timeout_ns, &deadline, &retired);
			if (waited == RELEASE_WAIT_WOKEN)
				continue;
			if (waited == RELEASE_WAIT_TIMED_OUT) {
				pthread_mutex_unlock(&surface->lock);
				retired_buffers_destroy(surface, &retired);
				return uda_context_set_error(surface->ctx, UDA_ERROR_TIMEOUT,
				                             "%s: the consumer's release fences have not signalled", call);
			}
			/* No descriptors to wait on them all: wait for one. */
		}
		if (!chosen)
			chosen = pending;
		if (chosen) {
			chosen->state = BUFFER_DEQUEUED;
			int fence = chosen->fence_fd;
			chosen->fence_fd = -1;
			/* The producer's copy; the surface keeps one in case the
			 * buffer is cancelled or the surface destroyed before the
			 * producer's wait. Without a copy, waited for here. */
			int kept = fence >= 0 && out_release_fence ? fcntl(fence, F_DUPFD_CLOEXEC, 0) : -1;
			if (kept >= 0) {
				chosen->fence_fd = kept;
				*out_release_fence = fence;
			}
			fill_buffer(surface, chosen, out_buffer);
			pthread_mutex_unlock(&surface->lock);
			retired_buffers_destroy(surface, &retired);
			if (out_release_fence && (fence < 0 || kept >= 0))
				return UDA_SUCCESS;
			if (fence < 0 || sync_fence_wait(fence, timeout_ns, &deadline)) {
				if (fence >= 0)
					close(fence);
				return UDA_SUCCESS;
			}
			/* Still being read when the time ran out: free again, so a
			 * later dequeue finds it (DEQUEUED kept anyone else off it). */
			pthread_mutex_lock(&surface->lock);
			chosen->fence_fd = fence;
			chosen->state = BUFFER_FREE;
			surface_changed(surface);
			pthread_mutex_unlock(&surface->lock);
			return uda_context_set_error(surface->ctx, UDA_ERROR_TIMEOUT,
			                             "%s: the consumer's release fence has not signalled", call);
		}
		if (!wait_changed(surface, timeout_ns, &deadline)) {
			pthread_mutex_unlock(&surface->lock);
			retired_buffers_destroy(surface, &retired);
			return uda_context_set_error(surface->ctx, UDA_ERROR_TIMEOUT,
			                             "%s: every buffer is queued or acquired", call);
		}
	}
}

uda_result uda_surface_dequeue(uda_surface *surface, uint64_t timeout_ns, uda_surface_buffer *out_buffer)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(surface->ctx, out_buffer);
	return dequeue_buffer(surface, timeout_ns, out_buffer, NULL, "uda_surface_dequeue");
}

uda_result uda_surface_dequeue_fenced(uda_surface *surface, uint64_t timeout_ns, uda_surface_buffer *out_buffer,
                                      int *out_release_fence_fd)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(surface->ctx, out_buffer && out_release_fence_fd);
	*out_release_fence_fd = -1;
	return dequeue_buffer(surface, timeout_ns, out_buffer, out_release_fence_fd, "uda_surface_dequeue_fenced");
}

static struct surface_buffer *find_buffer(uda_surface *surface, uint64_t buffer_id)
{
	for (uint32_t i = 0; i < surface->buffer_count; i++) {
		if (surface->buffers[i].live && surface->buffers[i].id == buffer_id && buffer_id != 0)
			return &surface->buffers[i];
	}
	return NULL;
}

static void frame_fd_add(uda_surface *surface)
{
	uint64_t one = 1;
	/* Cannot overflow: at most UDA_SURFACE_MAX_BUFFERS counts pending. */
	ssize_t written = write(surface->frame_fd, &one, sizeof(one));
	(void)written;
}

static void frame_fd_take(uda_surface *surface)
{
	uint64_t value;
	ssize_t got = read(surface->frame_fd, &value, sizeof(value));
	(void)got;
}

static uda_result store_damage(uda_surface *surface, struct surface_buffer *buffer, const uda_rect *damage,
                               uint32_t damage_count, const char *call)
{
	if (damage_count > UDA_SURFACE_MAX_DAMAGE_RECTS) {
		/* Too fine to be worth tracking: the whole buffer. */
		buffer->damage_count = 0;
		return UDA_SUCCESS;
	}
	uint32_t kept = 0;
	for (uint32_t i = 0; i < damage_count; i++) {
		const uda_rect *rect = &damage[i];
		if (rect->width < 0 || rect->height < 0)
			return uda_context_set_error(surface->ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "%s: damage rect %u has a negative size", call, i);
		int64_t x0 = rect->x < 0 ? 0 : rect->x, y0 = rect->y < 0 ? 0 : rect->y;
		int64_t x1 = (int64_t)rect->x + rect->width, y1 = (int64_t)rect->y + rect->height;
		if (x1 > buffer->width)
			x1 = buffer->width;
		if (y1 > buffer->height)
			y1 = buffer->height;
		if (x1 <= x0 || y1 <= y0)
			continue;
		buffer->damage[kept++] = (uda_rect){(int32_t)x0, (int32_t)y0, (int32_t)(x1 - x0), (int32_t)(y1 - y0)};
	}
	/* Damage that clipped to nothing still queues a frame; say "all" so
	 * a consumer never skips a frame it was asked to show. */
	buffer->damage_count = kept;
	return UDA_SUCCESS;
}

/* Takes ownership of acquire_fence (-1 for none) on success only. */
static uda_result queue_buffer(uda_surface *surface, uint64_t buffer_id, const uda_rect *damage,
                               uint32_t damage_count, int acquire_fence, const char *call)
{
	pthread_mutex_lock(&surface->lock);
	struct surface_buffer *buffer = find_buffer(surface, buffer_id);
	if (!buffer || buffer->state != BUFFER_DEQUEUED) {
		pthread_mutex_unlock(&surface->lock);
		return uda_context_set_error(surface->ctx, UDA_ERROR_INVALID_ARGUMENT, "%s: buffer %llu is not dequeued",
		                             call, (unsigned long long)buffer_id);
	}
	uda_result result = store_damage(surface, buffer, damage, damage_count, call);
	if (result != UDA_SUCCESS) {
		pthread_mutex_unlock(&surface->lock);
		return result;
	}

	bool replaced = false;
	if (surface->present_mode == UDA_PRESENT_MODE_MAILBOX) {
		for (uint32_t i = 0; i < surface->buffer_count; i++) {
			struct surface_buffer *pending = &surface->buffers[i];
			if (pending->live && pending->state == BUFFER_QUEUED) {
				/* Its acquire fence stays: the buffer is free once the
				 * producer's writes to it are done. */
				pending->state = BUFFER_FREE;
				surface->dropped_since_acquire++;
				replaced = true;
			}
		}
	}
	/* The producer waited for the release fence before writing. */
	if (buffer->fence_fd >= 0)
		close(buffer->fence_fd);
	buffer->state = BUFFER_QUEUED;
	buffer->fence_fd = acquire_fence;
	buffer->content_frame = ++surface->frames_queued;
	if (!replaced)
		frame_fd_add(surface);
	surface_changed(surface);
	pthread_mutex_unlock(&surface->lock);
	return UDA_SUCCESS;
}

uda_result uda_surface_queue(uda_surface *surface, uint64_t buffer_id, const uda_rect *damage, uint32_t damage_count)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(surface->ctx, damage || damage_count == 0);
	return queue_buffer(surface, buffer_id, damage, damage_count, -1, "uda_surface_queue");
}

/* A fence handed to a _fenced call is the surface's whatever the outcome;
 * one the call fails is closed. */
static uda_result close_fence_on_failure(uda_result result, int fence)
{
	if (result != UDA_SUCCESS && fence >= 0)
		close(fence);
	return result;
}

static uda_result check_fence_argument(uda_surface *surface, int fence, const char *call)
{
	if (!sync_fence_is_valid_argument(fence))
		return uda_context_set_error(surface->ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "%s: fence %d is neither -1 nor an open descriptor", call, fence);
	return UDA_SUCCESS;
}

uda_result uda_surface_queue_fenced(uda_surface *surface, uint64_t buffer_id, const uda_rect *damage,
                                    uint32_t damage_count, int acquire_fence_fd)
{
	const char *call = "uda_surface_queue_fenced";
	if (!surface)
		return close_fence_on_failure(UDA_ERROR_INVALID_ARGUMENT, acquire_fence_fd);
	uda_result result = check_fence_argument(surface, acquire_fence_fd, call);
	if (result != UDA_SUCCESS)
		return result;
	if (!damage && damage_count != 0)
		result = uda_context_set_error(surface->ctx, UDA_ERROR_INVALID_ARGUMENT, "%s: damage is NULL", call);
	else
		result = queue_buffer(surface, buffer_id, damage, damage_count, acquire_fence_fd, call);
	return close_fence_on_failure(result, acquire_fence_fd);
}

uda_result uda_surface_cancel(uda_surface *surface, uint64_t buffer_id)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	pthread_mutex_lock(&surface->lock);
	struct surface_buffer *buffer = find_buffer(surface, buffer_id);
	if (!buffer || buffer->state != BUFFER_DEQUEUED) {
		pthread_mutex_unlock(&surface->lock);
		return uda_context_set_error(surface->ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "uda_surface_cancel: buffer %llu is not dequeued",
		                             (unsigned long long)buffer_id);
	}
	buffer->state = BUFFER_FREE;
	surface_changed(surface);
	pthread_mutex_unlock(&surface->lock);
	return UDA_SUCCESS;
}

/* Puts back a frame whose acquire fence did not signal in time, as if it
 * had never been acquired. */
static void requeue_unfinished(uda_surface *surface, struct surface_buffer *buffer, int fence, uint64_t dropped)
{
	bool newer_queued = false;
	for (uint32_t i = 0; i < surface->buffer_count; i++)
		newer_queued |= surface->buffers[i].live && surface->buffers[i].state == BUFFER_QUEUED;
	buffer->fence_fd = fence;
	surface->dropped_since_acquire += dropped;
	if (newer_queued && surface->present_mode == UDA_PRESENT_MODE_MAILBOX) {
		/* A newer frame came meanwhile and replaces this one, as it
		 * would have in the queue (and counted itself in frame_fd). */
		buffer->state = BUFFER_FREE;
		surface->dropped_since_acquire++;
	} else {
		buffer->state = BUFFER_QUEUED;
		frame_fd_add(surface);
	}
	surface_changed(surface);
}

/* out_acquire_fence: where a fenced consumer takes the frame's fence;
 * NULL to have it waited for here. */
static uda_result acquire_frame(uda_surface *surface, uint64_t timeout_ns, uda_surface_frame *out_frame,
                                int *out_acquire_fence, const char *call)
{
	struct timespec deadline = sync_fence_deadline_after(timeout_ns);
	pthread_mutex_lock(&surface->lock);
	for (;;) {
		struct surface_buffer *oldest = NULL;
		for (uint32_t i = 0; i < surface->buffer_count; i++) {
			struct surface_buffer *buffer = &surface->buffers[i];
			if (buffer->live && buffer->state == BUFFER_QUEUED &&
			    (!oldest || buffer->content_frame < oldest->content_frame))
				oldest = buffer;
		}
		if (oldest) {
			oldest->state = BUFFER_ACQUIRED;
			frame_fd_take(surface);
			uda_surface_frame frame = {
				oldest->id,
				oldest->allocation,
				oldest->width,
				oldest->height,
				oldest->content_frame,
				surface->dropped_since_acquire,
				oldest->damage_count,
				oldest->damage_count ? oldest->damage : NULL,
			};
			surface->dropped_since_acquire = 0;
			int fence = oldest->fence_fd;
			oldest->fence_fd = -1;
			pthread_mutex_unlock(&surface->lock);
			if (out_acquire_fence) {
				*out_acquire_fence = fence;
			} else if (fence >= 0) {
				if (!sync_fence_wait(fence, timeout_ns, &deadline)) {
					pthread_mutex_lock(&surface->lock);
					requeue_unfinished(surface, oldest, fence, frame.dropped_before);
					pthread_mutex_unlock(&surface->lock);
					return uda_context_set_error(surface->ctx, UDA_ERROR_TIMEOUT,
					                             "%s: the producer's acquire fence has not signalled", call);
				}
				close(fence);
			}
			*out_frame = frame;
			return UDA_SUCCESS;
		}
		if (!wait_changed(surface, timeout_ns, &deadline)) {
			pthread_mutex_unlock(&surface->lock);
			return uda_context_set_error(surface->ctx, UDA_ERROR_TIMEOUT, "%s: no frame is queued", call);
		}
	}
}

uda_result uda_surface_acquire(uda_surface *surface, uint64_t timeout_ns, uda_surface_frame *out_frame)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(surface->ctx, out_frame);
	return acquire_frame(surface, timeout_ns, out_frame, NULL, "uda_surface_acquire");
}

uda_result uda_surface_acquire_fenced(uda_surface *surface, uint64_t timeout_ns, uda_surface_frame *out_frame,
                                      int *out_acquire_fence_fd)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(surface->ctx, out_frame && out_acquire_fence_fd);
	*out_acquire_fence_fd = -1;
	return acquire_frame(surface, timeout_ns, out_frame, out_acquire_fence_fd, "uda_surface_acquire_fenced");
}

/* Takes ownership of release_fence (-1 for none) on success only. */
static uda_result release_buffer(uda_surface *surface, uint64_t buffer_id, int release_fence, const char *call)
{
	struct retired_buffers retired = {0};
	pthread_mutex_lock(&surface->lock);
	struct surface_buffer *buffer = find_buffer(surface, buffer_id);
	if (!buffer || buffer->state != BUFFER_ACQUIRED) {
		pthread_mutex_unlock(&surface->lock);
		return uda_context_set_error(surface->ctx, UDA_ERROR_INVALID_ARGUMENT, "%s: buffer %llu is not acquired",
		                             call, (unsigned long long)buffer_id);
	}
	buffer->state = BUFFER_FREE;
	buffer->fence_fd = release_fence;
	if (buffer_is_stale(surface, buffer))
		buffer_retire(buffer, &retired);
	collect_lingering(surface, &retired);
	surface_changed(surface);
	pthread_mutex_unlock(&surface->lock);
	retired_buffers_destroy(surface, &retired);
	return UDA_SUCCESS;
}

uda_result uda_surface_release(uda_surface *surface, uint64_t buffer_id)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	return release_buffer(surface, buffer_id, -1, "uda_surface_release");
}

uda_result uda_surface_release_fenced(uda_surface *surface, uint64_t buffer_id, int release_fence_fd)
{
	const char *call = "uda_surface_release_fenced";
	if (!surface)
		return close_fence_on_failure(UDA_ERROR_INVALID_ARGUMENT, release_fence_fd);
	uda_result result = check_fence_argument(surface, release_fence_fd, call);
	if (result != UDA_SUCCESS)
		return result;
	return close_fence_on_failure(release_buffer(surface, buffer_id, release_fence_fd, call), release_fence_fd);
}

uda_result uda_surface_get_frame_fd(uda_surface *surface, int *out_fd)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(surface->ctx, out_fd);
	*out_fd = surface->frame_fd;
	return UDA_SUCCESS;
}

uda_result uda_surface_add_destroy_callback(uda_surface *surface, uda_surface_destroy_callback callback,
                                            void *user_data)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(surface->ctx, callback);
	pthread_mutex_lock(&surface->lock);
	uda_result result = UDA_SUCCESS;
	for (uint32_t i = 0; i < surface->destroy_callback_count; i++) {
		if (surface->destroy_callbacks[i].callback == callback &&
		    surface->destroy_callbacks[i].user_data == user_data)
			result = UDA_ERROR_EXISTS;
	}
	if (result == UDA_SUCCESS && surface->destroy_callback_count == UDA_SURFACE_MAX_DESTROY_CALLBACKS)
		result = UDA_ERROR_OVERFLOW;
	if (result == UDA_SUCCESS)
		surface->destroy_callbacks[surface->destroy_callback_count++] = (struct destroy_callback){callback, user_data};
	pthread_mutex_unlock(&surface->lock);
	if (result != UDA_SUCCESS)
		return uda_context_set_error(surface->ctx, result, "uda_surface_add_destroy_callback: %s",
		                             result == UDA_ERROR_EXISTS ? "already added" : "too many callbacks");
	return UDA_SUCCESS;
}

uda_result uda_surface_remove_destroy_callback(uda_surface *surface, uda_surface_destroy_callback callback,
                                               void *user_data)
{
	if (!surface)
		return UDA_ERROR_INVALID_ARGUMENT;
	pthread_mutex_lock(&surface->lock);
	for (uint32_t i = 0; i < surface->destroy_callback_count; i++) {
		if (surface->destroy_callbacks[i].callback == callback &&
		    surface->destroy_callbacks[i].user_data == user_data) {
			remove_destroy_callback_at(surface, i);
			pthread_mutex_unlock(&surface->lock);
			return UDA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&surface->lock);
	return uda_context_set_error(surface->ctx, UDA_ERROR_NOT_FOUND,
	                             "uda_surface_remove_destroy_callback: no such callback");
}
