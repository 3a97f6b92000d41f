#include <stdlib.h>
#include <string.h>

#include "capability_set_list.h"

uda_result uda_capability_set_builder_create(uda_context *ctx, uda_capability_set_builder **out_builder)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(ctx, out_builder);
	uda_capability_set_builder *builder = calloc(1, sizeof(*builder));
	if (!builder)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	builder->ctx = ctx;
	*out_builder = builder;
	return UDA_SUCCESS;
}

void capability_set_builder_release(uda_capability_set_builder *builder)
{
	free(builder->caps);
	free(builder->payload);
}

void uda_capability_set_builder_destroy(uda_capability_set_builder *builder)
{
	if (!builder)
		return;
	capability_set_builder_release(builder);
	free(builder);
}

uda_result uda_capability_set_builder_reset(uda_capability_set_builder *builder)
{
	if (!builder)
		return UDA_ERROR_INVALID_ARGUMENT;
	memset(&builder->constraints, 0, sizeof(builder->constraints));
	builder->cap_count = 0;
	builder->payload_size = 0;
	return UDA_SUCCESS;
}

uda_result uda_capability_set_builder_set_constraint(uda_capability_set_builder *builder, uda_constraint constraint,
                                                     uint64_t value)
{
	if (!builder)
		return UDA_ERROR_INVALID_ARGUMENT;
	const char *why;
	if (!uda_constraint_value_valid(constraint, value, &why))
		return uda_context_set_error(builder->ctx, UDA_ERROR_INVALID_ARGUMENT, "constraint %u = %llu: %s",
		                             (unsigned)constraint, (unsigned long long)value, why);
	builder->constraints.present |= 1u << constraint;
	builder->constraints.value[constraint] = value;
	return UDA_SUCCESS;
}

/* `first`: the capacity of a new array, enough for a typical set (a
 * layout, a handle or two, IMAGE_PARAMS) so that building one does not
 * reallocate. */
static bool grow(void **array, uint32_t *capacity, uint32_t needed, size_t element_size, uint32_t first)
{
	if (needed <= *capacity)
		return true;
	uint32_t new_capacity = *capacity ? *capacity : first;
	while (new_capacity < needed)
		new_capacity *= 2;
	void *grown = realloc(*array, (size_t)new_capacity * element_size);
	if (!grown)
		return false;
	*array = grown;
	*capacity = new_capacity;
	return true;
}

uda_result uda_capability_set_builder_add_capability(uda_capability_set_builder *builder,
                                                     const uda_capability *capability)
{
	if (!builder)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(builder->ctx, capability);
	if (builder->cap_count >= UDA_MAX_CAPABILITIES_PER_SET)
		return uda_context_set_error(builder->ctx, UDA_ERROR_OVERFLOW, "a set holds at most %u capabilities",
		                             UDA_MAX_CAPABILITIES_PER_SET);

	struct uda_capability_record record;
	const char *why;
	if (!capability_record_from_public(capability, &record, &why))
		return uda_context_set_error(builder->ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "capability vendor 0x%04x name %u: %s", capability->vendor,
		                             capability->name, why);
	for (uint32_t i = 0; i < builder->cap_count; i++) {
		const struct uda_capability_record *other = &builder->caps[i];
		const uint8_t *other_payload = other->length ? builder->payload + other->payload_offset : NULL;
		if (capability_key_compare(capability->payload, &record, other_payload, other) == 0)
			return uda_context_set_error(builder->ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "capability vendor 0x%04x name %u added twice", capability->vendor,
			                             capability->name);
	}

	if (!grow((void **)&builder->caps, &builder->cap_capacity, builder->cap_count + 1, sizeof(record), 8) ||
	    !grow((void **)&builder->payload, &builder->payload_capacity, builder->payload_size + record.length, 1, 128))
		return uda_context_set_error(builder->ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	record.payload_offset = builder->payload_size;
	if (record.length)
		memcpy(builder->payload + builder->payload_size, capability->payload, record.length);
	builder->payload_size += record.length;
	builder->caps[builder->cap_count++] = record;
	return UDA_SUCCESS;
}

uda_result uda_capability_set_builder_add_layout(uda_capability_set_builder *builder, uint64_t modifier, uint32_t flags)
{
	uint8_t payload[8];
	for (int i = 0; i < 8; i++)
		payload[i] = (uint8_t)(modifier >> (8 * i));
	uda_capability cap = {
	    .vendor = UDA_VENDOR_NONE,
	    .name = UDA_CAPABILITY_LAYOUT,
	    .flags = flags,
	    .length = sizeof(payload),
	    .payload = payload,
	};
	return uda_capability_set_builder_add_capability(builder, &cap);
}

uda_result uda_capability_set_builder_add_u32(uda_capability_set_builder *builder, uda_capability_name name,
                                              uint32_t value, uint32_t flags)
{
	uint8_t payload[4];
	for (int i = 0; i < 4; i++)
		payload[i] = (uint8_t)(value >> (8 * i));
	uda_capability cap = {
	    .vendor = UDA_VENDOR_NONE,
	    .name = (uint16_t)name,
	    .flags = flags,
	    .length = sizeof(payload),
	    .payload = payload,
	};
	return uda_capability_set_builder_add_capability(builder, &cap);
}
