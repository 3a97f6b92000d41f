/* One uda device per DMA-BUF heap: a memory source (UDA_DEVICE_API_DMA_HEAP)
 * with a placement and no usage of its own. uda_negotiate_allocate asks it
 * for sets no negotiating device allocates; it gives pitch-linear memory
 * that travels as a DMA-BUF, sized by the set's constraints. */
#ifndef UDA_DMA_HEAP_DEVICE_H
#define UDA_DMA_HEAP_DEVICE_H

#include <uda/uda_backend.h>

#include "heap_io.h"

#define DMA_HEAP_BACKEND_NAME "dma-heap"

#ifdef __cplusplus
extern "C" {
#endif

/* The placement a heap's name says it gives (the mainline names: "system",
 * "linux,cma" and other CMA or "reserved" regions, vendors' "secure" or
 * "protected" ones), 0 for a name that says nothing uda can rely on. */
uint32_t dma_heap_placement(const char *name);

/* Registers the heap `name` as a device of `ctx`, its memory from `io`
 * (which must outlive the context). UDA_ERROR_UNSUPPORTED for a heap whose
 * placement is unknown. */
uda_result dma_heap_device_add(uda_context *ctx, const char *name, const struct dma_heap_io *io,
                               uda_device **out_device);

/* Every heap `io` lists, registered; the count registered. */
uint32_t dma_heap_devices_add_all(uda_context *ctx, const struct dma_heap_io *io);

#ifdef __cplusplus
}
#endif

#endif
