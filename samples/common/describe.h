/* Human- and script-readable descriptions of uda objects for the samples. */
#ifndef UDA_SAMPLES_DESCRIBE_H
#define UDA_SAMPLES_DESCRIBE_H

#include <stdio.h>

#include <uda/uda.h>

/* "layout linear", "handle OPAQUE_FD, required", ... into buf. */
void describe_capability(const uda_capability *cap, char *buf, size_t size);
const char *describe_handle_type(uint32_t type);
/* 32 hex digits with dashes, as vulkaninfo prints UUIDs. */
void describe_uuid(const uint8_t uuid[UDA_UUID_SIZE], char out[37]);

/* Prints every set of the list, indented, or as a JSON array. */
void print_set_list(FILE *f, const uda_capability_set_list *list, const char *indent);
void print_set_list_json(FILE *f, const uda_capability_set_list *list);
/* A JSON string literal with escapes. */
void print_json_string(FILE *f, const char *s);

/* Looks a fourcc up by its table name ("XRGB8888"); 0 if unknown. */
uint32_t format_from_name(const char *name);
/* A uda_video_codec by its short name ("h264", "vp9"), the first `length`
 * characters of `name`; 0 if unknown. */
uint32_t codec_from_name(const char *name, size_t length);

#endif
