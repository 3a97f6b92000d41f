#include <uda/uda_backend.h>

#include "request.h"

uda_result uda_assertion_validate(const uda_context *ctx, const uda_assertion *a)
{
	if (!a)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "assertion is NULL");
	if (a->type != UDA_STRUCTURE_TYPE_ASSERTION)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "assertion has type %d", (int)a->type);
	if (a->next)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "assertion: unknown extension struct");
	if (a->width == 0 || a->height == 0 || a->width > UDA_MAX_DIMENSION || a->height > UDA_MAX_DIMENSION)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "assertion: %ux%u is outside 1..%u",
		                             a->width, a->height, UDA_MAX_DIMENSION);
	uda_format_info info;
	if (uda_format_get_info(a->format, &info) != UDA_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "assertion: unknown DRM fourcc 0x%08x",
		                             a->format);
	if (a->plane_count_hint > UDA_MAX_PLANES)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "assertion: plane count hint %u above %u",
		                             a->plane_count_hint, UDA_MAX_PLANES);
	return UDA_SUCCESS;
}

static uint32_t common_atom_payload_size(uint16_t name)
{
	return name == UDA_USAGE_CPU_READ || name == UDA_USAGE_CPU_WRITE ? 4 : 0;
}

uda_result uda_usage_validate(const uda_context *ctx, const uda_usage *u)
{
	if (!u)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "usage is NULL");
	if (u->type != UDA_STRUCTURE_TYPE_USAGE)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "usage has type %d", (int)u->type);
	if (u->next)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "usage: unknown extension struct");
	if (u->atom_count == 0 || u->atom_count > UDA_MAX_USAGE_ATOMS || !u->atoms)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
		                             "usage: %u atoms (array %p), 1..%u required", u->atom_count,
		                             (const void *)u->atoms, UDA_MAX_USAGE_ATOMS);
	for (uint32_t i = 0; i < u->atom_count; i++) {
		const uda_usage_atom *atom = &u->atoms[i];
		if (atom->length > UDA_MAX_PAYLOAD_SIZE || (atom->length && !atom->payload))
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "usage atom %u: bad payload (%u bytes at %p)", i, atom->length,
			                             atom->payload);
		if (atom->vendor != UDA_VENDOR_NONE)
			continue;
		if (atom->name < UDA_USAGE_RENDER_TARGET || atom->name > UDA_USAGE_CAMERA_CAPTURE)
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "usage atom %u: unknown name %u",
			                             i, atom->name);
		if (atom->length != common_atom_payload_size(atom->name))
			return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
			                             "usage atom %u: payload of %u bytes, %u expected", i, atom->length,
			                             common_atom_payload_size(atom->name));
		if (atom->length) {
			const uint8_t *p = atom->payload;
			uint32_t frequency = p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
			if (frequency > UDA_CPU_ACCESS_OFTEN)
				return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT,
				                             "usage atom %u: unknown CPU access frequency %u", i,
				                             frequency);
		}
	}
	return UDA_SUCCESS;
}
