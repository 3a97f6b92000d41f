/* Whether a screenshot shows a program's red, green and blue pixels:
 * counts the pixels where one channel clearly dominates.
 *   screenshot-colours FILE.png [MINIMUM]   exit 0 when each colour has
 *                                           at least MINIMUM pixels (20) */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: screenshot-colours FILE.png [MINIMUM]\n");
		return 2;
	}
	const unsigned long minimum = argc > 2 ? strtoul(argv[2], NULL, 10) : 20;
	png_image image = {.version = PNG_IMAGE_VERSION};
	if (!png_image_begin_read_from_file(&image, argv[1])) {
		printf("%s: cannot read: %s\n", argv[1], image.message);
		return 2;
	}
	image.format = PNG_FORMAT_RGBA;
	unsigned char *pixels = malloc(PNG_IMAGE_SIZE(image));
	if (!pixels || !png_image_finish_read(&image, NULL, pixels, 0, NULL)) {
		printf("%s: cannot decode\n", argv[1]);
		free(pixels);
		return 2;
	}
	unsigned long counts[3] = {0, 0, 0};
	for (size_t i = 0; i < (size_t)image.width * image.height; i++) {
		const unsigned char *p = pixels + i * 4;
		for (int c = 0; c < 3; c++) {
			int other1 = p[(c + 1) % 3], other2 = p[(c + 2) % 3];
			if (p[c] >= 120 && p[c] > 2 * other1 && p[c] > 2 * other2)
				counts[c]++;
		}
	}
	free(pixels);
	const int shown = counts[0] >= minimum && counts[1] >= minimum && counts[2] >= minimum;
	printf("%s: %lu red, %lu green, %lu blue pixels: %s\n", argv[1], counts[0], counts[1], counts[2],
	       shown ? "the program's colours are on screen" : "the program's colours are missing");
	return shown ? 0 : 1;
}
