/* libFuzzer target: the Vulkan layer's handling of the application's pNext
 * chains (vkCreateImage with VkImageUdaAllocationCreateInfoUDA,
 * vkAllocateMemory with VkImportMemoryUdaAllocationInfoUDA), over a mock
 * dispatch standing in for the driver.
 *
 * The input describes the layer device (which driver extensions it has,
 * whether its UUIDs are the allocation's), the image's create info, and
 * two chains built from a palette of structs: the layer's own, the
 * external-memory structs it replaces or refuses, dedicated-allocation
 * info, and structs of types the layer does not know. Whatever the layer
 * decides:
 *   - the driver never sees a struct of the layer's (sType in its block);
 *   - the application's chain is exactly as it was after the call;
 *   - the driver is handed at most one import, of a handle type the
 *     allocation's set carries;
 *   - no descriptor and no host mapping outlive vkFreeMemory.
 * A breach aborts. */
#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <uda/uda_backend.h>
#include <vulkan/vk_uda.h>

#include "fuzz_context.h"
#include "layer_import.h"
#include "layer_objects.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LINKS 6
#define ALLOCATION_SIZE (64u * 64u * 4u)

/* ---- the input ---------------------------------------------------------- */

struct input {
	const uint8_t *data;
	size_t size;
};

static uint8_t take_u8(struct input *in)
{
	if (!in->size)
		return 0;
	in->size--;
	return *in->data++;
}

static uint32_t take_u32(struct input *in)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v |= (uint32_t)take_u8(in) << (8 * i);
	return v;
}

/* ---- the uda side: one allocation of a device that exports memfds -------- */

static int memfd_of_allocation = -1;

static uda_result no_sets(void *data, uda_context *ctx, const uda_assertion *assertion, const uda_usage *usage,
                          uda_capability_set_list *out)
{
	return uda_context_set_error(ctx, UDA_ERROR_UNSUPPORTED, "the fuzz device only imports");
}

static uda_result keep_import(void *data, uda_context *ctx, int fd, bool take_fd, const uda_allocation_metadata *m,
                              const uda_capability_set_list *set, const void *next, uda_backend_allocation *out)
{
	out->data = (void *)1;
	return UDA_SUCCESS;
}

static void release(void *data, void *allocation)
{
}

/* Every handle type is the same memfd here: enough for the layer, which
 * only passes the fd on or maps it. */
static uda_result export_fd(void *data, uda_context *ctx, void *allocation, uda_handle_type type, int *out_fd)
{
	*out_fd = fcntl(memfd_of_allocation, F_DUPFD_CLOEXEC, 0);
	return *out_fd < 0 ? UDA_ERROR_BACKEND : UDA_SUCCESS;
}

static const uda_device_interface fuzz_device_interface = {
	.version = UDA_DEVICE_INTERFACE_VERSION_1,
	.get_capability_sets = no_sets,
	.import = keep_import,
	.free = release,
	.export_fd = export_fd,
};

static const uint8_t allocation_uuid[VK_UUID_SIZE] = {0xa0, 1, 2, 3};

/* Linear ABGR8888 64x64 whose set carries `handles` (bit per uda type). */
static uda_allocation *make_allocation(uda_context *ctx, uda_device *device, uint8_t handles)
{
	uda_capability_set_builder *builder;
	uda_capability_set_list *set = NULL;
	if (uda_capability_set_builder_create(ctx, &builder) != UDA_SUCCESS)
		abort();
	uda_result result = uda_capability_set_builder_add_layout(builder, 0 /* DRM_FORMAT_MOD_LINEAR */, 0);
	for (uint32_t type = UDA_HANDLE_TYPE_DMA_BUF; type <= UDA_HANDLE_TYPE_MEMFD && result == UDA_SUCCESS; type++) {
		if (handles & (1u << type))
			result = uda_capability_set_builder_add_u32(builder, UDA_CAPABILITY_HANDLE, type, 0);
	}
	if (result == UDA_SUCCESS)
		result = uda_capability_set_list_create(ctx, &set);
	if (result == UDA_SUCCESS)
		result = uda_capability_set_list_append_set(set, builder);
	uda_capability_set_builder_destroy(builder);
	if (result != UDA_SUCCESS)
		abort();
	uda_allocation_metadata m = {
		.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA,
		.width = 64,
		.height = 64,
		.format = 0x34324241, /* DRM_FORMAT_ABGR8888 */
		.size = ALLOCATION_SIZE,
		.plane_count = 1,
		.planes = {{0, 64 * 4}},
	};
	/* Imported as the first handle type the set carries (the core checks
	 * the set carries it); no handle: no allocation, the layer gets NULL. */
	for (uint32_t type = UDA_HANDLE_TYPE_DMA_BUF; type <= UDA_HANDLE_TYPE_MEMFD && !m.handle_type; type++) {
		if (handles & (1u << type))
			m.handle_type = type;
	}
	memcpy(m.device_uuid, allocation_uuid, sizeof(allocation_uuid));
	memcpy(m.driver_uuid, allocation_uuid, sizeof(allocation_uuid));
	const uda_import_info import = {
		.type = UDA_STRUCTURE_TYPE_IMPORT_INFO,
		.device = device,
		.fd = memfd_of_allocation,
		.metadata = &m,
		.set_list = set,
	};
	uda_allocation *allocation = NULL;
	result = uda_import(&import, &allocation);
	uda_capability_set_list_destroy(set);
	return result == UDA_SUCCESS ? allocation : NULL;
}

