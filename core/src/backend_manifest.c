#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "backend_manifest.h"

#define INVALID(...) uda_context_set_error(ctx, UDA_ERROR_INVALID_DATA, __VA_ARGS__)

static bool name_char_valid(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

static const char *get_string(json_object *object, const char *key)
{
	json_object *value;
	if (!json_object_object_get_ex(object, key, &value) || !json_object_is_type(value, json_type_string))
		return NULL;
	return json_object_get_string(value);
}

static uda_result parse_object(const uda_context *ctx, json_object *root, const char *folder,
                               struct backend_manifest *out)
{
	if (!json_object_is_type(root, json_type_object))
		return INVALID("manifest: the top level is not an object");
	const char *version = get_string(root, "file_format_version");
	unsigned major, minor, patch;
	char tail;
	if (!version || sscanf(version, "%u.%u.%u%c", &major, &minor, &patch, &tail) != 3)
		return INVALID("manifest: file_format_version missing or not MAJOR.MINOR.PATCH");
	if (major != 1)
		return INVALID("manifest: file_format_version %s, this library reads 1.x.y", version);

	json_object *backend;
	if (!json_object_object_get_ex(root, "backend", &backend) || !json_object_is_type(backend, json_type_object))
		return INVALID("manifest: no \"backend\" object");

	const char *name = get_string(backend, "name");
	size_t name_length = name ? strlen(name) : 0;
	if (name_length == 0 || name_length > UDA_BACKEND_NAME_MAX)
		return INVALID("manifest: backend name missing or longer than %d", UDA_BACKEND_NAME_MAX);
	for (size_t i = 0; i < name_length; i++) {
		if (!name_char_valid(name[i]))
			return INVALID("manifest: backend name may hold only a-z, 0-9, '-' and '_'");
	}

	const char *library = get_string(backend, "library_path");
	if (!library || !library[0])
		return INVALID("manifest: backend %s has no library_path", name);

	json_object *interface_version;
	if (!json_object_object_get_ex(backend, "interface_version", &interface_version) ||
	    !json_object_is_type(interface_version, json_type_int))
		return INVALID("manifest: backend %s has no integer interface_version", name);
	int64_t iv = json_object_get_int64(interface_version);
	if (iv < 1 || iv > UINT32_MAX)
		return INVALID("manifest: backend %s has interface_version %lld", name, (long long)iv);

	int written;
	if (library[0] == '/' || !strchr(library, '/'))
		written = snprintf(out->library_path, sizeof(out->library_path), "%s", library);
	else
		written = snprintf(out->library_path, sizeof(out->library_path), "%s/%s", folder, library);
	if (written < 0 || (size_t)written >= sizeof(out->library_path))
		return INVALID("manifest: backend %s library_path is too long", name);
	memcpy(out->name, name, name_length + 1);
	out->interface_version = (uint32_t)iv;
	return UDA_SUCCESS;
}

uda_result backend_manifest_parse(const uda_context *ctx, const char *text, size_t size, const char *folder,
                                  struct backend_manifest *out)
{
	if (size > UDA_MANIFEST_MAX_SIZE)
		return INVALID("manifest of %zu bytes, more than %u", size, UDA_MANIFEST_MAX_SIZE);
	json_tokener *tokener = json_tokener_new_ex(32);
	if (!tokener)
		return uda_context_set_error(ctx, UDA_ERROR_OUT_OF_MEMORY, "out of memory");
	json_tokener_set_flags(tokener, JSON_TOKENER_STRICT);
	json_object *root = json_tokener_parse_ex(tokener, text, (int)size);
	enum json_tokener_error error = json_tokener_get_error(tokener);
	/* Anything after the value (other than what the tokener consumed)
	 * makes the manifest malformed, as does a value cut short. */
	size_t consumed = json_tokener_get_parse_end(tokener);
	uda_result result;
	if (error == json_tokener_continue)
		result = INVALID("manifest: the JSON ends early");
	else if (!root || error != json_tokener_success)
		result = INVALID("manifest: not JSON (%s)", json_tokener_error_desc(error));
	else if (consumed != size && strspn(text + consumed, " \t\r\n") != size - consumed)
		result = INVALID("manifest: trailing bytes after the JSON value");
	else
		result = parse_object(ctx, root, folder, out);
	json_object_put(root);
	json_tokener_free(tokener);
	return result;
}
