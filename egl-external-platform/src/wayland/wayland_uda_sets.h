/* uda_surface_sets_v1 on the client's side (uda's own protocol,
 * wayland/protocol/uda-allocation-v1.xml): the capability sets the
 * compositor's reading devices agree on, per format, each deserialized
 * with uda's checks. No Wayland types here: tested and fuzzed alone. */
#ifndef UDA_EGL_WAYLAND_UDA_SETS_H
#define UDA_EGL_WAYLAND_UDA_SETS_H

#include <stdbool.h>
#include <stdint.h>

#include <uda/uda.h>

#define UDA_SETS_MAX_FORMATS 64u

struct uda_sets_entry {
	uint32_t format;
	uda_capability_set_list *sets;
};

struct uda_sets_receiver {
	uda_context *context;
	struct uda_sets_entry pending[UDA_SETS_MAX_FORMATS], current[UDA_SETS_MAX_FORMATS];
	uint32_t pending_count, current_count;
	bool broken;         /* the pending group broke the rules */
	bool received;       /* a good group came */
	uint64_t generation; /* counts the good groups */
};

void uda_sets_receiver_init(struct uda_sets_receiver *receiver, uda_context *context);
void uda_sets_receiver_finish(struct uda_sets_receiver *receiver);
/* format_sets: `fd` (taken) holds `size` bytes of a serialized list. A
 * file shorter than size, a size past UDA_MAX_SERIALIZED_SIZE, bytes uda
 * cannot read, a format twice in a group or too many break the group. */
void uda_sets_receiver_format_sets(struct uda_sets_receiver *receiver, uint32_t format, int fd, uint32_t size);
/* done: a good group replaces the current one whole. */
void uda_sets_receiver_done(struct uda_sets_receiver *receiver);
/* The current group's sets for `format`, or NULL. */
const uda_capability_set_list *uda_sets_receiver_find(const struct uda_sets_receiver *receiver, uint32_t format);

#endif
