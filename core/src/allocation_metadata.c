/* Serialized allocation metadata (little-endian):
 *
 *   u32 magic "UDAM"   u16 version (1)   u16 reserved (0)
 *   u32 total size in bytes
 *   u32 width, u32 height, u32 fourcc, u32 handle type
 *   u64 size, u32 plane count, plane count x {u64 offset, u64 pitch}
 *   16-byte device UUID, 16-byte driver UUID
 *   the capability set the memory satisfies, as a one-set list blob
 *   version 2 only: u32 magic "UDAC", u32 primaries, u32 transfer,
 *     8 x u16 chromaticities (display primaries x/y, white point x/y),
 *     u32 max and min mastering luminance, u32 MaxCLL, u32 MaxFALL
 *
 * Version 1 is written whenever there is no colour information, so peers
 * of before colour information read everything but colour metadata.
 *
 * The same consistency check runs before serializing and after
 * deserializing, so what one process accepts to send, the other accepts to
 * receive, and nothing else. */
#include <drm_fourcc.h>
#include <stdlib.h>

#include "byte_io.h"
#include "capability_set_list.h"
#include "capability_set_list_serialize.h"
#include "allocation_metadata.h"

#define METADATA_MAGIC   0x4d414455u /* "UDAM" */
#define METADATA_VERSION 1u
#define METADATA_VERSION_COLOR 2u
#define COLOR_MAGIC 0x43414455u /* "UDAC" */

#define INVALID(result, ...) uda_context_set_error(ctx, (result), __VA_ARGS__)

bool handle_type_known(uda_handle_type type)
{
	return type == UDA_HANDLE_TYPE_DMA_BUF || type == UDA_HANDLE_TYPE_OPAQUE_FD || type == UDA_HANDLE_TYPE_MEMFD;
}

/* Checks planes against the size, the format and the set's constraints.
 * `fail` is the result to report: INVALID_ARGUMENT for a caller's
 * metadata, INVALID_DATA for received bytes. */
