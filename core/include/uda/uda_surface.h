/*
 * uda_surface: a queue of allocations for presentation.
 *
 * A producer (an EGL window surface, a video decoder) dequeues a buffer,
 * fills it and queues it; a consumer (a compositor, an encoder) acquires
 * the oldest queued frame, reads it and releases it. The buffers are uda
 * allocations negotiated between every device the surface was created for,
 * so producer and consumer use the same memory: no copies.
 *
 * The first buffer is allocated at creation, the others on demand, up to
 * buffer_count, at the surface's size. uda_surface_resize takes effect at
 * the next dequeue: buffers of the old size still queued or acquired are
 * destroyed when they come back.
 *
 * Synchronization: the plain calls hand a buffer over when the side
 * handing it over has finished with it (glFinish, vkQueueWaitIdle). The
 * _fenced calls carry a fence instead, as Android's BufferQueue and
 * Wayland's explicit synchronization do: a file descriptor that polls
 * readable once the work it stands for is done, a sync_file above all
 * (vkGetSemaphoreFdKHR or vkGetFenceFdKHR with SYNC_FD handles,
 * eglDupNativeFenceFDANDROID, DMA_BUF_IOCTL_EXPORT_SYNC_FILE). The producer
 * queues with an acquire fence (its writes), the consumer releases with a
 * release fence (its reads). Each side picks plain or _fenced calls on its
 * own: the surface hands a fence to a _fenced call and waits for it, on
 * the CPU, inside a plain one. It never looks inside a fence.
 *
 * Threads: producer and consumer calls may come from different threads at
 * the same time. uda_surface_destroy must not race any other call on the
 * surface.
 */
#ifndef UDA_SURFACE_H
#define UDA_SURFACE_H

#include <uda/uda.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct uda_surface uda_surface;

#define UDA_SURFACE_MAX_BUFFERS 8u
#define UDA_SURFACE_DEFAULT_BUFFERS 3u
#define UDA_SURFACE_MAX_DAMAGE_RECTS 64u

typedef enum uda_present_mode {
	/* Every queued frame reaches the consumer, in order; dequeue waits
	 * while every buffer is queued or acquired (swap interval 1). */
	UDA_PRESENT_MODE_FIFO = 0,
	/* Queueing replaces a frame the consumer has not acquired yet, which
	 * goes back to the producer unseen; the producer waits only when the
	 * consumer holds every other buffer (swap interval 0). */
	UDA_PRESENT_MODE_MAILBOX = 1,
} uda_present_mode;

typedef struct uda_surface_create_info {
	uda_structure_type type; /* UDA_STRUCTURE_TYPE_SURFACE_CREATE_INFO */
	/* NULL, or uda_negotiation_peer_info structs (the buffers must also
	 * suit those devices outside the context) and at most one
	 * uda_negotiation_layout_filter; all copied. */
	const void *next;
	uint32_t width;  /* 1 .. UDA_MAX_DIMENSION */
	uint32_t height; /* 1 .. UDA_MAX_DIMENSION */
	uint32_t format; /* DRM fourcc */
	/* Every device that touches the buffers, the producer among them,
	 * with its usage; copied. Buffers are negotiated between all of them
	 * (uda_negotiate_allocate, so the first device that can allocate a
	 * negotiated set does). */
	uint32_t device_count; /* 1 .. UDA_MAX_NEGOTIATION_DEVICES */
	const uda_device_usage *devices;
	/* 2 .. UDA_SURFACE_MAX_BUFFERS; 0 means UDA_SURFACE_DEFAULT_BUFFERS. */
	uint32_t buffer_count;
	uda_present_mode present_mode;
} uda_surface_create_info;

typedef struct uda_rect {
	int32_t x, y; /* top-left origin, rows counted from the top */
	int32_t width, height;
} uda_rect;

/* What the producer gets from uda_surface_dequeue. */
typedef struct uda_surface_buffer {
	/* Identifies the buffer for queue; unique for the surface's lifetime,
	 * so a cache of imports keyed by it never mistakes a reallocated
	 * buffer for an old one. */
	uint64_t buffer_id;
	uda_allocation *allocation; /* owned by the surface */
	uint32_t width, height;     /* the allocation's size */
	/* Frames queued since this buffer's content was last queued, as
	 * EGL_EXT_buffer_age counts: 0 for a buffer with no content yet. */
	uint32_t age;
} uda_surface_buffer;

/* What the consumer gets from uda_surface_acquire. */
typedef struct uda_surface_frame {
	uint64_t buffer_id;
	uda_allocation *allocation; /* owned by the surface */
	uint32_t width, height;
	/* 1 for the first frame the surface ever queued. */
	uint64_t frame_number;
	/* Frames the consumer never saw: mailbox replacements since the
	 * frame acquired before this one. */
	uint64_t dropped_before;
	/* The damage the producer queued (copied, valid until release); a
	 * count of 0 means the whole buffer. */
	uint32_t damage_count;
	const uda_rect *damage;
} uda_surface_frame;

/* Negotiates between the devices and allocates the first buffer, so a
 * format or size they cannot share fails here (the negotiation's error,
 * UDA_ERROR_INCOMPATIBLE where no set is common, or the allocation's)
 * rather than at the first dequeue. */
UDA_API uda_result uda_surface_create(uda_context *context, const uda_surface_create_info *info,
                                      uda_surface **out_surface);
/* Destroys the buffers, including those acquired or dequeued, after
 * calling the destroy callbacks; waits for the fences it holds first, so
 * no memory is freed while a fence says a device may still use it.
 * Accepts NULL. */
UDA_API void uda_surface_destroy(uda_surface *surface);

