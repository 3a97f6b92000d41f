/* The structs a negotiation's `next` chain may carry (peer lists, one
 * layout filter): parsed once, checked once, and for uda_surface kept as
 * owned copies. */
#ifndef UDA_NEGOTIATION_CHAIN_H
#define UDA_NEGOTIATION_CHAIN_H

#include <uda/uda.h>

struct negotiation_chain {
	const uda_negotiation_peer_info *peers[UDA_MAX_NEGOTIATION_PEERS];
	uint32_t peer_count;
	const uda_negotiation_layout_filter *layout_filter; /* NULL: none */
	const uda_negotiation_layout_ranking *layout_ranking; /* NULL: none */
};

/* Checks every link; `caller` names the entry point in messages. */
uda_result negotiation_chain_parse(uda_context *ctx, const void *next, const char *caller,
                                   struct negotiation_chain *out);

/* Applies the filter to a negotiated list in place: modifiers first, then
 * the handle preference. UDA_ERROR_INCOMPATIBLE if no set is left. */
uda_result negotiation_layout_filter_apply(uda_context *ctx, const uda_negotiation_layout_filter *filter,
                                           uda_capability_set_list *list);

/* Orders a negotiated list in place by the ranking (stable). */
uda_result negotiation_layout_ranking_apply(uda_context *ctx, const uda_negotiation_layout_ranking *ranking,
                                            uda_capability_set_list *list);

/* An owned copy of a parsed chain, relinked as a chain of its own. */
struct negotiation_chain_copy {
	uint32_t peer_count;
	uda_capability_set_list *peer_sets[UDA_MAX_NEGOTIATION_PEERS];
	uda_negotiation_peer_info peers[UDA_MAX_NEGOTIATION_PEERS];
	bool has_layout_filter;
	uda_negotiation_layout_filter layout_filter;
	uint64_t *modifiers;
	bool has_layout_ranking;
	uda_negotiation_layout_ranking layout_ranking;
	uint64_t *ranked_modifiers;
	uint32_t *ranks;
	const void *head; /* the first link, NULL when the chain is empty */
};

uda_result negotiation_chain_copy_init(struct negotiation_chain_copy *copy, const struct negotiation_chain *chain);
void negotiation_chain_copy_finish(struct negotiation_chain_copy *copy);
/* The head of the copied chain, for uda_negotiation_info::next. */
const void *negotiation_chain_copy_head(const struct negotiation_chain_copy *copy);

#endif
