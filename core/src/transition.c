/* uda_allocation_transition: whether memory allocated for one set of
 * device usages serves another as it is, after operations of the devices
 * that own LOCAL capabilities of it, or not at all. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "allocation.h"
#include "allocation_metadata.h"
#include "capability_set_list.h"
#include "device.h"
#include "request.h"

static bool usages_equal(const uda_usage *a, const uda_usage *b)
{
	if (a == b)
		return true;
	if (a->atom_count != b->atom_count)
		return false;
	for (uint32_t i = 0; i < a->atom_count; i++) {
		const uda_usage_atom *x = &a->atoms[i], *y = &b->atoms[i];
		if (x->vendor != y->vendor || x->name != y->name || x->length != y->length ||
		    (x->length && memcmp(x->payload, y->payload, x->length) != 0))
			return false;
	}
	return true;
}

static const uda_usage *usage_of(const uda_device_usage *entries, uint32_t count, const uda_device *device)
{
	for (uint32_t i = 0; i < count; i++) {
		if (entries[i].device == device)
			return entries[i].usage;
	}
	return NULL;
}

/* The steady state: the same devices with the same usages. */
static bool nothing_changes(const uda_transition_info *info)
{
	if (info->from_count != info->to_count)
		return false;
	for (uint32_t i = 0; i < info->to_count; i++) {
		const uda_usage *before = usage_of(info->from, info->from_count, info->to[i].device);
		if (!before || !usages_equal(before, info->to[i].usage))
			return false;
	}
	return true;
}

static bool shared_with_others(const uda_device_usage *entries, uint32_t count, const uda_device *owner)
{
	for (uint32_t i = 0; i < count; i++) {
		if (entries[i].device != owner)
			return true;
	}
	return false;
}

static uda_result validate_side(uda_context *ctx, const char *side, const uda_device_usage *entries, uint32_t count,
                                uint32_t min_count)
{
	if (count < min_count || count > UDA_MAX_NEGOTIATION_DEVICES || (count && !entries))
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "transition: `%s` needs %u..%u devices, got %u (array %p)", side,
		                             min_count, UDA_MAX_NEGOTIATION_DEVICES, count, (const void *)entries);
	for (uint32_t i = 0; i < count; i++) {
		if (!uda_device_is_live(entries[i].device) || entries[i].device->ctx != ctx)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "transition: `%s` device %u is NULL or of another context", side,
			                             i);
		for (uint32_t j = 0; j < i; j++) {
			if (entries[j].device == entries[i].device)
				return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
				                             "transition: `%s` names device %s twice", side,
				                             entries[i].device->name);
		}
		uda_result result = uda_usage_validate(ctx, entries[i].usage);
		if (result != UDA_SUCCESS)
			return result;
	}
	return UDA_SUCCESS;
}

/* The first reason found stays: it names the first device of `to` that
 * cannot use the memory. */
static void reallocate_because(uda_transition *out, const char *format, va_list args)
{
	if (out->kind == UDA_TRANSITION_REALLOCATE)
		return;
	vsnprintf(out->reason, sizeof(out->reason), format, args);
	out->kind = UDA_TRANSITION_REALLOCATE;
}

static void set_reason(uda_transition *out, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	reallocate_because(out, format, args);
	va_end(args);
}

/* Whether `device` can use the allocation's memory, as it is, for
 * `usage`: one of the sets it offers merges with the allocation's, the
 * memory's layout meets the merged constraints, and a device other than
 * the allocation's has a handle type to import it by. A device that
 * cannot is a reason to reallocate, written to `out`; only failures
 * unrelated to the memory (out of memory, a broken backend) are errors. */