uda_result allocation_metadata_check(uda_context *ctx, uda_result fail, const uda_allocation_metadata *m,
                                     const uda_capability_set_list *list, const struct uda_capability_set_record *set)
{
	uda_format_info format;
	if (m->width == 0 || m->height == 0 || m->width > UDA_MAX_DIMENSION || m->height > UDA_MAX_DIMENSION)
		return INVALID(fail, "metadata: %ux%u outside 1..%u", m->width, m->height, UDA_MAX_DIMENSION);
	if (uda_format_get_info(m->format, &format) != UDA_SUCCESS)
		return INVALID(fail, "metadata: unknown fourcc 0x%08x", m->format);
	if (m->size == 0)
		return INVALID(fail, "metadata: size 0");
	/* Modifiers with auxiliary planes (compression) add planes to the
	 * format's own. */
	if (m->plane_count < format.plane_count || m->plane_count > UDA_MAX_PLANES)
		return INVALID(fail, "metadata: %u planes for %s (needs %u..%u)", m->plane_count, format.name,
		               format.plane_count, UDA_MAX_PLANES);

	const struct uda_constraint_values *c = &set->constraints;
#define HAS(k) (c->present & (1u << (k)))
	if ((HAS(UDA_CONSTRAINT_MAX_WIDTH) && m->width > c->value[UDA_CONSTRAINT_MAX_WIDTH]) ||
	    (HAS(UDA_CONSTRAINT_MAX_HEIGHT) && m->height > c->value[UDA_CONSTRAINT_MAX_HEIGHT]))
		return INVALID(fail, "metadata: %ux%u exceeds the set's max width/height", m->width, m->height);
	if (HAS(UDA_CONSTRAINT_MAX_PLANES) && m->plane_count > c->value[UDA_CONSTRAINT_MAX_PLANES])
		return INVALID(fail, "metadata: %u planes exceed the set's max planes", m->plane_count);
	if ((HAS(UDA_CONSTRAINT_MAX_SIZE) && m->size > c->value[UDA_CONSTRAINT_MAX_SIZE]) ||
	    (HAS(UDA_CONSTRAINT_SIZE_ALIGNMENT) && m->size % c->value[UDA_CONSTRAINT_SIZE_ALIGNMENT]))
		return INVALID(fail, "metadata: size %llu breaks the set's size constraints",
		               (unsigned long long)m->size);
	if (HAS(UDA_CONSTRAINT_MIN_SIZE) && m->size < c->value[UDA_CONSTRAINT_MIN_SIZE])
		return INVALID(fail, "metadata: size %llu is below the set's min size %llu", (unsigned long long)m->size,
		               (unsigned long long)c->value[UDA_CONSTRAINT_MIN_SIZE]);

	uint64_t modifier;
	bool linear = capability_set_layout_modifier(list, set, &modifier) && modifier == DRM_FORMAT_MOD_LINEAR;
	for (uint32_t p = 0; p < m->plane_count; p++) {
		const uda_plane_layout *plane = &m->planes[p];
		if (plane->pitch == 0 || plane->offset >= m->size)
			return INVALID(fail, "metadata: plane %u (offset %llu, pitch %llu) outside %llu bytes", p,
			               (unsigned long long)plane->offset, (unsigned long long)plane->pitch,
			               (unsigned long long)m->size);
		/* Auxiliary planes of a modifier (compression metadata) have
		 * pitches of their own: the pitch constraints are the format's
		 * planes'. */
		if ((HAS(UDA_CONSTRAINT_PITCH_ALIGNMENT) && p < format.plane_count &&
		     plane->pitch % c->value[UDA_CONSTRAINT_PITCH_ALIGNMENT]) ||
		    (HAS(UDA_CONSTRAINT_MAX_PITCH) && p < format.plane_count &&
		     plane->pitch > c->value[UDA_CONSTRAINT_MAX_PITCH]) ||
		    (p == 0 && HAS(UDA_CONSTRAINT_MIN_PITCH) && plane->pitch < c->value[UDA_CONSTRAINT_MIN_PITCH]))
			return INVALID(fail, "metadata: plane %u pitch %llu breaks the set's pitch constraints", p,
			               (unsigned long long)plane->pitch);
		if ((HAS(UDA_CONSTRAINT_OFFSET_ALIGNMENT) &&
		     plane->offset % c->value[UDA_CONSTRAINT_OFFSET_ALIGNMENT]) ||
		    (p > 0 && HAS(UDA_CONSTRAINT_PLANE_ALIGNMENT) &&
		     plane->offset % c->value[UDA_CONSTRAINT_PLANE_ALIGNMENT]))
			return INVALID(fail, "metadata: plane %u offset %llu breaks the set's alignment", p,
			               (unsigned long long)plane->offset);
		if (!linear || p >= format.plane_count)
			continue;
		/* Pitch-linear: the plane's rows must fit, byte for byte. */
		const uda_format_plane_info *fp = &format.planes[p];
		uint64_t w = (m->width + fp->horizontal_subsampling - 1) / fp->horizontal_subsampling;
		uint64_t h = (m->height + fp->vertical_subsampling - 1) / fp->vertical_subsampling;
		uint64_t row = (w + fp->block_width - 1) / fp->block_width * fp->bytes_per_block;
		uint64_t span, end;
		if (plane->pitch < row || __builtin_mul_overflow(plane->pitch, h - 1, &span) ||
		    __builtin_add_overflow(span, row, &span) || __builtin_add_overflow(plane->offset, span, &end) ||
		    end > m->size)
			return INVALID(fail,
			               "metadata: linear plane %u (offset %llu, pitch %llu, %llu rows of %llu "
			               "bytes) does not fit in %llu bytes",
			               p, (unsigned long long)plane->offset, (unsigned long long)plane->pitch,
			               (unsigned long long)h, (unsigned long long)row, (unsigned long long)m->size);
	}
#undef HAS
	return UDA_SUCCESS;
}

