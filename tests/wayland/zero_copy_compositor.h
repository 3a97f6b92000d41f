/* A compositor in a thread of the test process, for uda's own protocol
 * with a real GL client on uda's EGL platform: wl_compositor (surfaces:
 * attach, damage, frame, commit), wl_shm (no formats: nothing to fall
 * back to) and uda_allocation_manager_v1 sending the capability sets its
 * own Vulkan device (in a uda context of its own) can sample and the CPU
 * read. Each committed buffer is imported on that device under those sets
 * (uda_wayland_import_buffer) and its centre pixel read through the
 * import, zero-copy; the previous buffer is released. */
#ifndef UDA_TEST_ZERO_COPY_COMPOSITOR_H
#define UDA_TEST_ZERO_COPY_COMPOSITOR_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct zero_copy_compositor;

/* Listens on a socket of its own (its path from _socket) for surfaces of
 * width x height ABGR8888. NULL if it cannot (no Vulkan device). */
struct zero_copy_compositor *zero_copy_compositor_start(uint32_t width, uint32_t height);
const char *zero_copy_compositor_socket(const struct zero_copy_compositor *compositor);
/* What the last committed buffer showed (R, G, B, A of its centre), how
 * many buffers were committed and imported, and how many were refused. */
bool zero_copy_compositor_last_pixel(struct zero_copy_compositor *compositor, uint8_t out_rgba[4]);
unsigned zero_copy_compositor_frames(struct zero_copy_compositor *compositor);
unsigned zero_copy_compositor_refused(struct zero_copy_compositor *compositor);
void zero_copy_compositor_stop(struct zero_copy_compositor *compositor);

#ifdef __cplusplus
}
#endif

#endif
