/* The dma-heap backend module: every heap under /dev/dma_heap whose name
 * says its placement, as a memory source. No heap directory (no kernel
 * support, or a container without the nodes): a backend with no devices. */
#include "heap_device.h"

static uda_result dma_heap_load(uda_context *ctx, void **out_backend_data)
{
	*out_backend_data = NULL;
	const uint32_t added = dma_heap_devices_add_all(ctx, &dma_heap_io_kernel);
	if (!added)
		uda_context_log(ctx, UDA_LOG_INFO, "dma-heap: no usable heap under /dev/dma_heap");
	return UDA_SUCCESS;
}

static const uda_backend_interface dma_heap_backend_interface = {
	.version = UDA_BACKEND_INTERFACE_VERSION_1,
	.name = DMA_HEAP_BACKEND_NAME,
	.load = dma_heap_load,
};

UDA_BACKEND_DEFINE_ENTRY_POINT(dma_heap_backend_interface)
