/* The client's frame-dependent picture, shared by the client that draws it
 * and the test that checks the compositor's PNGs: a background whose
 * colour changes with the frame, a white bar that moves right, and a
 * green band across the top eighth (which shows the image is upright). */
#ifndef UDA_SAMPLES_DEMO_PATTERN_H
#define UDA_SAMPLES_DEMO_PATTERN_H

#include <stdint.h>

struct demo_rgb {
	uint8_t r, g, b;
};

static inline struct demo_rgb demo_background(uint32_t frame)
{
	return (struct demo_rgb){(uint8_t)(frame * 29u % 256u), 64, (uint8_t)(255u - frame * 29u % 256u)};
}

static inline uint32_t demo_bar_x(uint32_t frame, uint32_t width)
{
	return frame * (width / 16u) % (width - width / 8u);
}

static inline struct demo_rgb demo_pattern(uint32_t frame, uint32_t x, uint32_t y, uint32_t width, uint32_t height)
{
	if (y < height / 8u)
		return (struct demo_rgb){0, 200, 0};
	uint32_t bar = demo_bar_x(frame, width);
	if (x >= bar && x < bar + width / 8u)
		return (struct demo_rgb){255, 255, 255};
	return demo_background(frame);
}

/* The compositor's frame around the client's picture. */
#define DEMO_BORDER 16u
static inline struct demo_rgb demo_border_colour(void)
{
	return (struct demo_rgb){32, 32, 32};
}

#endif
