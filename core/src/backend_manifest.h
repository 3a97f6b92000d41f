/* Backend manifests: small JSON files that name a backend module.
 *
 *   {
 *     "file_format_version": "1.0.0",
 *     "backend": {
 *       "name": "system",
 *       "library_path": "libuda-backend-system.so",
 *       "interface_version": 1
 *     }
 *   }
 *
 * library_path is absolute, relative to the manifest's folder when it
 * contains a '/', or a bare file name left to the dynamic loader's search,
 * as in Vulkan ICD manifests. */
#ifndef UDA_BACKEND_MANIFEST_H
#define UDA_BACKEND_MANIFEST_H

#include <limits.h>

#include <uda/uda_backend.h>

#define UDA_MANIFEST_MAX_SIZE (64u * 1024u)
#define UDA_BACKEND_NAME_MAX 64

struct backend_manifest {
	char name[UDA_BACKEND_NAME_MAX + 1];
	char library_path[PATH_MAX];
	uint32_t interface_version;
};

/* Parses and validates manifest text (untrusted: fuzzed). `folder` is the
 * manifest's folder for relative library paths. */
uda_result backend_manifest_parse(const uda_context *ctx, const char *text, size_t size, const char *folder,
                                  struct backend_manifest *out);

#endif
