/* libFuzzer target: backend manifest parsing (core/src/backend_manifest.c,
 * compiled into the target since it is private to libuda). Whatever it
 * accepts must have a valid name, a NUL-terminated library path and a
 * positive interface version. */
#include <stdlib.h>
#include <string.h>

#include "backend_manifest.h"
#include "fuzz_context.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uda_context *ctx = fuzz_context_create();
	/* The loader hands the parser a NUL-terminated copy. */
	char *text = malloc(size + 1);
	if (!text)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	struct backend_manifest manifest;
	memset(&manifest, 0xa5, sizeof(manifest));
	uda_result r = backend_manifest_parse(ctx, text, size, "/manifests", &manifest);
	if (r == UDA_SUCCESS) {
		size_t name_length = strnlen(manifest.name, sizeof(manifest.name));
		if (name_length == 0 || name_length == sizeof(manifest.name) ||
		    strnlen(manifest.library_path, sizeof(manifest.library_path)) == sizeof(manifest.library_path) ||
		    manifest.interface_version == 0)
			abort();
	} else if (r != UDA_ERROR_INVALID_DATA && r != UDA_ERROR_OUT_OF_MEMORY) {
		abort();
	}
	free(text);
	uda_context_destroy(ctx);
	return 0;
}
