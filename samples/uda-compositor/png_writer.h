/* The compositor's frames as PNG files. */
#ifndef UDA_COMPOSITOR_PNG_WRITER_H
#define UDA_COMPOSITOR_PNG_WRITER_H

#include <stdbool.h>
#include <stdint.h>

/* RGBA8 rows in, an RGB PNG out: the output is opaque, and what a window
 * of an X format left in the alpha byte is not part of the picture. */
bool png_write_rgb(const char *path, const uint8_t *rgba, uint32_t width, uint32_t height);

#endif