/* ---- the mock driver ----------------------------------------------------- */

static VkResult driver_result; /* what the mock answers this round */
static uint32_t host_type_bits;
static bool layer_imports; /* this call's chain has the layer's import struct */

/* The block vk_uda.h takes its sTypes from. */
static bool is_layer_type(VkStructureType type)
{
	return (uint32_t)type >= (uint32_t)VK_UDA_STRUCTURE_TYPE_BASE &&
	       (uint32_t)type < (uint32_t)VK_UDA_STRUCTURE_TYPE_BASE + 1000;
}

/* What reaches the driver: no struct of the layer's, at most one import. */
static void check_down(const void *chain)
{
	unsigned imports = 0, links = 0;
	for (const VkBaseInStructure *s = chain; s; s = s->pNext) {
		if (is_layer_type(s->sType) || ++links > 64)
			abort();
		if (s->sType == VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR ||
		    s->sType == VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT)
			imports++;
	}
	/* Where the layer imports, the application's own import structs are
	 * refused before this; chains the layer passes through are the
	 * application's business (found by this target in its first minute). */
	if (layer_imports && imports != 1)
		abort();
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_CreateImage(VkDevice device, const VkImageCreateInfo *info,
                                                      const VkAllocationCallbacks *allocator, VkImage *out)
{
	check_down(info->pNext);
	*out = driver_result == VK_SUCCESS ? (VkImage)(uintptr_t)0x1000 : VK_NULL_HANDLE;
	return driver_result;
}

static VKAPI_ATTR void VKAPI_CALL mock_DestroyImage(VkDevice device, VkImage image,
                                                   const VkAllocationCallbacks *allocator)
{
}

static VKAPI_ATTR void VKAPI_CALL mock_GetImageSubresourceLayout(VkDevice device, VkImage image,
                                                                const VkImageSubresource *subresource,
                                                                VkSubresourceLayout *layout)
{
	memset(layout, 0, sizeof(*layout));
	layout->rowPitch = host_type_bits & 0x100 ? 64 * 4 : 512; /* the memory's pitch, or not */
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_AllocateMemory(VkDevice device, const VkMemoryAllocateInfo *info,
                                                         const VkAllocationCallbacks *allocator, VkDeviceMemory *out)
{
	check_down(info->pNext);
	for (const VkBaseInStructure *s = info->pNext; s; s = s->pNext) {
		/* A driver owns an imported fd only once the import succeeds;
		 * the fds of chains the layer passes through are made up. */
		if (layer_imports && s->sType == VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR && driver_result == VK_SUCCESS)
			close(((const VkImportMemoryFdInfoKHR *)s)->fd);
	}
	*out = driver_result == VK_SUCCESS ? (VkDeviceMemory)(uintptr_t)0x2000 : VK_NULL_HANDLE;
	return driver_result;
}

static VKAPI_ATTR void VKAPI_CALL mock_FreeMemory(VkDevice device, VkDeviceMemory memory,
                                                 const VkAllocationCallbacks *allocator)
{
}

static VKAPI_ATTR VkResult VKAPI_CALL mock_GetMemoryHostPointerPropertiesEXT(
	VkDevice device, VkExternalMemoryHandleTypeFlagBits type, const void *pointer,
	VkMemoryHostPointerPropertiesEXT *properties)
{
	properties->memoryTypeBits = host_type_bits & 0xff;
	return VK_SUCCESS;
}

/* ---- chains built from the input ----------------------------------------- */

union link {
	VkBaseOutStructure base;
	VkImageUdaAllocationCreateInfoUDA image_uda;
	VkImportMemoryUdaAllocationInfoUDA memory_uda;
	VkExternalMemoryImageCreateInfo external_image;
	VkMemoryDedicatedAllocateInfo dedicated;
	VkImportMemoryFdInfoKHR import_fd;
	VkExportMemoryAllocateInfo export_memory;
	uint8_t bytes[64];
};

struct chain {
	union link links[MAX_LINKS];
	const void *next_of[MAX_LINKS]; /* each link's pNext as built */
	unsigned count;
};

static void build_chain(struct input *in, uda_allocation *allocation, struct chain *chain)
{
	chain->count = take_u8(in) % (MAX_LINKS + 1);
	for (unsigned i = 0; i < chain->count; i++) {
		union link *l = &chain->links[i];
		memset(l, 0, sizeof(*l));
		const uint8_t kind = take_u8(in);
		switch (kind % 7) {
		case 0:
			l->image_uda.sType = VK_STRUCTURE_TYPE_IMAGE_UDA_ALLOCATION_CREATE_INFO_UDA;
			l->image_uda.allocation = kind & 0x80 ? NULL : allocation;
			break;
		case 1:
			l->memory_uda.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_UDA_ALLOCATION_INFO_UDA;
			l->memory_uda.allocation = kind & 0x80 ? NULL : allocation;
			break;
		case 2:
			l->external_image.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_IMAGE_CREATE_INFO;
			l->external_image.handleTypes = take_u32(in);
			break;
		case 3:
			l->dedicated.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
			l->dedicated.image = kind & 0x80 ? VK_NULL_HANDLE : (VkImage)(uintptr_t)0x1000;
			break;
		case 4:
			/* An application's own import: fd -1, never opened. */
			l->import_fd.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_FD_INFO_KHR;
			l->import_fd.fd = -1;
			break;
		case 5:
			l->export_memory.sType = VK_STRUCTURE_TYPE_EXPORT_MEMORY_ALLOCATE_INFO;
			l->export_memory.handleTypes = take_u32(in);
			break;
		default:
			/* Any type at all: the driver's, unknown ones, and the
			 * layer's own block, where it does not belong. */
			l->base.sType = (VkStructureType)(kind & 0x80 ? (uint32_t)VK_UDA_STRUCTURE_TYPE_BASE + take_u8(in) % 8u
			                                              : take_u32(in));
			break;
		}
	}
	for (unsigned i = 0; i < chain->count; i++) {
		chain->links[i].base.pNext = i + 1 < chain->count ? &chain->links[i + 1].base : NULL;
		chain->next_of[i] = chain->links[i].base.pNext;
	}
}

static const void *chain_head(const struct chain *chain)
{
	return chain->count ? &chain->links[0] : NULL;
}

/* The application's chain is exactly as it was built. */
static void check_restored(const struct chain *chain)
{
	for (unsigned i = 0; i < chain->count; i++) {
		if (chain->links[i].base.pNext != chain->next_of[i])
			abort();
	}
}


int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = {data, size};
	const uint8_t device_bits = take_u8(&in);
	const uint8_t allocation_handles = take_u8(&in);
	driver_result = take_u8(&in) & 1 ? VK_SUCCESS : VK_ERROR_OUT_OF_DEVICE_MEMORY;
	host_type_bits = take_u32(&in);

	const int fds_before = fuzz_open_fds();
	memfd_of_allocation = memfd_create("uda-fuzz-layer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (memfd_of_allocation < 0 || ftruncate(memfd_of_allocation, ALLOCATION_SIZE) != 0 ||
	    fcntl(memfd_of_allocation, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0)
		abort();
	uda_context *ctx = fuzz_context_create();
	uda_device_create_info info = {
		.type = UDA_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
		.name = "fuzz exporter",
		.backend_name = "fuzz",
		.api = UDA_DEVICE_API_OTHER,
		.interface = &fuzz_device_interface,
	};
	memcpy(info.device_uuid, allocation_uuid, sizeof(allocation_uuid));
	memcpy(info.driver_uuid, allocation_uuid, sizeof(allocation_uuid));
	uda_device *exporter;
	if (uda_context_add_device(ctx, &info, &exporter) != UDA_SUCCESS)
		abort();
	uda_allocation *allocation = make_allocation(ctx, exporter, allocation_handles);

	/* The layer's record of the application's VkDevice. */
	static void *dispatch_key_storage;
	VkDevice handle = (VkDevice)&dispatch_key_storage;
	struct layer_device *device = layer_device_add(dispatch_key(handle));
	if (!device)
		abort();
	device->handle = handle;
	device->extension_enabled = true;
	device->has_opaque_fd = device_bits & 1;
	device->has_dma_buf = device_bits & 2;
	device->has_modifiers = device_bits & 4;
	device->has_host_memory = device_bits & 8;
	device->host_pointer_alignment = device_bits & 16 ? 4096 : 65536;
	if (device_bits & 32) {
		memcpy(device->device_uuid, allocation_uuid, sizeof(allocation_uuid));
		memcpy(device->driver_uuid, allocation_uuid, sizeof(allocation_uuid));
	}
	device->next.CreateImage = mock_CreateImage;
	device->next.DestroyImage = mock_DestroyImage;
	device->next.GetImageSubresourceLayout = mock_GetImageSubresourceLayout;
	device->next.AllocateMemory = mock_AllocateMemory;
	device->next.FreeMemory = mock_FreeMemory;
	device->next.GetMemoryHostPointerPropertiesEXT = mock_GetMemoryHostPointerPropertiesEXT;

	PFN_vkCreateImage create_image = (PFN_vkCreateImage)layer_import_command("vkCreateImage");
	PFN_vkAllocateMemory allocate_memory = (PFN_vkAllocateMemory)layer_import_command("vkAllocateMemory");
	PFN_vkFreeMemory free_memory = (PFN_vkFreeMemory)layer_import_command("vkFreeMemory");

	struct chain chain;
	build_chain(&in, allocation, &chain);
	VkImageCreateInfo image_info = {
		.sType = VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO,
		.pNext = chain_head(&chain),
		.flags = take_u8(&in) & 1 ? VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT : 0,
		.imageType = take_u8(&in) & 1 ? VK_IMAGE_TYPE_3D : VK_IMAGE_TYPE_2D,
		.format = take_u8(&in) & 1 ? VK_FORMAT_B8G8R8A8_UNORM : VK_FORMAT_R8G8B8A8_UNORM,
		.extent = {64u + (take_u8(&in) & 1), 64, 1},
		.mipLevels = 1 + (take_u8(&in) & 1),
		.arrayLayers = 1,
		.samples = VK_SAMPLE_COUNT_1_BIT,
		.tiling = (VkImageTiling)(take_u8(&in) % 3),
		.usage = take_u32(&in),
	};
	layer_imports = false; /* vkCreateImage imports nothing */
	VkImage image = VK_NULL_HANDLE;
	if (create_image(handle, &image_info, NULL, &image) == VK_SUCCESS && image == VK_NULL_HANDLE)
		abort();
	check_restored(&chain);

	build_chain(&in, allocation, &chain);
	const VkMemoryAllocateInfo memory_info = {
		.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
		.pNext = chain_head(&chain),
		.allocationSize = take_u8(&in) & 1 ? ALLOCATION_SIZE : take_u32(&in),
		.memoryTypeIndex = take_u8(&in) % 8,
	};
	layer_imports = false;
	for (unsigned i = 0; i < chain.count; i++)
		layer_imports = layer_imports || chain.links[i].base.sType == VK_STRUCTURE_TYPE_IMPORT_MEMORY_UDA_ALLOCATION_INFO_UDA;
	VkDeviceMemory memory = VK_NULL_HANDLE;
	if (allocate_memory(handle, &memory_info, NULL, &memory) == VK_SUCCESS)
		free_memory(handle, memory, NULL);
	check_restored(&chain);

	/* Nothing of the layer's outlives the memory: no host mapping left. */
	if (device->host_mappings)
		abort();
	layer_device_remove(device);
	uda_allocation_destroy(allocation);
	uda_context_destroy(ctx);
	close(memfd_of_allocation);
	if (fuzz_open_fds() != fds_before)
		abort();
	return 0;
}
