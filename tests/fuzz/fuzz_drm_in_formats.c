/* libFuzzer target: the DRM backend's IN_FORMATS blob parser. Whatever it
 * accepts must name only formats from the blob's own list. */
#include <stdlib.h>
#include <string.h>

#include "drm_in_formats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct drm_in_formats formats;
	memset(&formats, 0xa5, sizeof(formats));
	if (drm_in_formats_parse(data, size, &formats) == NULL) {
		if (formats.pair_count && !formats.pairs)
			abort();
		drm_in_formats_finish(&formats);
	} else if (formats.pairs || formats.pair_count) {
		abort();
	}
	return 0;
}
