/* Writes the seed corpora: a few valid lists and metadata blobs covering
 * every capability kind, constraint and plane layout the format allows,
 * and the regression inputs that can be generated rather than recorded.
 * usage: uda-fuzz-make-seeds CORPUS_DIR (subfolders must exist) */
#include <drm_fourcc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uda/uda.h>

static void write_file(const char *dir, const char *sub, const char *name, const void *data, size_t size)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(1);
	}
	fclose(f);
}

static void check(uda_result r, uda_context *ctx)
{
	if (r != UDA_SUCCESS) {
		fprintf(stderr, "%s: %s\n", uda_result_to_string(r), uda_context_get_error(ctx));
		exit(1);
	}
}

static uda_capability_set_list *seed_list(uda_context *ctx, int variant)
{
	uda_capability_set_list *list;
	uda_capability_set_builder *b;
	check(uda_capability_set_list_create(ctx, &list), ctx);
	check(uda_capability_set_builder_create(ctx, &b), ctx);
	for (int s = 0; s <= variant; s++) {
		uda_capability_set_builder_reset(b);
		check(uda_capability_set_builder_add_layout(b, s == 0 ? DRM_FORMAT_MOD_LINEAR : fourcc_mod_code(AMD, s),
		                                            UDA_CAPABILITY_FLAG_REQUIRED),
		      ctx);
		check(uda_capability_set_builder_add_u32(b, UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF, 0), ctx);
		if (variant > 0) {
			uint8_t payload[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, (uint8_t)s};
			uda_capability local = {0x1002, 7, UDA_CAPABILITY_FLAG_LOCAL, sizeof(payload), payload, {0}};
			local.owner_uuid[15] = (uint8_t)s;
			check(uda_capability_set_builder_add_capability(b, &local), ctx);
		}
		check(uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_PITCH_ALIGNMENT, 64u * (s + 1)), ctx);
		if (variant > 1) {
			check(uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_MAX_PITCH, 1u << 16), ctx);
			check(uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_MIN_PITCH, 256), ctx);
			check(uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_ADDRESS_ALIGNMENT, 4096),
			      ctx);
			check(uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_MAX_SIZE, 1u << 30), ctx);
		}
		check(uda_capability_set_list_append_set(list, b), ctx);
	}
	uda_capability_set_builder_destroy(b);
	return list;
}

static void patch_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A list blob holding the one set of `one` (a serialized one-set list)
 * `copies` times: the reader must refuse repeated sets, which no writer
 * emits. Spliced by hand because the serializer refuses to write it. */
static void write_repeated_sets(const char *dir, const uint8_t *one, size_t one_size, uint32_t copies)
{
	const size_t header = 16;
	size_t set_size = one_size - header;
	size_t size = header + copies * set_size;
	uint8_t *blob = malloc(size);
	if (!blob)
		exit(1);
	memcpy(blob, one, header);
	for (uint32_t i = 0; i < copies; i++)
		memcpy(blob + header + i * set_size, one + header, set_size);
	patch_u32(blob + 8, (uint32_t)size);
	patch_u32(blob + 12, copies);
	write_file(dir, "capability_set_list", "regression-repeated-sets", blob, size);
	free(blob);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	/* Deserialization needs no devices; skip loading backend modules. */
	const uda_context_create_info context_info = {
		.type = UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO,
		.flags = UDA_CONTEXT_CREATE_NO_BACKENDS,
	};
	uda_context *ctx;
	if (uda_context_create(&context_info, &ctx) != UDA_SUCCESS)
		return 1;
	uint8_t buffer[8192];
	for (int v = 0; v < 3; v++) {
		uda_capability_set_list *list = seed_list(ctx, v);
		size_t size;
		check(uda_capability_set_list_serialize(list, buffer, sizeof(buffer), &size), ctx);
		char name[32];
		snprintf(name, sizeof(name), "list-%d", v);
		write_file(argv[1], "capability_set_list", name, buffer, size);
		if (v == 0)
			write_repeated_sets(argv[1], buffer, size, 3);

		uda_allocation_metadata m = {.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA};
		m.width = 640;
		m.height = 480;
		m.handle_type = v == 2 ? UDA_HANDLE_TYPE_MEMFD : UDA_HANDLE_TYPE_DMA_BUF;
		m.device_uuid[0] = m.driver_uuid[0] = (uint8_t)(0xa0 + v);
		if (v == 1) {
			m.format = DRM_FORMAT_NV12;
			m.plane_count = 2;
			m.planes[0].pitch = m.planes[1].pitch = 1024;
			m.planes[1].offset = 1024 * 480;
			m.size = 1024 * 720;
		} else {
			m.format = DRM_FORMAT_XRGB8888;
			m.plane_count = 1;
			m.planes[0].pitch = 2560;
			m.size = 2560 * 480;
		}
		/* The third carries HDR10 colour information (wire version 2). */
		const uda_color_info color = {
			.type = UDA_STRUCTURE_TYPE_COLOR_INFO,
			.primaries = UDA_COLOR_PRIMARIES_BT2020,
			.transfer = UDA_TRANSFER_FUNCTION_PQ,
			.display_primaries_x = {34000, 13250, 7500},
			.display_primaries_y = {16000, 34500, 3000},
			.white_point_x = 15635,
			.white_point_y = 16450,
			.max_display_mastering_luminance = 1000,
			.min_display_mastering_luminance = 50,
			.max_content_light_level = 800,
			.max_frame_average_light_level = 400,
		};
		if (v == 2)
			m.next = &color;
		check(uda_allocation_metadata_serialize(ctx, &m, list, 0, buffer, sizeof(buffer), &size), ctx);
		snprintf(name, sizeof(name), "metadata-%d", v);
		write_file(argv[1], "allocation_metadata", name, buffer, size);
		/* The import target's input: memfd size, seals, take-fd, then
		 * the metadata. */
		uint8_t import[6 + sizeof(buffer)];
		patch_u32(import, (uint32_t)m.size);
		import[4] = 3;
		import[5] = (uint8_t)(v & 1);
		memcpy(import + 6, buffer, size);
		snprintf(name, sizeof(name), "import-%d", v);
		write_file(argv[1], "import", name, import, size + 6);
		uda_capability_set_list_destroy(list);
	}
	uda_context_destroy(ctx);
	return 0;
}