uda_result color_info_check(uda_context *ctx, uda_result fail, const uda_color_info *c)
{
	if (c->type != UDA_STRUCTURE_TYPE_COLOR_INFO || c->next)
		return INVALID(fail, "colour information: type %d, or a next chain", (int)c->type);
	if ((unsigned)c->primaries > UDA_COLOR_PRIMARIES_DISPLAY_P3 || (unsigned)c->transfer > UDA_TRANSFER_FUNCTION_BT709)
		return INVALID(fail, "colour information: primaries %u, transfer function %u", (unsigned)c->primaries,
		               (unsigned)c->transfer);
	for (int i = 0; i < 3; i++) {
		if (c->display_primaries_x[i] > 50000 || c->display_primaries_y[i] > 50000)
			return INVALID(fail, "colour information: a display primary beyond 1.0");
	}
	if (c->white_point_x > 50000 || c->white_point_y > 50000)
		return INVALID(fail, "colour information: a white point beyond 1.0");
	return UDA_SUCCESS;
}

const uda_color_info *metadata_color_info(const uda_allocation_metadata *metadata, bool *out_invalid)
{
	const uda_color_info *color = metadata->next;
	*out_invalid = color && color->type != UDA_STRUCTURE_TYPE_COLOR_INFO;
	return *out_invalid ? NULL : color;
}

static void write_metadata(struct byte_writer *w, const uda_allocation_metadata *m, const uda_capability_set_list *list,
                           uint32_t set_index, const uda_color_info *color)
{
	write_u32(w, METADATA_MAGIC);
	write_u16(w, color ? METADATA_VERSION_COLOR : METADATA_VERSION);
	write_u16(w, 0);
	write_u32(w, 0); /* total size, patched below */
	write_u32(w, m->width);
	write_u32(w, m->height);
	write_u32(w, m->format);
	write_u32(w, (uint32_t)m->handle_type);
	write_u64(w, m->size);
	write_u32(w, m->plane_count);
	for (uint32_t p = 0; p < m->plane_count; p++) {
		write_u64(w, m->planes[p].offset);
		write_u64(w, m->planes[p].pitch);
	}
	write_bytes(w, m->device_uuid, UDA_UUID_SIZE);
	write_bytes(w, m->driver_uuid, UDA_UUID_SIZE);
	capability_set_list_write(w, list, set_index, 1);
	if (color) {
		write_u32(w, COLOR_MAGIC);
		write_u32(w, (uint32_t)color->primaries);
		write_u32(w, (uint32_t)color->transfer);
		for (int i = 0; i < 3; i++) {
			write_u16(w, color->display_primaries_x[i]);
			write_u16(w, color->display_primaries_y[i]);
		}
		write_u16(w, color->white_point_x);
		write_u16(w, color->white_point_y);
		write_u32(w, color->max_display_mastering_luminance);
		write_u32(w, color->min_display_mastering_luminance);
		write_u32(w, color->max_content_light_level);
		write_u32(w, color->max_frame_average_light_level);
	}
	patch_u32(w, 8, (uint32_t)w->size);
}

