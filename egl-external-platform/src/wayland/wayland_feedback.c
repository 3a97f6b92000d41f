/* linux-dmabuf feedback and its capability sets (wayland_feedback.h). */
#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "wayland_feedback.h"
#include "wayland_file.h"

void feedback_init(struct feedback *feedback)
{
	memset(feedback, 0, sizeof(*feedback));
}

void feedback_clear(struct feedback *feedback)
{
	for (uint32_t i = 0; i < feedback->tranche_count; i++)
		free(feedback->tranches[i].pairs);
	feedback_init(feedback);
}

void feedback_move(struct feedback *to, struct feedback *from)
{
	feedback_clear(to);
	*to = *from;
	feedback_init(from);
}

struct feedback_tranche *feedback_add_tranche(struct feedback *feedback)
{
	if (feedback->tranche_count == FEEDBACK_MAX_TRANCHES)
		return NULL;
	struct feedback_tranche *tranche = &feedback->tranches[feedback->tranche_count++];
	memset(tranche, 0, sizeof(*tranche));
	return tranche;
}

bool feedback_tranche_add(struct feedback_tranche *tranche, uint32_t format, uint64_t modifier)
{
	if (tranche->pair_count == tranche->pair_capacity) {
		if (tranche->pair_capacity >= FEEDBACK_MAX_PAIRS_PER_TRANCHE)
			return false;
		uint32_t capacity = tranche->pair_capacity ? tranche->pair_capacity * 2 : 16;
		struct feedback_pair *pairs = realloc(tranche->pairs, capacity * sizeof(*pairs));
		if (!pairs)
			return false;
		tranche->pairs = pairs;
		tranche->pair_capacity = capacity;
	}
	tranche->pairs[tranche->pair_count++] = (struct feedback_pair){format, modifier};
	return true;
}

bool feedback_equal(const struct feedback *a, const struct feedback *b)
{
	if (a->has_main_device != b->has_main_device || (a->has_main_device && a->main_device != b->main_device) ||
	    a->tranche_count != b->tranche_count)
		return false;
	for (uint32_t i = 0; i < a->tranche_count; i++) {
		const struct feedback_tranche *x = &a->tranches[i], *y = &b->tranches[i];
		if (x->target_device != y->target_device || x->scanout != y->scanout || x->pair_count != y->pair_count)
			return false;
		/* Pair by pair: a pair's padding is never written. */
		for (uint32_t j = 0; j < x->pair_count; j++) {
			if (x->pairs[j].format != y->pairs[j].format || x->pairs[j].modifier != y->pairs[j].modifier)
				return false;
		}
	}
	return true;
}

bool feedback_has_scanout(const struct feedback *feedback, uint32_t format)
{
	for (uint32_t i = 0; i < feedback->tranche_count; i++) {
		const struct feedback_tranche *tranche = &feedback->tranches[i];
		for (uint32_t j = 0; tranche->scanout && j < tranche->pair_count; j++) {
			if (tranche->pairs[j].format == format && tranche->pairs[j].modifier != DRM_FORMAT_MOD_INVALID)
				return true;
		}
	}
	return false;
}

uint32_t feedback_modifiers(const struct feedback *feedback, uint32_t format, uint64_t *out, uint32_t *out_ranks,
                            uint32_t capacity)
{
	uint32_t count = 0;
	for (uint32_t i = 0; i < feedback->tranche_count; i++) {
		const struct feedback_tranche *tranche = &feedback->tranches[i];
		for (uint32_t j = 0; j < tranche->pair_count; j++) {
			const struct feedback_pair *pair = &tranche->pairs[j];
			if (pair->format != format || pair->modifier == DRM_FORMAT_MOD_INVALID)
				continue;
			bool seen = false;
			for (uint32_t k = 0; k < count && !seen; k++)
				seen = out[k] == pair->modifier;
			if (!seen) {
				if (out_ranks)
					out_ranks[count] = i;
				out[count++] = pair->modifier;
				if (count == capacity)
					return count; /* nothing more fits */
			}
		}
	}
	return count;
}

uda_result feedback_capability_sets(const struct feedback *feedback, uda_context *context, uint32_t format,
                                    uda_capability_set_list **out_list)
{
	*out_list = NULL;
	enum { MAX_MODIFIERS = 256 };
	uint64_t modifiers[MAX_MODIFIERS];
	const uint32_t count = feedback_modifiers(feedback, format, modifiers, NULL, MAX_MODIFIERS);
	if (count == 0)
		return UDA_ERROR_NOT_FOUND;
	uda_capability_set_list *list = NULL;
	uda_capability_set_builder *builder = NULL;
	uda_result result = uda_capability_set_list_create(context, &list);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_create(context, &builder);
	for (uint32_t i = 0; i < count && result == UDA_SUCCESS; i++) {
		/* A compositor imports DMA-BUFs only: the handle is required. */
		result = uda_capability_set_builder_reset(builder);
		if (result == UDA_SUCCESS)
			result = uda_capability_set_builder_add_layout(builder, modifiers[i], 0);
		if (result == UDA_SUCCESS)
			result = uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF,
			                                            UDA_CAPABILITY_FLAG_REQUIRED);
		if (result == UDA_SUCCESS)
			result = uda_capability_set_list_append_set(list, builder);
	}
	uda_capability_set_builder_destroy(builder);
	if (result != UDA_SUCCESS) {
		uda_capability_set_list_destroy(list);
		return result;
	}
	*out_list = list;
	return UDA_SUCCESS;
}

