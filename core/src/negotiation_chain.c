#include <stdlib.h>
#include <string.h>

#include "capability_set_list.h"
#include "negotiation_chain.h"

static uda_result parse_layout_filter(uda_context *ctx, const uda_negotiation_layout_filter *filter,
                                      const char *caller, struct negotiation_chain *out)
{
	if (out->layout_filter)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "%s: more than one layout filter",
		                             caller);
	if (filter->modifier_count > UDA_MAX_FILTER_MODIFIERS || (filter->modifier_count && !filter->modifiers))
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "%s: a layout filter takes 0..%u modifiers in an array (got %u, %p)",
		                             caller, UDA_MAX_FILTER_MODIFIERS, filter->modifier_count,
		                             (const void *)filter->modifiers);
	switch (filter->preferred_handle_type) {
	case UDA_HANDLE_TYPE_NONE:
	case UDA_HANDLE_TYPE_DMA_BUF:
	case UDA_HANDLE_TYPE_OPAQUE_FD:
	case UDA_HANDLE_TYPE_MEMFD:
		break;
	default:
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "%s: unknown preferred handle type %d",
		                             caller, (int)filter->preferred_handle_type);
	}
	out->layout_filter = filter;
	return UDA_SUCCESS;
}

static uda_result parse_layout_ranking(uda_context *ctx, const uda_negotiation_layout_ranking *ranking,
                                       const char *caller, struct negotiation_chain *out)
{
	if (out->layout_ranking)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "%s: more than one layout ranking",
		                             caller);
	if (ranking->count == 0 || ranking->count > UDA_MAX_FILTER_MODIFIERS || !ranking->modifiers || !ranking->ranks)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "%s: a layout ranking takes 1..%u modifiers and as many ranks (got %u)",
		                             caller, UDA_MAX_FILTER_MODIFIERS, ranking->count);
	out->layout_ranking = ranking;
	return UDA_SUCCESS;
}

uda_result negotiation_chain_parse(uda_context *ctx, const void *next, const char *caller,
                                   struct negotiation_chain *out)
{
	memset(out, 0, sizeof(*out));
	for (const uda_negotiation_peer_info *link = next; link; link = link->next) {
		uda_result result = UDA_SUCCESS;
		switch (link->type) {
		case UDA_STRUCTURE_TYPE_NEGOTIATION_PEER_INFO:
			if (!link->sets)
				return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "%s: a peer without sets",
				                             caller);
			if (out->peer_count == UDA_MAX_NEGOTIATION_PEERS)
				return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "%s: more than %u peers",
				                             caller, UDA_MAX_NEGOTIATION_PEERS);
			if (link->sets->ctx != ctx)
				return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
				                             "%s: a peer list of another context", caller);
			out->peers[out->peer_count++] = link;
			break;
		case UDA_STRUCTURE_TYPE_NEGOTIATION_LAYOUT_FILTER:
			result = parse_layout_filter(ctx, (const uda_negotiation_layout_filter *)link, caller, out);
			break;
		case UDA_STRUCTURE_TYPE_NEGOTIATION_LAYOUT_RANKING:
			result = parse_layout_ranking(ctx, (const uda_negotiation_layout_ranking *)link, caller, out);
			break;
		default:
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "%s: unknown struct %d in the next chain", caller, (int)link->type);
		}
		if (result != UDA_SUCCESS)
			return result;
	}
	return UDA_SUCCESS;
}

static bool layout_allowed(const struct uda_capability_set_record *set, const void *data)
{
	const void *const *args = data;
	const uda_capability_set_list *list = args[0];
	const uda_negotiation_layout_filter *filter = args[1];
	uint64_t modifier;
	if (!capability_set_layout_modifier(list, set, &modifier))
		return false;
	for (uint32_t i = 0; i < filter->modifier_count; i++) {
		if (filter->modifiers[i] == modifier)
			return true;
	}
	return false;
}

static bool set_carries_handle(const uda_capability_set_list *list, const struct uda_capability_set_record *set,
                               uda_handle_type handle)
{
	for (uint32_t i = 0; i < set->local_first; i++) {
		const struct uda_capability_record *cap = &list->caps[set->cap_first + i];
		if (cap->vendor != UDA_VENDOR_NONE || cap->name != UDA_CAPABILITY_HANDLE || cap->length != 4)
			continue;
		const uint8_t *p = capability_payload(list, cap);
		uint32_t value = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
		if (value == (uint32_t)handle)
			return true;
	}
	return false;
}

uda_result negotiation_layout_filter_apply(uda_context *ctx, const uda_negotiation_layout_filter *filter,
                                           uda_capability_set_list *list)
{
	if (filter->modifier_count) {
		const void *args[2] = {list, filter};
		capability_set_list_filter(list, layout_allowed, args);
		if (list->set_count == 0)
			return uda_context_set_error(ctx, UDA_ERROR_INCOMPATIBLE,
			                             "negotiation: none of the %u modifiers the caller allows is a "
			                             "layout the devices share",
			                             filter->modifier_count);
	}
	if (filter->preferred_handle_type == UDA_HANDLE_TYPE_NONE || list->set_count < 2)
		return UDA_SUCCESS;
	/* A stable partition: the preferred sets, then the others. */
	struct uda_capability_set_record *sorted = malloc(sizeof(*sorted) * list->set_count);
	if (!sorted)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	uint32_t n = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (uint32_t s = 0; s < list->set_count; s++) {
			bool preferred = set_carries_handle(list, &list->sets[s], filter->preferred_handle_type);
			if (preferred == (pass == 0))
				sorted[n++] = list->sets[s];
		}
	}
	memcpy(list->sets, sorted, sizeof(*sorted) * list->set_count);
	free(sorted);
	return UDA_SUCCESS;
}

