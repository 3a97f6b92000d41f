/* png_writer.h */
#include <png.h>
#include <stdio.h>

#include "png_writer.h"

bool png_write_rgb(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height)
{
	FILE *file = fopen(path, "wb");
	if (!file)
		return false;
	png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, NULL, NULL);
	png_infop info = png ? png_create_info_struct(png) : NULL;
	bool ok = png && info && !setjmp(png_jmpbuf(png));
	if (ok) {
		png_init_io(png, file);
		png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
		             PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
		png_write_info(png, info);
		png_set_filler(png, 0, PNG_FILLER_AFTER); /* rows come with a fourth byte, dropped */
		for (uint32_t y = 0; y < height; y++)
			png_write_row(png, rgba + (size_t)y * width * 4);
		png_write_end(png, NULL);
	}
	png_destroy_write_struct(&png, &info);
	return fclose(file) == 0 && ok;
}
