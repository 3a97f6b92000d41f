#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "describe.h"

static uint64_t read_le(const void *payload, unsigned bytes)
{
	const uint8_t *p = payload;
	uint64_t v = 0;
	for (unsigned i = 0; i < bytes; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

const char *describe_handle_type(uint32_t type)
{
	switch (type) {
	case UDA_HANDLE_TYPE_DMA_BUF:
		return "DMA_BUF";
	case UDA_HANDLE_TYPE_OPAQUE_FD:
		return "OPAQUE_FD";
	case UDA_HANDLE_TYPE_MEMFD:
		return "MEMFD";
	default:
		return "unknown";
	}
}

void describe_uuid(const uint8_t uuid[UDA_UUID_SIZE], char out[37])
{
	char *o = out;
	for (int i = 0; i < UDA_UUID_SIZE; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			*o++ = '-';
		o += sprintf(o, "%02x", uuid[i]);
	}
}

void describe_capability(const uda_capability *cap, char *buf, size_t size)
{
	int n = 0;
	if (cap->vendor == UDA_VENDOR_NONE && cap->name == UDA_CAPABILITY_LAYOUT && cap->length == 8) {
		uint64_t modifier = read_le(cap->payload, 8);
		n = snprintf(buf, size, "layout modifier 0x%016" PRIx64 "%s", modifier, modifier == 0 ? " (linear)" : "");
	} else if (cap->vendor == UDA_VENDOR_NONE && cap->name == UDA_CAPABILITY_LAYOUT_OPAQUE && cap->length >= 16) {
		char uuid[37];
		describe_uuid(cap->payload, uuid);
		n = snprintf(buf, size, "layout opaque, driver %s, %u private bytes", uuid, cap->length - 16);
	} else if (cap->vendor == UDA_VENDOR_NONE && cap->name == UDA_CAPABILITY_HANDLE && cap->length == 4) {
		n = snprintf(buf, size, "handle %s", describe_handle_type((uint32_t)read_le(cap->payload, 4)));
	} else if (cap->vendor == UDA_VENDOR_NONE && cap->name == UDA_CAPABILITY_PLACEMENT && cap->length == 4) {
		n = snprintf(buf, size, "placement %s", uda_placement_to_string((uint32_t)read_le(cap->payload, 4)));
	} else if (cap->vendor == UDA_VENDOR_NONE && cap->name == UDA_CAPABILITY_CPU_ACCESS && cap->length == 4) {
		n = snprintf(buf, size, "cpu %s",
		             read_le(cap->payload, 4) == UDA_CPU_ACCESS_COHERENT ? "coherent" : "mappable");
	} else {
		n = snprintf(buf, size, "vendor 0x%04x name 0x%04x, %u bytes", cap->vendor, cap->name, cap->length);
	}
	if (n > 0 && (size_t)n < size && (cap->flags & UDA_CAPABILITY_FLAG_REQUIRED))
		n += snprintf(buf + n, size - (size_t)n, ", required");
	if (n > 0 && (size_t)n < size && (cap->flags & UDA_CAPABILITY_FLAG_LOCAL)) {
		char uuid[37];
		describe_uuid(cap->owner_uuid, uuid);
		snprintf(buf + n, size - (size_t)n, ", local to %s", uuid);
	}
}

void print_set_list(FILE *f, const uda_capability_set_list *list, const char *indent)
{
	uint32_t count = 0;
	uda_capability_set_list_get_count(list, &count);
	for (uint32_t s = 0; s < count; s++) {
		fprintf(f, "%sset %u:\n", indent, s);
		uint32_t caps = 0;
		uda_capability_set_list_get_capability_count(list, s, &caps);
		for (uint32_t i = 0; i < caps; i++) {
			uda_capability cap;
			char text[160];
			uda_capability_set_list_get_capability(list, s, i, &cap);
			describe_capability(&cap, text, sizeof(text));
			fprintf(f, "%s  %s\n", indent, text);
		}
		for (int c = 0; c < UDA_CONSTRAINT_COUNT; c++) {
			bool present;
			uint64_t value;
			uda_capability_set_list_get_constraint(list, s, (uda_constraint)c, &present, &value);
			if (present)
				fprintf(f, "%s  %-17s %" PRIu64 "\n", indent, uda_constraint_to_string((uda_constraint)c),
				        value);
		}
	}
}

void print_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

void print_set_list_json(FILE *f, const uda_capability_set_list *list)
{
	uint32_t count = 0;
	uda_capability_set_list_get_count(list, &count);
	fputc('[', f);
	for (uint32_t s = 0; s < count; s++) {
		fprintf(f, "%s{\"capabilities\": [", s ? ", " : "");
		uint32_t caps = 0;
		uda_capability_set_list_get_capability_count(list, s, &caps);
		for (uint32_t i = 0; i < caps; i++) {
			uda_capability cap;
			char text[160];
			uda_capability_set_list_get_capability(list, s, i, &cap);
			describe_capability(&cap, text, sizeof(text));
			fprintf(f, "%s{\"vendor\": %u, \"name\": %u, \"flags\": %u, \"payload\": \"", i ? ", " : "",
			        cap.vendor, cap.name, cap.flags);
			for (uint32_t b = 0; b < cap.length; b++)
				fprintf(f, "%02x", ((const uint8_t *)cap.payload)[b]);
			fprintf(f, "\", \"description\": ");
			print_json_string(f, text);
			fputc('}', f);
		}
		fprintf(f, "], \"constraints\": {");
		bool first = true;
		for (int c = 0; c < UDA_CONSTRAINT_COUNT; c++) {
			bool present;
			uint64_t value;
			uda_capability_set_list_get_constraint(list, s, (uda_constraint)c, &present, &value);
			if (present) {
				fprintf(f, "%s\"%s\": %" PRIu64, first ? "" : ", ", uda_constraint_to_string((uda_constraint)c),
				        value);
				first = false;
			}
		}
		fprintf(f, "}}");
	}
	fputc(']', f);
}

uint32_t format_from_name(const char *name)
{
	uint32_t n = 0, found = 0;
	uda_format_enumerate(&n, NULL);
	uint32_t *fourccs = calloc(n ? n : 1, sizeof(*fourccs));
	if (!fourccs)
		return 0;
	uda_format_enumerate(&n, fourccs);
	for (uint32_t i = 0; i < n && !found; i++) {
		uda_format_info info;
		if (uda_format_get_info(fourccs[i], &info) == UDA_SUCCESS && strcmp(info.name, name) == 0)
			found = info.fourcc;
	}
	free(fourccs);
	return found;
}

uint32_t codec_from_name(const char *name, size_t length)
{
	static const struct {
		const char *name;
		uda_video_codec codec;
	} codecs[] = {
		{"h264", UDA_VIDEO_CODEC_H264}, {"h265", UDA_VIDEO_CODEC_H265}, {"vp8", UDA_VIDEO_CODEC_VP8},
		{"vp9", UDA_VIDEO_CODEC_VP9},   {"av1", UDA_VIDEO_CODEC_AV1},   {"mpeg2", UDA_VIDEO_CODEC_MPEG2},
		{"jpeg", UDA_VIDEO_CODEC_JPEG},
	};
	for (size_t i = 0; i < sizeof(codecs) / sizeof(codecs[0]); i++) {
		if (strlen(codecs[i].name) == length && strncmp(codecs[i].name, name, length) == 0)
			return codecs[i].codec;
	}
	return 0;
}
