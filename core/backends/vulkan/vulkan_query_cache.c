/*
 * vkGetPhysicalDeviceImageFormatProperties2's answers per device. Every
 * allocation and import re-asks the driver whether it supports the image
 * (parameters may come from another process), and on a software driver
 * that query costs as much as a tenth of an allocate-export-import round
 * (uda-bench-alloc on lavapipe). The answers never change for a device,
 * so the last few are kept; the key is everything the query depends on.
 */
#include <pthread.h>
#include <stdlib.h>

#include "vulkan_backend.h"

#define QUERY_CACHE_SIZE 32

struct query_key {
	VkFormat format;
	VkImageTiling tiling;
	uint64_t modifier;
	VkImageUsageFlags usage;
	VkExternalMemoryHandleTypeFlagBits handle;
	struct vulkan_video_profile video;
};

struct query_entry {
	struct query_key key;
	bool supported;
	struct image_support support;
};

struct vulkan_query_cache {
	pthread_mutex_t lock;
	struct query_entry entries[QUERY_CACHE_SIZE];
	uint32_t count, next; /* filled entries; the one replaced next */
};

struct vulkan_query_cache *vulkan_query_cache_create(void)
{
	struct vulkan_query_cache *cache = calloc(1, sizeof(*cache));
	if (cache && pthread_mutex_init(&cache->lock, NULL) != 0) {
		free(cache);
		return NULL;
	}
	return cache;
}

void vulkan_query_cache_destroy(struct vulkan_query_cache *cache)
{
	if (!cache)
		return;
	pthread_mutex_destroy(&cache->lock);
	free(cache);
}

/* The modifier counts only for the modifier tiling. */
static struct query_key make_key(const struct vulkan_image_desc *desc, VkExternalMemoryHandleTypeFlagBits handle)
{
	return (struct query_key){desc->format,
	                          desc->tiling,
	                          desc->tiling == VK_IMAGE_TILING_DRM_FORMAT_MODIFIER_EXT ? desc->modifier : 0,
	                          desc->usage,
	                          handle,
	                          desc->video};
}

static bool same_key(const struct query_key *a, const struct query_key *b)
{
	return a->format == b->format && a->tiling == b->tiling && a->modifier == b->modifier && a->usage == b->usage &&
	       a->handle == b->handle && a->video.operation == b->video.operation &&
	       a->video.std_profile == b->video.std_profile && a->video.chroma == b->video.chroma &&
	       a->video.bit_depth == b->video.bit_depth;
}

bool vulkan_query_cache_find(struct vulkan_query_cache *cache, const struct vulkan_image_desc *desc,
                             VkExternalMemoryHandleTypeFlagBits handle, bool *out_supported, struct image_support *out)
{
	const struct query_key key = make_key(desc, handle);
	bool found = false;
	pthread_mutex_lock(&cache->lock);
	for (uint32_t i = 0; i < cache->count && !found; i++) {
		if (same_key(&cache->entries[i].key, &key)) {
			*out_supported = cache->entries[i].supported;
			*out = cache->entries[i].support;
			found = true;
		}
	}
	pthread_mutex_unlock(&cache->lock);
	return found;
}

void vulkan_query_cache_add(struct vulkan_query_cache *cache, const struct vulkan_image_desc *desc,
                            VkExternalMemoryHandleTypeFlagBits handle, bool supported,
                            const struct image_support *support)
{
	const struct query_key key = make_key(desc, handle);
	pthread_mutex_lock(&cache->lock);
	struct query_entry *entry = &cache->entries[cache->next];
	entry->key = key;
	entry->supported = supported;
	entry->support = *support;
	cache->next = (cache->next + 1) % QUERY_CACHE_SIZE;
	if (cache->count < QUERY_CACHE_SIZE)
		cache->count++;
	pthread_mutex_unlock(&cache->lock);
}
