/* Files a compositor sends the client (the linux-dmabuf format table,
 * uda's capability sets): copied, never mapped. The compositor keeps the
 * file and may shrink it once sent, sealed or not as it pleases; a
 * mapping read past the file's new end raises SIGBUS in the client, which
 * no check made before the read can rule out. A copy of these few
 * kilobytes cannot fault. No Wayland types here. */
#ifndef UDA_EGL_WAYLAND_FILE_H
#define UDA_EGL_WAYLAND_FILE_H

#include <stdint.h>

/* `size` bytes from the start of `fd` (not taken), in memory of their own
 * to free(); NULL where size is 0 or over `max_size`, or `fd` is not a
 * regular file holding that many bytes. */
void *wayland_file_copy(int fd, uint32_t size, uint32_t max_size);

#endif