/* Whether `candidate` is a live surface of `context`, without reading it:
 * how a caller handed an opaque pointer (an EGL native window) checks it.
 * UDA_SUCCESS if it is, UDA_ERROR_NOT_FOUND (with a message) if not. */
UDA_API uda_result uda_context_validate_surface(uda_context *context, const void *candidate);

UDA_API uda_context *uda_surface_get_context(const uda_surface *surface);
/* The size the next dequeued buffer will have. */
UDA_API uda_result uda_surface_get_size(const uda_surface *surface, uint32_t *out_width, uint32_t *out_height);
UDA_API uda_result uda_surface_get_format(const uda_surface *surface, uint32_t *out_format);
/* The devices and usages the surface negotiates for, as given at
 * creation (valid while the surface lives). */
UDA_API uda_result uda_surface_get_devices(const uda_surface *surface, uint32_t *out_count,
                                           const uda_device_usage **out_devices);
UDA_API uda_result uda_surface_resize(uda_surface *surface, uint32_t width, uint32_t height);
UDA_API uda_result uda_surface_set_present_mode(uda_surface *surface, uda_present_mode mode);

/* Producer. Waits up to timeout_ns (0: not at all, UINT64_MAX: forever)
 * for a free buffer: UDA_ERROR_TIMEOUT if none came. Allocation failures
 * are returned as they are. One buffer may be dequeued at a time. A free
 * buffer the consumer released with a fence comes after one it did not
 * (or whose fence has signalled); uda_surface_dequeue waits within the
 * same timeout for the first such fence to signal (or a buffer to come
 * back without one). */
UDA_API uda_result uda_surface_dequeue(uda_surface *surface, uint64_t timeout_ns, uda_surface_buffer *out_buffer);
/* The same, handing over the buffer's release fence instead of waiting
 * for it (for a frame MAILBOX replaced before it was acquired, the
 * producer's own acquire fence): the caller owns *out_release_fence_fd
 * and must not write the buffer before it signals; -1 when there is
 * nothing to wait for. A buffer cancelled unwritten keeps its fence. */
UDA_API uda_result uda_surface_dequeue_fenced(uda_surface *surface, uint64_t timeout_ns,
                                              uda_surface_buffer *out_buffer, int *out_release_fence_fd);
/* Hands the dequeued buffer to the consumer; the producer must have
 * finished writing it. Damage in buffer pixels, clipped to it; NULL/0 for
 * the whole buffer. */
UDA_API uda_result uda_surface_queue(uda_surface *surface, uint64_t buffer_id, const uda_rect *damage,
                                     uint32_t damage_count);
/* The same, for writes that may still run: acquire_fence_fd (or -1)
 * signals when they are done. The surface owns the fence from the call
 * on, and closes it if the call fails. */
UDA_API uda_result uda_surface_queue_fenced(uda_surface *surface, uint64_t buffer_id, const uda_rect *damage,
                                            uint32_t damage_count, int acquire_fence_fd);
/* Gives a dequeued buffer back unqueued (its content is not shown). */
UDA_API uda_result uda_surface_cancel(uda_surface *surface, uint64_t buffer_id);

/* Consumer. Waits like dequeue for the oldest queued frame, and then for
 * its acquire fence if the producer queued one: UDA_ERROR_TIMEOUT leaves
 * the frame queued (in MAILBOX mode, replaced if a newer one came). */
UDA_API uda_result uda_surface_acquire(uda_surface *surface, uint64_t timeout_ns, uda_surface_frame *out_frame);
/* The same, handing over the frame's acquire fence instead of waiting for
 * it: the caller owns *out_acquire_fence_fd and must not read the buffer
 * before it signals; -1 when the producer finished before queueing. */
UDA_API uda_result uda_surface_acquire_fenced(uda_surface *surface, uint64_t timeout_ns,
                                              uda_surface_frame *out_frame, int *out_acquire_fence_fd);
/* Gives the acquired buffer back; the consumer must have finished reading
 * it. A buffer of an old size is destroyed here. */
UDA_API uda_result uda_surface_release(uda_surface *surface, uint64_t buffer_id);
/* The same, for reads that may still run: release_fence_fd (or -1)
 * signals when they are done, and the producer waits for it before
 * writing the buffer again. Owned and closed as in queue_fenced. A buffer
 * of an old size is destroyed once the fence signals: found so by a later
 * call on the surface, or waited for by uda_surface_destroy; this call
 * does not wait. */
UDA_API uda_result uda_surface_release_fenced(uda_surface *surface, uint64_t buffer_id, int release_fence_fd);
/* An fd (owned by the surface, O_CLOEXEC) that polls readable while a
 * queued frame waits to be acquired, for the consumer's event loop. */
UDA_API uda_result uda_surface_get_frame_fd(uda_surface *surface, int *out_fd);

/* Called once from uda_surface_destroy, before anything is freed, on the
 * destroying thread, in the order they were added: how an EGL window
 * surface learns its native window is gone. At most
 * UDA_SURFACE_MAX_DESTROY_CALLBACKS; the same pair twice is
 * UDA_ERROR_EXISTS. A removal that succeeds, even during the destroy,
 * means the callback will not be called; UDA_ERROR_NOT_FOUND during the
 * destroy means it is being called or was, and the surface is about to
 * go. */
#define UDA_SURFACE_MAX_DESTROY_CALLBACKS 8u
typedef void (*uda_surface_destroy_callback)(uda_surface *surface, void *user_data);
UDA_API uda_result uda_surface_add_destroy_callback(uda_surface *surface, uda_surface_destroy_callback callback,
                                                    void *user_data);
UDA_API uda_result uda_surface_remove_destroy_callback(uda_surface *surface, uda_surface_destroy_callback callback,
                                                       void *user_data);

#ifdef __cplusplus
}
#endif

#endif /* UDA_SURFACE_H */
