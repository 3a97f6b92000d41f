/* Checks the PNG files uda-demo left: each must be the client's picture
 * of that frame (samples/common/demo_pattern.h), pixel for pixel, inside
 * the compositor's border.
 *   check-demo-pngs DIR WIDTH HEIGHT FRAME...   exit 0 when all match */
#include <png.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/demo_pattern.h"

static int check(const char *folder, unsigned frame, unsigned width, unsigned height)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/frame-%03u.png", folder, frame);
	png_image image = {.version = PNG_IMAGE_VERSION};
	if (!png_image_begin_read_from_file(&image, path)) {
		printf("%s: cannot read: %s\n", path, image.message);
		return 1;
	}
	image.format = PNG_FORMAT_RGBA;
	if (image.width != width + 2 * DEMO_BORDER || image.height != height + 2 * DEMO_BORDER) {
		printf("%s: %ux%u, expected %ux%u\n", path, image.width, image.height, width + 2 * DEMO_BORDER,
		       height + 2 * DEMO_BORDER);
		png_image_free(&image);
		return 1;
	}
	unsigned char *pixels = malloc(PNG_IMAGE_SIZE(image));
	if (!pixels || !png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
		printf("%s: cannot decode\n", path);
		free(pixels);
		return 1;
	}
	unsigned long wrong = 0;
	for (unsigned y = 0; y < image.height; y++) {
		for (unsigned x = 0; x < image.width; x++) {
			const unsigned char *p = pixels + ((size_t)y * image.width + x) * 4;
			bool inside = x >= DEMO_BORDER && y >= DEMO_BORDER && x < width + DEMO_BORDER && y < height + DEMO_BORDER;
			struct demo_rgb expected = inside ? demo_pattern(frame, x - DEMO_BORDER, y - DEMO_BORDER, width, height)
			                                  : demo_border_colour();
			if (p[0] != expected.r || p[1] != expected.g || p[2] != expected.b || p[3] != 255) {
				if (!wrong)
					printf("%s: first wrong pixel at %u,%u: %u %u %u %u, expected %u %u %u 255\n", path, x, y,
					       p[0], p[1], p[2], p[3], expected.r, expected.g, expected.b);
				wrong++;
			}
		}
	}
	free(pixels);
	printf("%s: %s (%lu of %u pixels wrong)\n", path, wrong ? "WRONG" : "ok", wrong, image.width * image.height);
	return wrong != 0;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: check-demo-pngs DIR WIDTH HEIGHT FRAME...\n");
		return 2;
	}
	unsigned width = (unsigned)strtoul(argv[2], NULL, 10), height = (unsigned)strtoul(argv[3], NULL, 10);
	int failures = 0;
	for (int i = 4; i < argc; i++)
		failures += check(argv[1], (unsigned)strtoul(argv[i], NULL, 10), width, height);
	if (!failures)
		printf("every frame matches the client's picture\n");
	return failures != 0;
}
