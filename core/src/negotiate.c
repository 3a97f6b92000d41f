/* uda_negotiate: fold the devices' capability-set lists into the sets all
 * of them accept, for one assertion. */
#include <stdlib.h>
#include <string.h>

#include "capability_set_list.h"
#include "device.h"
#include "linear_layout.h"
#include "negotiation_chain.h"
#include "request.h"

struct assertion_fit {
	const uda_assertion *assertion;
	uda_format_info format;
};

struct fit_filter {
	const struct assertion_fit *fit;
	const uda_capability_set_list *list;
};

static bool set_holds_assertion(const struct uda_capability_set_record *set, const void *data)
{
	const struct fit_filter *filter = data;
	const struct assertion_fit *fit = filter->fit;
	const struct uda_constraint_values *c = &set->constraints;
	if ((c->present & (1u << UDA_CONSTRAINT_MAX_WIDTH)) &&
	    fit->assertion->width > c->value[UDA_CONSTRAINT_MAX_WIDTH])
		return false;
	if ((c->present & (1u << UDA_CONSTRAINT_MAX_HEIGHT)) &&
	    fit->assertion->height > c->value[UDA_CONSTRAINT_MAX_HEIGHT])
		return false;
	uint32_t planes = fit->assertion->plane_count_hint ? fit->assertion->plane_count_hint : fit->format.plane_count;
	if ((c->present & (1u << UDA_CONSTRAINT_MAX_PLANES)) && planes > c->value[UDA_CONSTRAINT_MAX_PLANES])
		return false;
	uda_allocation_metadata layout;
	if (capability_set_is_linear(filter->list, set) &&
	    !linear_layout_compute(&fit->format, fit->assertion->width, fit->assertion->height, c, &layout))
		return false;
	return true;
}

static bool set_names_a_handle(const struct uda_capability_set_record *set, const void *data)
{
	return capability_set_names_a_handle(data, set);
}

static bool several_devices(const uda_negotiation_info *info)
{
	for (uint32_t i = 1; i < info->device_count; i++) {
		if (info->devices[i].device != info->devices[0].device)
			return true;
	}
	return false;
}

static uda_result validate_info(uda_context *ctx, const uda_negotiation_info *info)
{
	UDA_CHECK_ARG(ctx, info);
	UDA_CHECK_ARG(ctx, info->type == UDA_STRUCTURE_TYPE_NEGOTIATION_INFO);
	if (info->device_count == 0 || info->device_count > UDA_MAX_NEGOTIATION_DEVICES || !info->devices)
		return uda_context_set_error(
		    ctx, UDA_ERROR_INVALID_ARGUMENT, "negotiation needs 1..%u devices, got %u (array %p)",
		    UDA_MAX_NEGOTIATION_DEVICES, info->device_count, (const void *)info->devices);
	uda_result result = uda_assertion_validate(ctx, info->assertion);
	for (uint32_t i = 0; result == UDA_SUCCESS && i < info->device_count; i++) {
		const uda_device_usage *entry = &info->devices[i];
		if (!uda_device_is_live(entry->device) || entry->device->ctx != ctx)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "negotiation device %u is NULL or of another context", i);
		result = uda_usage_validate(ctx, entry->usage);
	}
	return result;
}

uda_result uda_negotiate(uda_context *ctx, const uda_negotiation_info *info, uda_capability_set_list **out_list)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(ctx, out_list);
	uda_result result = validate_info(ctx, info);
	if (result != UDA_SUCCESS)
		return result;

	struct negotiation_chain chain;
	result = negotiation_chain_parse(ctx, info->next, "negotiation", &chain);
	if (result != UDA_SUCCESS)
		return result;
	const uint32_t peer_count = chain.peer_count;

	struct assertion_fit fit = {.assertion = info->assertion};
	uda_format_get_info(info->assertion->format, &fit.format);

	/* The context's devices, then the peers' lists, in one fold: step i
	 * of device_count + peer_count. */
	uda_capability_set_list *folded = NULL;
	for (uint32_t i = 0; i < info->device_count + peer_count; i++) {
		const bool is_peer = i >= info->device_count;
		uda_device *device = is_peer ? NULL : info->devices[i].device;
		const char *name = is_peer ? "a peer's list" : device->name;
		uda_capability_set_list *list;
		if (is_peer)
			result = uda_capability_set_list_copy(chain.peers[i - info->device_count]->sets, &list);
		else
			result = uda_device_query_capability_sets(device, info->assertion, info->devices[i].usage, &list);
		if (result != UDA_SUCCESS)
			break;
		struct fit_filter filter = {&fit, list};
		capability_set_list_filter(list, set_holds_assertion, &filter);
		if (list->set_count == 0) {
			uda_capability_set_list_destroy(list);
			result = uda_context_set_error(
			    ctx, UDA_ERROR_INCOMPATIBLE, "device %u (%s): no capability set can hold %ux%u %s", i,
			    name, info->assertion->width, info->assertion->height, fit.format.name);
			break;
		}
		if (!folded) {
			folded = list;
			continue;
		}
		uda_capability_set_list *next;
		result = uda_capability_set_list_intersect(folded, list, &next);
		uda_capability_set_list_destroy(list);
		uda_capability_set_list_destroy(folded);
		folded = NULL;
		if (result != UDA_SUCCESS)
			break;
		folded = next;
		uint32_t common = folded->set_count;
		/* Merging tightens constraints (the minimum of the max pitches,
		 * the LCM of the pitch alignments): a pair of sets that each
		 * hold the image may merge into one that does not. */
		struct fit_filter merged = {&fit, folded};
		capability_set_list_filter(folded, set_holds_assertion, &merged);
		if (common == 0) {
			result = uda_context_set_error(ctx, UDA_ERROR_INCOMPATIBLE,
			                               "device %u (%s) shares no capability set with devices 0..%u", i,
			                               name, i - 1);
			break;
		}
		if (folded->set_count == 0) {
			result = uda_context_set_error(
			    ctx, UDA_ERROR_INCOMPATIBLE,
			    "device %u (%s): no capability set shared with devices 0..%u can hold %ux%u %s", i,
			    name, i - 1, info->assertion->width, info->assertion->height, fit.format.name);
			break;
		}
	}
	/* Memory that several devices share travels as a handle all of them
	 * accept: a set whose handle capabilities did not survive the
	 * intersection can be allocated but never reach the others. */
	if (result == UDA_SUCCESS && (several_devices(info) || peer_count)) {
		capability_set_list_filter(folded, set_names_a_handle, folded);
		if (folded->set_count == 0)
			result = uda_context_set_error(ctx, UDA_ERROR_INCOMPATIBLE,
			                               "the devices share capability sets but no handle type to "
			                               "pass the memory between them");
	}
	if (result == UDA_SUCCESS && chain.layout_filter)
		result = negotiation_layout_filter_apply(ctx, chain.layout_filter, folded);
	if (result == UDA_SUCCESS && chain.layout_ranking)
		result = negotiation_layout_ranking_apply(ctx, chain.layout_ranking, folded);
	if (result != UDA_SUCCESS) {
		uda_capability_set_list_destroy(folded);
		return result;
	}
	*out_list = folded;
	return UDA_SUCCESS;
}