uda_result uda_allocation_metadata_serialize(uda_context *ctx, const uda_allocation_metadata *metadata,
                                             const uda_capability_set_list *set_list, uint32_t set_index, void *data,
                                             size_t capacity, size_t *out_size)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(ctx, metadata && set_list && out_size);
	UDA_CHECK_ARG(ctx, data || capacity == 0);
	UDA_CHECK_ARG(ctx, metadata->type == UDA_STRUCTURE_TYPE_ALLOCATION_METADATA);
	bool invalid_chain;
	const uda_color_info *color = metadata_color_info(metadata, &invalid_chain);
	UDA_CHECK_ARG(ctx, !invalid_chain);
	if (color) {
		uda_result checked = color_info_check(ctx, UDA_ERROR_INVALID_ARGUMENT, color);
		if (checked != UDA_SUCCESS)
			return checked;
	}
	UDA_CHECK_ARG(ctx, set_list->ctx == ctx);
	if (set_index >= set_list->set_count)
		return INVALID(UDA_ERROR_INVALID_ARGUMENT, "set index %u out of range (list holds %u)", set_index,
		               set_list->set_count);
	if (!handle_type_known(metadata->handle_type))
		return INVALID(UDA_ERROR_INVALID_ARGUMENT, "metadata: unknown handle type %d", (int)metadata->handle_type);
	uda_result result =
		allocation_metadata_check(ctx, UDA_ERROR_INVALID_ARGUMENT, metadata, set_list, &set_list->sets[set_index]);
	if (result == UDA_SUCCESS)
		result = capability_set_list_check_writable(set_list, set_index, 1);
	if (result != UDA_SUCCESS)
		return result;

	/* One pass: the writer measures whatever the buffer holds, so a
	 * buffer that was large enough is already filled. */
	struct byte_writer w = {.data = data, .capacity = data ? capacity : 0};
	write_metadata(&w, metadata, set_list, set_index, color);
	/* The reader refuses anything larger (and the size field is a u32). */
	if (w.size > UDA_MAX_SERIALIZED_SIZE)
		return INVALID(UDA_ERROR_OVERFLOW, "serialized metadata would take %zu bytes, more than %u", w.size,
		               UDA_MAX_SERIALIZED_SIZE);
	*out_size = w.size;
	if (data && capacity < w.size)
		return INVALID(UDA_ERROR_BUFFER_TOO_SMALL, "buffer of %zu bytes, %zu needed", capacity, w.size);
	return UDA_SUCCESS;
}

static uda_result read_color(uda_context *ctx, struct byte_reader *r, uda_color_info *out)
{
	uda_color_info c = {.type = UDA_STRUCTURE_TYPE_COLOR_INFO};
	const uint32_t magic = read_u32(r);
	c.primaries = (uda_color_primaries)read_u32(r);
	c.transfer = (uda_transfer_function)read_u32(r);
	for (int i = 0; i < 3; i++) {
		c.display_primaries_x[i] = read_u16(r);
		c.display_primaries_y[i] = read_u16(r);
	}
	c.white_point_x = read_u16(r);
	c.white_point_y = read_u16(r);
	c.max_display_mastering_luminance = read_u32(r);
	c.min_display_mastering_luminance = read_u32(r);
	c.max_content_light_level = read_u32(r);
	c.max_frame_average_light_level = read_u32(r);
	if (r->failed || magic != COLOR_MAGIC)
		return INVALID(UDA_ERROR_INVALID_DATA, "metadata: truncated or unmarked colour information");
	uda_result result = color_info_check(ctx, UDA_ERROR_INVALID_DATA, &c);
	if (result == UDA_SUCCESS)
		*out = c;
	return result;
}

uda_result uda_allocation_metadata_deserialize(uda_context *ctx, const void *data, size_t size,
                                               uda_allocation_metadata *out_metadata,
                                               uda_capability_set_list **out_set_list)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(ctx, out_metadata && out_set_list);
	uda_color_info color;
	bool has_color;
	return allocation_metadata_read(ctx, data, size, out_metadata, out_set_list, &color, &has_color);
}

uda_result uda_allocation_metadata_deserialize_color_info(uda_context *ctx, const void *data, size_t size,
                                                          uda_color_info *out_color)
{
	if (!ctx)
		return UDA_ERROR_INVALID_ARGUMENT;
	UDA_CHECK_ARG(ctx, out_color);
	uda_allocation_metadata m;
	uda_capability_set_list *list;
	uda_color_info color;
	bool has_color = false;
	uda_result result = allocation_metadata_read(ctx, data, size, &m, &list, &color, &has_color);
	if (result != UDA_SUCCESS)
		return result;
	uda_capability_set_list_destroy(list);
	if (!has_color)
		return uda_context_set_error(ctx, UDA_ERROR_NOT_FOUND, "the metadata carries no colour information");
	*out_color = color;
	return UDA_SUCCESS;
}

