#include <drm_fourcc.h>
#include <stdbool.h>
#include <stdlib.h>
#include <xf86drmMode.h>

#include "drm_scanout.h"

#define MAX_SCANOUT_MODIFIERS 128u

struct modifier_list {
	uint64_t values[MAX_SCANOUT_MODIFIERS];
	uint32_t count;
};

static bool list_has(const struct modifier_list *list, uint64_t modifier)
{
	for (uint32_t i = 0; i < list->count; i++) {
		if (list->values[i] == modifier)
			return true;
	}
	return false;
}

/* The modifiers any plane of `type` takes for `format`, in listed order. */
static void modifiers_of_type(const struct drm_display_record *display, uint32_t type, uint32_t format,
                              struct modifier_list *out)
{
	out->count = 0;
	for (uint32_t p = 0; p < display->plane_count; p++) {
		const struct drm_plane_record *plane = &display->planes[p];
		if (plane->type != type)
			continue;
		for (uint32_t i = 0; i < plane->formats.pair_count; i++) {
			const struct drm_format_pair *pair = &plane->formats.pairs[i];
			if (pair->format == format && !list_has(out, pair->modifier) && out->count < MAX_SCANOUT_MODIFIERS)
				out->values[out->count++] = pair->modifier;
		}
	}
}

static const char *type_name(uint32_t type)
{
	return type == DRM_PLANE_TYPE_PRIMARY ? "primary" : type == DRM_PLANE_TYPE_CURSOR ? "cursor" : "overlay";
}

static uda_result append_set(uda_context *ctx, const struct drm_display_record *display, const uda_format_info *format,
                             uint64_t modifier, bool cursor, uda_capability_set_list *out)
{
	uda_capability_set_builder *b;
	uda_result result = uda_capability_set_builder_create(ctx, &b);
	if (result != UDA_SUCCESS)
		return result;
	result = uda_capability_set_builder_add_layout(b, modifier, UDA_CAPABILITY_FLAG_REQUIRED);
	/* A display reads memory it did not allocate only as a DMA-BUF. */
	if (result == UDA_SUCCESS)
		result = uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF,
		                                            UDA_CAPABILITY_FLAG_REQUIRED);
	const uint32_t max_width = cursor && display->cursor_width ? display->cursor_width : display->max_width;
	const uint32_t max_height = cursor && display->cursor_height ? display->cursor_height : display->max_height;
	if (result == UDA_SUCCESS && max_width)
		result = uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_MAX_WIDTH, max_width);
	if (result == UDA_SUCCESS && max_height)
		result = uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_MAX_HEIGHT, max_height);
	if (result == UDA_SUCCESS && display->pitch_alignment)
		result = uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_PITCH_ALIGNMENT,
		                                                   display->pitch_alignment);
	/* Linear memory has the format's planes; a modifier's own plane
	 * count (compression planes) is the allocator's to state. */
	if (result == UDA_SUCCESS && modifier == DRM_FORMAT_MOD_LINEAR)
		result = uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_MAX_PLANES, format->plane_count);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_list_append_set(out, b);
	uda_capability_set_builder_destroy(b);
	return result;
}

uda_result drm_scanout_capability_sets(const struct drm_display_record *display, uda_context *ctx,
                                       const uda_assertion *assertion, const uda_usage *usage,
                                       uda_capability_set_list *out)
{
	uint32_t types[3] = {0};
	uint32_t type_count = 0;
	bool cursor = false;
	for (uint32_t i = 0; i < usage->atom_count; i++) {
		const uda_usage_atom *atom = &usage->atoms[i];
		uint32_t type;
		if (atom->vendor == UDA_VENDOR_NONE && atom->name == UDA_USAGE_SCANOUT)
			type = DRM_PLANE_TYPE_PRIMARY;
		else if (atom->vendor == UDA_VENDOR_NONE && atom->name == UDA_USAGE_SCANOUT_OVERLAY)
			type = DRM_PLANE_TYPE_OVERLAY;
		else if (atom->vendor == UDA_VENDOR_NONE && atom->name == UDA_USAGE_SCANOUT_CURSOR)
			type = DRM_PLANE_TYPE_CURSOR;
		else
			return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED,
			                             "drm: a display only scans out (usage %04x:%u)", atom->vendor,
			                             atom->name);
		cursor = cursor || type == DRM_PLANE_TYPE_CURSOR;
		bool seen = false;
		for (uint32_t t = 0; t < type_count; t++)
			seen = seen || types[t] == type;
		if (!seen)
			types[type_count++] = type;
	}
	if (type_count == 0)
		return uda_context_set_error(ctx, UDA_ERROR_INVALID_ARGUMENT, "drm: a usage without atoms");
	uda_format_info format;
	if (uda_format_get_info(assertion->format, &format) != UDA_SUCCESS)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "drm: unknown format 0x%08x", assertion->format);

	/* The modifiers of the first plane type, kept where every other
	 * requested type has them too. */
	struct modifier_list common, other;
	modifiers_of_type(display, types[0], assertion->format, &common);
	for (uint32_t t = 1; t < type_count; t++) {
		modifiers_of_type(display, types[t], assertion->format, &other);
		uint32_t kept = 0;
		for (uint32_t i = 0; i < common.count; i++) {
			if (list_has(&other, common.values[i]))
				common.values[kept++] = common.values[i];
		}
		common.count = kept;
	}
	if (common.count == 0)
		return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "drm: no %s plane scans out %s%s",
		                             type_name(types[0]), format.name,
		                             type_count > 1 ? " with every modifier the other planes need" : "");
	uda_result result = UDA_SUCCESS;
	for (int pass = 0; pass < 2 && result == UDA_SUCCESS; pass++) {
		for (uint32_t i = 0; i < common.count && result == UDA_SUCCESS; i++) {
			const bool linear = common.values[i] == DRM_FORMAT_MOD_LINEAR;
			if (linear == (pass == 1))
				result = append_set(ctx, display, &format, common.values[i], cursor, out);
		}
	}
	return result;
}
