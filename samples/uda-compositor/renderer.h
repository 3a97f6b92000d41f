/* The compositor's Vulkan device, reached through the uda layer
 * (VK_UDA_external_allocation): client allocations become VkImages of
 * their own memory, and every window is blitted onto one output image,
 * which is read back for the PNG frames. */
#ifndef UDA_COMPOSITOR_RENDERER_H
#define UDA_COMPOSITOR_RENDERER_H

#include <stdint.h>

#include <uda/uda.h>

struct renderer;
struct renderer_image;

struct renderer_view {
	const struct renderer_image *image;
	int32_t x, y; /* on the output */
	uint32_t width, height;
};

/* NULL with the reason printed. */
struct renderer *renderer_create(uda_context *context, uint32_t width, uint32_t height);
void renderer_destroy(struct renderer *renderer);
uda_device *renderer_get_device(const struct renderer *renderer);
const char *renderer_get_name(const struct renderer *renderer);

/* What the renderer reads a client's buffer of `format` with, for buffers
 * up to width x height: the device's capability sets for sampling and
 * blitting from it, as the layer states them. */
uda_result renderer_get_reader_sets(struct renderer *renderer, uint32_t format, uint32_t width, uint32_t height,
                                    uda_capability_set_list **out_sets);
/* An allocation the CPU writes and the renderer reads (a wl_shm buffer's
 * copy), negotiated with the renderer's device. */
uda_result renderer_allocate_upload(struct renderer *renderer, uint32_t format, uint32_t width, uint32_t height,
                                    uda_allocation **out_allocation);

/* A VkImage over the allocation's memory, no copy; NULL with *out_problem. */
struct renderer_image *renderer_image_create(struct renderer *renderer, uda_allocation *allocation,
                                             const char **out_problem);
/* Accepts NULL. Waits for nothing: composites finish before they return. */
void renderer_image_destroy(struct renderer *renderer, struct renderer_image *image);

/* Clears the output, blits each view onto it in order (clipped to the
 * output), reads it back when asked (the output stands for a screen: only
 * a frame to be saved is read); returns when the GPU is done. */
bool renderer_composite(struct renderer *renderer, const struct renderer_view *views, unsigned count,
                        bool read_back);
/* The last composite read back, RGBA8 rows of width x 4 bytes. */
const uint8_t *renderer_get_pixels(const struct renderer *renderer, uint32_t *out_width, uint32_t *out_height);

#endif
