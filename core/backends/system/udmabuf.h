/* /dev/udmabuf: a DMA-BUF of a sealed memfd's pages, for consumers that
 * import DMA-BUFs only. The one ioctl of the system backend. */
#ifndef UDA_SYSTEM_UDMABUF_H
#define UDA_SYSTEM_UDMABUF_H

#include <stdbool.h>
#include <stdint.h>

/* Whether this process can create udmabufs (the node exists, read-write). */
bool udmabuf_available(void);

/* A new O_CLOEXEC DMA-BUF of `size` bytes of `memfd` (sealed against
 * shrinking, size a multiple of the page size); -errno on failure. */
int udmabuf_create(int memfd, uint64_t size);

#endif