/* ---- Receiving it ------------------------------------------------------ */

/* ZWP_LINUX_DMABUF_FEEDBACK_V1_TRANCHE_FLAGS_SCANOUT, without the
 * protocol header. */
#define FEEDBACK_FLAG_SCANOUT 1u

void feedback_receiver_init(struct feedback_receiver *receiver)
{
	memset(receiver, 0, sizeof(*receiver));
	feedback_init(&receiver->pending);
	feedback_init(&receiver->current);
}

static void close_tranche(struct feedback_receiver *receiver)
{
	free(receiver->tranche_seen);
	receiver->tranche_seen = NULL;
	receiver->tranche_open = false;
}

static void drop_table(struct feedback_receiver *receiver)
{
	free((void *)receiver->table);
	receiver->table = NULL;
	receiver->table_size = 0;
}

void feedback_receiver_finish(struct feedback_receiver *receiver)
{
	close_tranche(receiver);
	drop_table(receiver);
	feedback_clear(&receiver->pending);
	feedback_clear(&receiver->current);
}

void feedback_receiver_format_table(struct feedback_receiver *receiver, int fd, uint32_t size)
{
	/* A new table mid-tranche: the tranche's indices were into the old. */
	if (receiver->tranche_open)
		receiver->broken = true;
	free(receiver->tranche_seen);
	receiver->tranche_seen = NULL;
	drop_table(receiver);
	/* Copied rather than mapped (MAP_PRIVATE, as the protocol asks of
	 * clients, still faults past a shrunk file's end). */
	void *table = size % sizeof(struct feedback_table_entry) == 0
	                      ? wayland_file_copy(fd, size, FEEDBACK_MAX_TABLE_BYTES)
	                      : NULL;
	if (!table) {
		receiver->broken = true;
	} else {
		receiver->table = table;
		receiver->table_size = size;
	}
	if (fd >= 0)
		close(fd);
}

static bool read_dev_t(const void *bytes, size_t size, dev_t *out)
{
	if (!bytes || size != sizeof(dev_t))
		return false;
	memcpy(out, bytes, sizeof(dev_t));
	return true;
}

void feedback_receiver_main_device(struct feedback_receiver *receiver, const void *device, size_t size)
{
	receiver->pending.has_main_device = read_dev_t(device, size, &receiver->pending.main_device);
	receiver->broken = receiver->broken || !receiver->pending.has_main_device;
}

static struct feedback_tranche *open_tranche(struct feedback_receiver *receiver)
{
	if (!receiver->tranche_open) {
		if (!feedback_add_tranche(&receiver->pending)) {
			receiver->broken = true;
			return NULL;
		}
		receiver->tranche_open = true;
	}
	return &receiver->pending.tranches[receiver->pending.tranche_count - 1];
}

void feedback_receiver_tranche_target_device(struct feedback_receiver *receiver, const void *device, size_t size)
{
	struct feedback_tranche *tranche = open_tranche(receiver);
	if (tranche && !read_dev_t(device, size, &tranche->target_device))
		receiver->broken = true;
}

void feedback_receiver_tranche_formats(struct feedback_receiver *receiver, const void *indices, size_t size)
{
	struct feedback_tranche *tranche = open_tranche(receiver);
	if (!tranche)
		return;
	const uint32_t entries = receiver->table_size / sizeof(struct feedback_table_entry);
	if (!receiver->table || (size && !indices) || size % sizeof(uint16_t) != 0) {
		receiver->broken = true;
		return;
	}
	/* A repeat within the tranche is left out here, by its index, in
	 * constant time: a compositor's repeats cost the client nothing. */
	if (!receiver->tranche_seen && !(receiver->tranche_seen = calloc(entries / 8 + 1, 1))) {
		receiver->broken = true;
		return;
	}
	for (size_t i = 0; i < size / sizeof(uint16_t); i++) {
		uint16_t index;
		memcpy(&index, (const uint8_t *)indices + i * sizeof(index), sizeof(index));
		if (index >= entries) {
			receiver->broken = true;
			return;
		}
		if (receiver->tranche_seen[index / 8] & (1u << (index % 8)))
			continue;
		receiver->tranche_seen[index / 8] |= (uint8_t)(1u << (index % 8));
		const struct feedback_table_entry *entry = &receiver->table[index];
		if (!feedback_tranche_add(tranche, entry->format, entry->modifier)) {
			receiver->broken = true;
			return;
		}
	}
}