static uda_result check_device(const uda_allocation *allocation, uda_device *device, const uda_usage *usage,
                               uda_transition *out)
{
	uda_context *ctx = allocation->ctx;
	const uda_assertion assertion = allocation_assertion(allocation);
	const bool foreign = device != allocation->device;
	if (foreign && !device->impl->import) {
		set_reason(out, "device %s does not import memory", device->name);
		return UDA_SUCCESS;
	}
	uda_capability_set_list *offered;
	uda_result result = uda_device_query_capability_sets(device, &assertion, usage, &offered);
	if (result == UDA_ERROR_UNSUPPORTED || result == UDA_ERROR_INCOMPATIBLE) {
		set_reason(out, "device %s cannot serve the usage at all: %s", device->name,
		           uda_context_get_error(ctx));
		return UDA_SUCCESS;
	}
	if (result != UDA_SUCCESS)
		return result;
	uda_capability_set_list *merged;
	result = uda_capability_set_list_intersect(allocation->set, offered, &merged);
	uda_capability_set_list_destroy(offered);
	if (result != UDA_SUCCESS)
		return result;

	const char *why = "it shares no capability set with the allocation's";
	char message[UDA_TRANSITION_REASON_SIZE];
	bool fits = false;
	for (uint32_t i = 0; i < merged->set_count && !fits; i++) {
		const struct uda_capability_set_record *set = &merged->sets[i];
		if (allocation_metadata_check(ctx, UDA_ERROR_INCOMPATIBLE, &allocation->backend.metadata, merged,
		                              set) != UDA_SUCCESS) {
			snprintf(message, sizeof(message), "the memory's layout breaks its constraints: %s",
			         uda_context_get_error(ctx));
			why = message;
		} else if (foreign && !capability_set_names_a_handle(merged, set)) {
			why = "no handle type of the allocation's can reach it";
		} else {
			fits = true;
		}
	}
	uda_capability_set_list_destroy(merged);
	if (!fits)
		set_reason(out, "device %s: %s", device->name, why);
	return UDA_SUCCESS;
}

static uda_result ask_backend(uda_allocation *allocation, const uda_transition_info *info, uda_transition *out)
{
	uda_device *device = allocation->device;
	uda_context *ctx = allocation->ctx;
	const bool has_hook = device->impl->version >= UDA_DEVICE_INTERFACE_VERSION_3 && device->impl->transition;
	if (!has_hook) {
		if (out->next)
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "transition: device %s fills no output structs", device->name);
		return UDA_SUCCESS;
	}
	const uda_backend_transition change = {
	    .own_from = usage_of(info->from, info->from_count, device),
	    .own_to = usage_of(info->to, info->to_count, device),
	    .shared_before = shared_with_others(info->from, info->from_count, device),
	    .shared_after = shared_with_others(info->to, info->to_count, device),
	    .info = info,
	};
	uda_result result =
	    device->impl->transition(device->data, ctx, allocation->backend.data, allocation->set, &change, out);
	if (result != UDA_SUCCESS)
		return result;
	for (uint32_t i = 0; i < out->op_count; i++)
		out->ops[i].device = device;
	return UDA_SUCCESS;
}

uda_result uda_allocation_transition(uda_allocation *allocation, const uda_transition_info *info, uda_transition *out)
{
	if (!allocation)
		return UDA_ERROR_INVALID_ARGUMENT;
	uda_context *ctx = allocation->ctx;
	UDA_CHECK_ARG(ctx, info && info->type == UDA_STRUCTURE_TYPE_TRANSITION_INFO && !info->next);
	UDA_CHECK_ARG(ctx, out && out->type == UDA_STRUCTURE_TYPE_TRANSITION);
	uda_result result = validate_side(ctx, "from", info->from, info->from_count, 0);
	if (result == UDA_SUCCESS)
		result = validate_side(ctx, "to", info->to, info->to_count, 1);
	if (result != UDA_SUCCESS)
		return result;

	out->kind = UDA_TRANSITION_NONE;
	out->op_count = 0;
	out->reason[0] = '\0';
	if (nothing_changes(info))
		return UDA_SUCCESS;

	for (uint32_t i = 0; i < info->to_count && out->kind != UDA_TRANSITION_REALLOCATE; i++) {
		result = check_device(allocation, info->to[i].device, info->to[i].usage, out);
		if (result != UDA_SUCCESS)
			return result;
	}
	/* Asked even when reallocation is decided: its operations make the
	 * contents readable for the copy. */
	return ask_backend(allocation, info, out);
}

uda_result uda_backend_transition_add_op(uda_transition *transition, uda_transition_op_kind kind,
                                         uint16_t capability_vendor, uint16_t capability_name)
{
	if (!transition || (kind != UDA_TRANSITION_OP_RELEASE && kind != UDA_TRANSITION_OP_ACQUIRE))
		return UDA_ERROR_INVALID_ARGUMENT;
	if (transition->op_count == UDA_MAX_TRANSITION_OPS)
		return UDA_ERROR_BUFFER_TOO_SMALL;
	transition->ops[transition->op_count++] = (uda_transition_op){
	    .kind = kind,
	    .capability_vendor = capability_vendor,
	    .capability_name = capability_name,
	};
	if (transition->kind == UDA_TRANSITION_NONE)
		transition->kind = UDA_TRANSITION_DEVICE_OPS;
	return UDA_SUCCESS;
}

void uda_backend_transition_reallocate(uda_transition *transition, const char *format, ...)
{
	if (!transition || !format)
		return;
	va_list args;
	va_start(args, format);
	reallocate_because(transition, format, args);
	va_end(args);
}
