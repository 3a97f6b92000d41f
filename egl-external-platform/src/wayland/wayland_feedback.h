/* linux-dmabuf feedback as the Wayland module keeps it, and what it means
 * for negotiation: the compositor's tranches (target device, scanout flag,
 * format and modifier pairs, best first) become capability sets of the
 * compositor's side. No Wayland types here: the translation is tested on
 * recorded feedback without a compositor (tests/wayland). */
#ifndef UDA_EGL_WAYLAND_FEEDBACK_H
#define UDA_EGL_WAYLAND_FEEDBACK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <uda/uda.h>

/* Bounds on what a compositor may make the client keep (4 MiB of pairs
 * at most; real compositors send one to three tranches of a few hundred). */
#define FEEDBACK_MAX_TRANCHES 16u
#define FEEDBACK_MAX_PAIRS_PER_TRANCHE 16384u

struct feedback_pair {
	uint32_t format;
	uint64_t modifier;
};

struct feedback_tranche {
	dev_t target_device;
	bool scanout; /* ZWP_LINUX_DMABUF_FEEDBACK_V1_TRANCHE_FLAGS_SCANOUT */
	uint32_t pair_count, pair_capacity;
	struct feedback_pair *pairs;
};

struct feedback {
	bool has_main_device;
	dev_t main_device;
	uint32_t tranche_count;
	struct feedback_tranche tranches[FEEDBACK_MAX_TRANCHES];
};

void feedback_init(struct feedback *feedback);
/* Frees the pairs; the feedback is empty again. */
void feedback_clear(struct feedback *feedback);
/* Moves `from` into `to` (what `to` held is freed); `from` is left empty. */
void feedback_move(struct feedback *to, struct feedback *from);
/* A new tranche at the end; NULL past FEEDBACK_MAX_TRANCHES. */
struct feedback_tranche *feedback_add_tranche(struct feedback *feedback);
/* A pair at the end of the tranche, in constant time (repeats are the
 * caller's to leave out: the receiver does by table index). False when
 * the tranche is full or memory ran out. */
bool feedback_tranche_add(struct feedback_tranche *tranche, uint32_t format, uint64_t modifier);
bool feedback_equal(const struct feedback *a, const struct feedback *b);
bool feedback_has_scanout(const struct feedback *feedback, uint32_t format);

/* The compositor's capability sets for buffers of `format`: one set per
 * explicit modifier (LAYOUT, HANDLE DMA_BUF required), in the tranches'
 * order, a modifier's first tranche deciding its place. Scanout tranches
 * come where the compositor put them (first, when it wants the buffer on
 * a plane). DRM_FORMAT_MOD_INVALID (an implicit layout) gives no set: uda
 * allocates explicit layouts only. UDA_ERROR_NOT_FOUND when no tranche
 * has the format with an explicit modifier. */
uda_result feedback_capability_sets(const struct feedback *feedback, uda_context *context, uint32_t format,
                                    uda_capability_set_list **out_list);
/* The explicit modifiers of `format`, in the same order, and each one's
 * rank (the index of the first tranche listing it: the compositor's
 * preference, for uda_negotiation_layout_ranking); returns how many were
 * written (at most capacity). `out_ranks` may be NULL. */
uint32_t feedback_modifiers(const struct feedback *feedback, uint32_t format, uint64_t *out, uint32_t *out_ranks,
                            uint32_t capacity);

/* The compositor's devices among those of `context`, by the dev_t its
 * feedback names: `reader`, the GPU (GL or Vulkan) of its main device (a
 * tranche's target where there is none), which samples the buffers;
 * `display`, the DRM display that the first scanout tranche listing
 * `format` targets, which scans them out while that tranche lasts. NULL
 * where uda knows none. */
void feedback_devices(const struct feedback *feedback, uda_context *context, uint32_t format, uda_device **out_reader,
                      uda_device **out_display);

/* What a client's buffers of `format` are negotiated with, from the
 * compositor's feedback: its sets (feedback_capability_sets), a DMA-BUF
 * filter of its modifiers with its tranche order as their ranking, and
 * its devices. `peer` heads the chain (peer, filter, ranking) to hang on
 * uda_negotiation_info or uda_surface_create_info; the struct points
 * into itself, so it stays where feedback_negotiation_init put it.
 * UDA_ERROR_NOT_FOUND where the feedback has no explicit layout of the
 * format; feedback_negotiation_finish after success. */
struct feedback_negotiation {
	uda_capability_set_list *sets;
	uint64_t modifiers[UDA_MAX_FILTER_MODIFIERS];
	uint32_t ranks[UDA_MAX_FILTER_MODIFIERS];
	uda_negotiation_layout_ranking ranking;
	uda_negotiation_layout_filter filter;
	uda_negotiation_peer_info peer;
	uda_device *reader, *display;
};
uda_result feedback_negotiation_init(struct feedback_negotiation *out, const struct feedback *feedback,
                                     uda_context *context, uint32_t format);
void feedback_negotiation_finish(struct feedback_negotiation *negotiation);

/* What one zwp_linux_dmabuf_feedback_v1 object sends, received event by
 * event: every event is the compositor's word, untrusted. A feedback that
 * breaks the protocol's rules (a table of the wrong size, an index past
 * it, a dev_t array of another size, too many tranches or pairs) is
 * dropped at its `done`, and the last good one stays. */
struct feedback_table_entry {
	uint32_t format;
	uint32_t padding;
	uint64_t modifier;
};

struct feedback_receiver {
	struct feedback pending, current;
	const struct feedback_table_entry *table; /* a copy of the compositor's */
	uint32_t table_size;
	bool tranche_open;
	uint8_t *tranche_seen; /* a bit per table entry: in the open tranche */
	bool broken;         /* the pending feedback broke the rules */
	bool received;       /* a good `done` came */
	uint64_t generation; /* counts the good `done`s that changed it */
};

/* A table larger than this is refused (16 bytes an entry). */
#define FEEDBACK_MAX_TABLE_BYTES (16u * 1024u * 1024u)

void feedback_receiver_init(struct feedback_receiver *receiver);
void feedback_receiver_finish(struct feedback_receiver *receiver);
/* The events, as zwp_linux_dmabuf_feedback_v1 defines them; `fd` is
 * taken (closed), `device` and `indices` are the wl_array's bytes. */
void feedback_receiver_format_table(struct feedback_receiver *receiver, int fd, uint32_t size);
void feedback_receiver_main_device(struct feedback_receiver *receiver, const void *device, size_t size);
void feedback_receiver_tranche_target_device(struct feedback_receiver *receiver, const void *device, size_t size);
void feedback_receiver_tranche_formats(struct feedback_receiver *receiver, const void *indices, size_t size);
void feedback_receiver_tranche_flags(struct feedback_receiver *receiver, uint32_t flags);
void feedback_receiver_tranche_done(struct feedback_receiver *receiver);
void feedback_receiver_done(struct feedback_receiver *receiver);

#endif