static uint32_t rank_of(const uda_capability_set_list *list, const struct uda_capability_set_record *set,
                        const uda_negotiation_layout_ranking *ranking)
{
	uint64_t modifier;
	uint32_t best = UINT32_MAX;
	if (!capability_set_layout_modifier(list, set, &modifier))
		return best;
	for (uint32_t i = 0; i < ranking->count; i++) {
		if (ranking->modifiers[i] == modifier && ranking->ranks[i] < best)
			best = ranking->ranks[i];
	}
	return best;
}

uda_result negotiation_layout_ranking_apply(uda_context *ctx, const uda_negotiation_layout_ranking *ranking,
                                            uda_capability_set_list *list)
{
	if (list->set_count < 2)
		return UDA_SUCCESS;
	struct uda_capability_set_record *sorted = malloc(sizeof(*sorted) * list->set_count);
	uint32_t *ranks = malloc(sizeof(*ranks) * list->set_count);
	if (!sorted || !ranks) {
		free(sorted);
		free(ranks);
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	}
	for (uint32_t s = 0; s < list->set_count; s++)
		ranks[s] = rank_of(list, &list->sets[s], ranking);
	/* Insertion by rank keeps equal ranks in negotiated order; lists are
	 * short (a feedback's modifiers) and this runs once per negotiation. */
	for (uint32_t s = 0; s < list->set_count; s++) {
		uint32_t at = s;
		while (at > 0 && ranks[at - 1] > ranks[s])
			at--;
		uint32_t rank = ranks[s];
		struct uda_capability_set_record record = list->sets[s];
		memmove(&ranks[at + 1], &ranks[at], sizeof(*ranks) * (s - at));
		memmove(&sorted[at + 1], &sorted[at], sizeof(*sorted) * (s - at));
		ranks[at] = rank;
		sorted[at] = record;
	}
	memcpy(list->sets, sorted, sizeof(*sorted) * list->set_count);
	free(sorted);
	free(ranks);
	return UDA_SUCCESS;
}

uda_result negotiation_chain_copy_init(struct negotiation_chain_copy *copy, const struct negotiation_chain *chain)
{
	memset(copy, 0, sizeof(*copy));
	for (uint32_t i = 0; i < chain->peer_count; i++) {
		uda_result result = uda_capability_set_list_copy(chain->peers[i]->sets, &copy->peer_sets[i]);
		if (result != UDA_SUCCESS)
			return result;
		copy->peers[i] = (uda_negotiation_peer_info){UDA_STRUCTURE_TYPE_NEGOTIATION_PEER_INFO, NULL,
		                                             copy->peer_sets[i]};
		copy->peer_count++;
	}
	if (chain->layout_filter) {
		copy->has_layout_filter = true;
		copy->layout_filter = *chain->layout_filter;
		copy->layout_filter.next = NULL;
		uint32_t count = chain->layout_filter->modifier_count;
		if (count) {
			copy->modifiers = malloc(sizeof(uint64_t) * count);
			if (!copy->modifiers)
				return UDA_ERROR_OUT_OF_MEMORY;
			memcpy(copy->modifiers, chain->layout_filter->modifiers, sizeof(uint64_t) * count);
		}
		copy->layout_filter.modifiers = copy->modifiers;
	}
	if (chain->layout_ranking) {
		const uint32_t count = chain->layout_ranking->count;
		copy->has_layout_ranking = true;
		copy->layout_ranking = *chain->layout_ranking;
		copy->ranked_modifiers = malloc(sizeof(uint64_t) * count);
		copy->ranks = malloc(sizeof(uint32_t) * count);
		if (!copy->ranked_modifiers || !copy->ranks)
			return UDA_ERROR_OUT_OF_MEMORY;
		memcpy(copy->ranked_modifiers, chain->layout_ranking->modifiers, sizeof(uint64_t) * count);
		memcpy(copy->ranks, chain->layout_ranking->ranks, sizeof(uint32_t) * count);
		copy->layout_ranking.modifiers = copy->ranked_modifiers;
		copy->layout_ranking.ranks = copy->ranks;
	}
	/* Relinked only now: the structs sit in arrays that no longer move.
	 * Order: peers, filter, ranking. */
	const void *links[UDA_MAX_NEGOTIATION_PEERS + 2];
	uint32_t link_count = 0;
	for (uint32_t i = 0; i < copy->peer_count; i++)
		links[link_count++] = &copy->peers[i];
	if (copy->has_layout_filter)
		links[link_count++] = &copy->layout_filter;
	if (copy->has_layout_ranking)
		links[link_count++] = &copy->layout_ranking;
	for (uint32_t i = 0; i < link_count; i++) {
		const void *next = i + 1 < link_count ? links[i + 1] : NULL;
		/* Every chained struct starts with type and next. */
		((uda_negotiation_peer_info *)links[i])->next = next;
	}
	copy->head = link_count ? links[0] : NULL;
	return UDA_SUCCESS;
}

void negotiation_chain_copy_finish(struct negotiation_chain_copy *copy)
{
	for (uint32_t i = 0; i < copy->peer_count; i++)
		uda_capability_set_list_destroy(copy->peer_sets[i]);
	free(copy->modifiers);
	free(copy->ranked_modifiers);
	free(copy->ranks);
	memset(copy, 0, sizeof(*copy));
}

const void *negotiation_chain_copy_head(const struct negotiation_chain_copy *copy)
{
	return copy->head;
}
