/* Checks the PNG files uda-demo left. In each, uda-client's window sits
 * first on the output, at (DEMO_BORDER, DEMO_BORDER): it must be the
 * client's picture of some frame (samples/common/demo_pattern.h; the
 * frame is read off its background colour), pixel for pixel, with the
 * compositor's border colour above and left of it and in the gap after
 * it. Each further window must have put something on the output to the
 * right. The client's frame must move on from the first file to the last.
 *   check-demo-pngs DIR WIDTH HEIGHT WINDOWS FRAME...   exit 0 when all match */
#include <png.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/demo_pattern.h"

struct picture {
	unsigned char *pixels;
	unsigned width, height;
};

static bool is(const unsigned char *p, struct demo_rgb c)
{
	return p[0] == c.r && p[1] == c.g && p[2] == c.b && p[3] == 255;
}

/* The client frame whose background this is (frame * 29 mod 256 in red,
 * its complement in blue): frames repeat every 256. */
static int frame_of(const unsigned char *p)
{
	for (unsigned frame = 0; frame < 256; frame++) {
		if (is(p, demo_background(frame)))
			return (int)frame;
	}
	return -1;
}

static int check(const struct picture *image, const char *path, unsigned width, unsigned height, unsigned windows)
{
	if (image->width < width + 2 * DEMO_BORDER || image->height < height + 2 * DEMO_BORDER) {
		printf("%s: %ux%u, too small for a %ux%u window\n", path, image->width, image->height, width, height);
		return -1;
	}
	/* The bottom row, left or right end: the bar is never at both. */
	const unsigned char *at = image->pixels + ((size_t)(DEMO_BORDER + height - 1) * image->width + DEMO_BORDER) * 4;
	int frame = frame_of(at);
	if (frame < 0)
		frame = frame_of(at + (size_t)(width - 1) * 4);
	if (frame < 0) {
		printf("%s: no client frame's background at the window's bottom corners (%u %u %u)\n", path, at[0], at[1],
		       at[2]);
		return -1;
	}
	unsigned long wrong = 0;
	/* The window, and the border above, left of and after it. */
	for (unsigned y = 0; y < height + DEMO_BORDER; y++) {
		for (unsigned x = 0; x < width + 2 * DEMO_BORDER; x++) {
			const unsigned char *p = image->pixels + ((size_t)y * image->width + x) * 4;
			bool inside = x >= DEMO_BORDER && y >= DEMO_BORDER && x < width + DEMO_BORDER;
			struct demo_rgb expected = inside ? demo_pattern((uint32_t)frame, x - DEMO_BORDER, y - DEMO_BORDER,
			                                                 width, height)
			                                  : demo_border_colour();
			if (!is(p, expected)) {
				if (!wrong)
					printf("%s: first wrong pixel at %u,%u: %u %u %u %u, expected %u %u %u 255\n", path, x, y, p[0],
					       p[1], p[2], p[3], expected.r, expected.g, expected.b);
				wrong++;
			}
		}
	}
	/* The other windows: columns to the right with something on them. */
	unsigned found = 1;
	bool in_window = false;
	for (unsigned x = width + 2 * DEMO_BORDER; x < image->width; x++) {
		const unsigned char *p = image->pixels + ((size_t)(DEMO_BORDER + 1) * image->width + x) * 4;
		bool border = is(p, demo_border_colour());
		if (!border && !in_window)
			found++;
		in_window = !border;
	}
	printf("%s: client frame %d, %s (%lu pixels wrong); %u window%s on the output\n", path, frame,
	       wrong ? "WRONG" : "ok", wrong, found, found == 1 ? "" : "s");
	if (found < windows) {
		printf("%s: %u windows expected\n", path, windows);
		return -1;
	}
	return wrong ? -1 : frame;
}

static bool load(const char *path, struct picture *out)
{
	png_image image = {.version = PNG_IMAGE_VERSION};
	if (!png_image_begin_read_from_file(&image, path)) {
		printf("%s: cannot read: %s\n", path, image.message);
		return false;
	}
	image.format = PNG_FORMAT_RGBA;
	out->width = image.width;
	out->height = image.height;
	out->pixels = malloc(PNG_IMAGE_SIZE(image));
	if (!out->pixels || !png_image_finish_read(&image, NULL, out->pixels, 0, NULL)) {
		printf("%s: cannot decode\n", path);
		free(out->pixels);
		out->pixels = NULL;
		png_image_free(&image);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	if (argc < 6) {
		fprintf(stderr, "usage: check-demo-pngs DIR WIDTH HEIGHT WINDOWS FRAME...\n");
		return 2;
	}
	const unsigned width = (unsigned)strtoul(argv[2], NULL, 10), height = (unsigned)strtoul(argv[3], NULL, 10),
	               windows = (unsigned)strtoul(argv[4], NULL, 10);
	int failures = 0, first = -1, last = -1;
	for (int i = 5; i < argc; i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/frame-%03u.png", argv[1], (unsigned)strtoul(argv[i], NULL, 10));
		struct picture image = {0};
		int frame = load(path, &image) ? check(&image, path, width, height, windows) : -1;
		free(image.pixels);
		failures += frame < 0;
		if (first < 0)
			first = frame;
		last = frame;
	}
	if (!failures && argc > 6 && last == first) {
		printf("the client's picture did not move on: frame %d first and last\n", first);
		failures++;
	}
	if (!failures)
		printf("every frame matches the client's picture\n");
	return failures != 0;
}
