/* linux-dmabuf feedback and its capability sets (wayland_feedback.h). */
#include <drm_fourcc.h>
#include <stdlib.h>
#include <string.h>

#include "wayland_feedback.h"

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
	for (uint32_t i = 0; i < tranche->pair_count; i++) {
		if (tranche->pairs[i].format == format && tranche->pairs[i].modifier == modifier)
			return true;
	}
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
		if (x->target_device != y->target_device || x->scanout != y->scanout || x->pair_count != y->pair_count ||
		    (x->pair_count && memcmp(x->pairs, y->pairs, x->pair_count * sizeof(*x->pairs)) != 0))
			return false;
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
			if (!seen && count < capacity) {
				if (out_ranks)
					out_ranks[count] = i;
				out[count++] = pair->modifier;
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