uda_result allocation_metadata_read(uda_context *ctx, const void *data, size_t size,
                                    uda_allocation_metadata *out_metadata, uda_capability_set_list **out_set_list,
                                    uda_color_info *out_color, bool *out_has_color)
{
	*out_has_color = false;
	UDA_CHECK_ARG(ctx, data || size == 0);
	if (size > UDA_MAX_SERIALIZED_SIZE)
		return INVALID(UDA_ERROR_INVALID_DATA, "metadata of %zu bytes, more than %u", size,
		               UDA_MAX_SERIALIZED_SIZE);

	struct byte_reader r = {.data = data, .size = size};
	uint32_t magic = read_u32(&r);
	uint16_t version = read_u16(&r);
	uint16_t reserved = read_u16(&r);
	uint32_t total_size = read_u32(&r);
	if (r.failed)
		return INVALID(UDA_ERROR_INVALID_DATA, "metadata: truncated header");
	if (magic != METADATA_MAGIC)
		return INVALID(UDA_ERROR_INVALID_DATA, "metadata: bad magic 0x%08x", magic);
	if ((version != METADATA_VERSION && version != METADATA_VERSION_COLOR) || reserved)
		return INVALID(UDA_ERROR_INVALID_DATA, "metadata: version %u, this library reads %u and %u", version,
		               METADATA_VERSION, METADATA_VERSION_COLOR);
	if (total_size != size)
		return INVALID(UDA_ERROR_INVALID_DATA, "metadata: size field %u, %zu bytes given", total_size, size);

	uda_allocation_metadata m = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
	m.width = read_u32(&r);
	m.height = read_u32(&r);
	m.format = read_u32(&r);
	m.handle_type = (uda_handle_type)read_u32(&r);
	m.size = read_u64(&r);
	m.plane_count = read_u32(&r);
	if (r.failed)
		return INVALID(UDA_ERROR_INVALID_DATA, "metadata: truncated");
	if (m.plane_count == 0 || m.plane_count > UDA_MAX_PLANES)
		return INVALID(UDA_ERROR_INVALID_DATA, "metadata: %u planes", m.plane_count);
	for (uint32_t p = 0; p < m.plane_count; p++) {
		m.planes[p].offset = read_u64(&r);
		m.planes[p].pitch = read_u64(&r);
	}
	const uint8_t *device_uuid = read_bytes(&r, UDA_UUID_SIZE);
	const uint8_t *driver_uuid = read_bytes(&r, UDA_UUID_SIZE);
	if (r.failed)
		return INVALID(UDA_ERROR_INVALID_DATA, "metadata: truncated");
	memcpy(m.device_uuid, device_uuid, UDA_UUID_SIZE);
	memcpy(m.driver_uuid, driver_uuid, UDA_UUID_SIZE);

	uda_capability_set_list *list;
	uda_result result = capability_set_list_read(ctx, &r, &list);
	if (result != UDA_SUCCESS)
		return result;
	if (list->set_count != 1)
		result = INVALID(UDA_ERROR_INVALID_DATA, "metadata: %u capability sets, exactly 1 expected",
		                 list->set_count);
	else if (version == METADATA_VERSION_COLOR && (result = read_color(ctx, &r, out_color)) != UDA_SUCCESS)
		; /* the message is set */
	else if (r.offset != size)
		result = INVALID(UDA_ERROR_INVALID_DATA, "metadata: %zu trailing bytes", size - r.offset);
	else if (!handle_type_known(m.handle_type))
		result = INVALID(UDA_ERROR_INVALID_DATA, "metadata: unknown handle type %d", (int)m.handle_type);
	else
		result = allocation_metadata_check(ctx, UDA_ERROR_INVALID_DATA, &m, list, &list->sets[0]);
	if (result != UDA_SUCCESS) {
		uda_capability_set_list_destroy(list);
		return result;
	}
	*out_metadata = m;
	*out_set_list = list;
	*out_has_color = version == METADATA_VERSION_COLOR;
	return UDA_SUCCESS;
}