void feedback_receiver_tranche_flags(struct feedback_receiver *receiver, uint32_t flags)
{
	struct feedback_tranche *tranche = open_tranche(receiver);
	if (tranche)
		tranche->scanout = (flags & FEEDBACK_FLAG_SCANOUT) != 0;
}

void feedback_receiver_tranche_done(struct feedback_receiver *receiver)
{
	open_tranche(receiver); /* an empty tranche is still one */
	close_tranche(receiver);
}

void feedback_receiver_done(struct feedback_receiver *receiver)
{
	if (receiver->broken || receiver->tranche_open) {
		feedback_clear(&receiver->pending);
	} else if (receiver->received && feedback_equal(&receiver->current, &receiver->pending)) {
		/* Sent again unchanged (compositors resend on every plane
		 * decision): nothing to negotiate anew. */
		feedback_clear(&receiver->pending);
	} else {
		feedback_move(&receiver->current, &receiver->pending);
		receiver->generation++;
		receiver->received = true;
	}
	receiver->broken = false;
	close_tranche(receiver);
}

/* A device of `context` through `api` (or `other_api`) whose primary or
 * render node is `node`; NULL where there is none. */
static uda_device *device_on_node(uda_context *context, dev_t node, uda_device_api api, uda_device_api other_api)
{
	uint32_t count = 0;
	if (uda_context_enumerate_devices(context, &count, NULL) != UDA_SUCCESS || count == 0)
		return NULL;
	uda_device **devices = calloc(count, sizeof(*devices));
	uda_device *found = NULL;
	if (devices && uda_context_enumerate_devices(context, &count, devices) == UDA_SUCCESS) {
		for (uint32_t i = 0; i < count && !found; i++) {
			uda_device_info info = {.type = UDA_STRUCTURE_TYPE_DEVICE_INFO};
			if (uda_device_get_info(devices[i], &info) != UDA_SUCCESS ||
			    (info.api != api && info.api != other_api))
				continue;
			const uda_drm_node *nodes[] = {&info.drm_primary, &info.drm_render};
			for (int n = 0; n < 2 && !found; n++) {
				if (nodes[n]->present && nodes[n]->major == major(node) && nodes[n]->minor == minor(node))
					found = devices[i];
			}
		}
	}
	free(devices);
	return found;
}

void feedback_devices(const struct feedback *feedback, uda_context *context, uint32_t format, uda_device **out_reader,
                      uda_device **out_display)
{
	*out_reader = NULL;
	*out_display = NULL;
	if (feedback->has_main_device)
		*out_reader = device_on_node(context, feedback->main_device, UDA_DEVICE_API_GL, UDA_DEVICE_API_VULKAN);
	else if (feedback->tranche_count)
		*out_reader =
		        device_on_node(context, feedback->tranches[0].target_device, UDA_DEVICE_API_GL, UDA_DEVICE_API_VULKAN);
	for (uint32_t i = 0; i < feedback->tranche_count; i++) {
		const struct feedback_tranche *tranche = &feedback->tranches[i];
		bool lists_format = false;
		for (uint32_t j = 0; tranche->scanout && j < tranche->pair_count && !lists_format; j++)
			lists_format = tranche->pairs[j].format == format && tranche->pairs[j].modifier != DRM_FORMAT_MOD_INVALID;
		if (lists_format) {
			*out_display = device_on_node(context, tranche->target_device, UDA_DEVICE_API_DRM, UDA_DEVICE_API_DRM);
			return;
		}
	}
}

uda_result feedback_negotiation_init(struct feedback_negotiation *out, const struct feedback *feedback,
                                     uda_context *context, uint32_t format)
{
	memset(out, 0, sizeof(*out));
	const uda_result result = feedback_capability_sets(feedback, context, format, &out->sets);
	if (result != UDA_SUCCESS)
		return result;
	const uint32_t count = feedback_modifiers(feedback, format, out->modifiers, out->ranks, UDA_MAX_FILTER_MODIFIERS);
	/* The compositor's tranche order leads (a scanout tranche first). */
	out->ranking = (uda_negotiation_layout_ranking){UDA_STRUCTURE_TYPE_NEGOTIATION_LAYOUT_RANKING, NULL, count,
	                                                out->modifiers, out->ranks};
	out->filter = (uda_negotiation_layout_filter){UDA_STRUCTURE_TYPE_NEGOTIATION_LAYOUT_FILTER, &out->ranking, count,
	                                              out->modifiers, UDA_HANDLE_TYPE_DMA_BUF};
	out->peer = (uda_negotiation_peer_info){UDA_STRUCTURE_TYPE_NEGOTIATION_PEER_INFO, &out->filter, out->sets};
	feedback_devices(feedback, context, format, &out->reader, &out->display);
	return UDA_SUCCESS;
}

void feedback_negotiation_finish(struct feedback_negotiation *negotiation)
{
	uda_capability_set_list_destroy(negotiation->sets);
	negotiation->sets = NULL;
}
