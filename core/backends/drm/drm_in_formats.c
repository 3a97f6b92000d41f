#include <stdlib.h>
#include <string.h>

#include <drm_mode.h>

#include "drm_in_formats.h"

/* A plane lists a few dozen formats and modifiers; anything far past that
 * is a corrupt count, refused before it sizes an allocation. */
#define MAX_FORMATS 4096u
#define MAX_MODIFIERS 4096u

static uint32_t read_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return v;
}

static uint64_t read_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
}

/* Whether [offset, offset + count * item) lies inside size. */
static int range_fits(uint64_t offset, uint64_t count, uint64_t item, size_t size)
{
	return offset <= size && count <= (size - offset) / item;
}

const char *drm_in_formats_parse(const void *blob, size_t size, struct drm_in_formats *out)
{
	memset(out, 0, sizeof(*out));
	const uint8_t *bytes = blob;
	if (!blob || size < sizeof(struct drm_format_modifier_blob))
		return "IN_FORMATS blob shorter than its header";
	const uint32_t version = read_u32(bytes + offsetof(struct drm_format_modifier_blob, version));
	const uint32_t count_formats = read_u32(bytes + offsetof(struct drm_format_modifier_blob, count_formats));
	const uint32_t formats_offset = read_u32(bytes + offsetof(struct drm_format_modifier_blob, formats_offset));
	const uint32_t count_modifiers = read_u32(bytes + offsetof(struct drm_format_modifier_blob, count_modifiers));
	const uint32_t modifiers_offset = read_u32(bytes + offsetof(struct drm_format_modifier_blob, modifiers_offset));
	if (version != FORMAT_BLOB_CURRENT)
		return "IN_FORMATS blob of an unknown version";
	if (count_formats == 0 || count_formats > MAX_FORMATS || count_modifiers > MAX_MODIFIERS)
		return "IN_FORMATS blob with no formats or implausible counts";
	if (formats_offset < sizeof(struct drm_format_modifier_blob) ||
	    !range_fits(formats_offset, count_formats, 4, size))
		return "IN_FORMATS format list outside the blob";
	if (count_modifiers && (modifiers_offset < sizeof(struct drm_format_modifier_blob) ||
	                        !range_fits(modifiers_offset, count_modifiers, sizeof(struct drm_format_modifier), size)))
		return "IN_FORMATS modifier list outside the blob";

	/* Every (format, modifier) the masks name: at most 64 per entry. */
	uint64_t capacity = 0;
	for (uint32_t m = 0; m < count_modifiers; m++) {
		const uint8_t *entry = bytes + modifiers_offset + (size_t)m * sizeof(struct drm_format_modifier);
		const uint64_t mask = read_u64(entry + offsetof(struct drm_format_modifier, formats));
		const uint32_t first = read_u32(entry + offsetof(struct drm_format_modifier, offset));
		if (first >= count_formats && mask)
			return "IN_FORMATS modifier names formats past the list";
		for (uint32_t bit = 0; bit < 64; bit++) {
			if (!(mask >> bit & 1))
				continue;
			if ((uint64_t)first + bit >= count_formats)
				return "IN_FORMATS modifier names formats past the list";
			capacity++;
		}
	}
	if (capacity == 0)
		return NULL; /* a plane with formats but no modifier pairs */
	out->pairs = malloc(sizeof(*out->pairs) * capacity);
	if (!out->pairs)
		return "out of memory";
	for (uint32_t m = 0; m < count_modifiers; m++) {
		const uint8_t *entry = bytes + modifiers_offset + (size_t)m * sizeof(struct drm_format_modifier);
		const uint64_t mask = read_u64(entry + offsetof(struct drm_format_modifier, formats));
		const uint32_t first = read_u32(entry + offsetof(struct drm_format_modifier, offset));
		const uint64_t modifier = read_u64(entry + offsetof(struct drm_format_modifier, modifier));
		for (uint32_t bit = 0; bit < 64; bit++) {
			if (mask >> bit & 1) {
				const uint32_t format = read_u32(bytes + formats_offset + (size_t)(first + bit) * 4);
				out->pairs[out->pair_count++] = (struct drm_format_pair){format, modifier};
			}
		}
	}
	return NULL;
}

void drm_in_formats_finish(struct drm_in_formats *formats)
{
	free(formats->pairs);
	formats->pairs = NULL;
	formats->pair_count = 0;
}
