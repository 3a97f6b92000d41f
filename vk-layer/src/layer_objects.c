#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "layer_objects.h"

/* A handful of instances and devices per process: linked lists under one
 * lock beat any table. */
struct node {
	struct node *next;
	union {
		struct layer_instance instance;
		struct layer_device device;
	} u;
};

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct node *instances;
static struct node *devices;

static struct node *add(struct node **list, void *key, bool is_device)
{
	struct node *node = calloc(1, sizeof(*node));
	if (!node)
		return NULL;
	if (is_device)
		node->u.device.key = key;
	else
		node->u.instance.key = key;
	pthread_mutex_lock(&registry_lock);
	node->next = *list;
	*list = node;
	pthread_mutex_unlock(&registry_lock);
	return node;
}

static struct node *find(struct node *const *list, void *key, bool is_device)
{
	pthread_mutex_lock(&registry_lock);
	struct node *node = *list;
	while (node && (is_device ? node->u.device.key : node->u.instance.key) != key)
		node = node->next;
	pthread_mutex_unlock(&registry_lock);
	return node;
}

static void remove_node(struct node **list, const void *record)
{
	pthread_mutex_lock(&registry_lock);
	for (struct node **link = list; *link; link = &(*link)->next) {
		if (&(*link)->u == record) {
			struct node *node = *link;
			*link = node->next;
			free(node);
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
}

struct layer_instance *layer_instance_add(void *key)
{
	struct node *node = add(&instances, key, false);
	return node ? &node->u.instance : NULL;
}

struct layer_instance *layer_instance_find(void *key)
{
	struct node *node = find(&instances, key, false);
	return node ? &node->u.instance : NULL;
}

void layer_instance_remove(struct layer_instance *instance)
{
	remove_node(&instances, instance);
}

struct layer_device *layer_device_add(void *key)
{
	struct node *node = add(&devices, key, true);
	return node ? &node->u.device : NULL;
}

struct layer_device *layer_device_find(void *key)
{
	struct node *node = find(&devices, key, true);
	return node ? &node->u.device : NULL;
}

void layer_device_remove(struct layer_device *device)
{
	/* Memory the application never freed goes with the device; so do
	 * the mappings behind it. */
	pthread_mutex_lock(&registry_lock);
	struct layer_host_mapping *mapping = device->host_mappings;
	device->host_mappings = NULL;
	pthread_mutex_unlock(&registry_lock);
	while (mapping) {
		struct layer_host_mapping *next = mapping->next;
		munmap(mapping->pointer, mapping->size);
		free(mapping);
		mapping = next;
	}
	for (struct layer_export_image *i = device->export_images, *next; i; i = next) {
		next = i->next;
		free(i);
	}
	for (struct layer_export_memory *m = device->export_memories, *next; m; m = next) {
		next = m->next;
		free(m);
	}
	remove_node(&devices, device);
}

bool layer_host_mapping_add(struct layer_device *device, VkDeviceMemory memory, void *pointer, size_t size)
{
	struct layer_host_mapping *mapping = calloc(1, sizeof(*mapping));
	if (!mapping)
		return false;
	mapping->memory = memory;
	mapping->pointer = pointer;
	mapping->size = size;
	pthread_mutex_lock(&registry_lock);
	mapping->next = device->host_mappings;
	device->host_mappings = mapping;
	pthread_mutex_unlock(&registry_lock);
	return true;
}

struct layer_host_mapping *layer_host_mapping_take(struct layer_device *device, VkDeviceMemory memory)
{
	struct layer_host_mapping *found = NULL;
	pthread_mutex_lock(&registry_lock);
	for (struct layer_host_mapping **link = &device->host_mappings; *link; link = &(*link)->next) {
		if ((*link)->memory == memory) {
			found = *link;
			*link = found->next;
			break;
		}
	}
	pthread_mutex_unlock(&registry_lock);
	return found;
}

/* The export records: short lists per device, under the registry lock. */
#define DEFINE_EXPORT_RECORDS(kind, field, key_type, key)                                                             \
	bool layer_export_##kind##_add(struct layer_device *device, const struct layer_export_##kind *record)         \
	{                                                                                                              \
		struct layer_export_##kind *copy = malloc(sizeof(*copy));                                              \
		if (!copy)                                                                                             \
			return false;                                                                                  \
		*copy = *record;                                                                                       \
		pthread_mutex_lock(&registry_lock);                                                                    \
		copy->next = device->field;                                                                            \
		device->field = copy;                                                                                  \
		pthread_mutex_unlock(&registry_lock);                                                                  \
		return true;                                                                                           \
	}                                                                                                              \
	bool layer_export_##kind##_find(struct layer_device *device, key_type handle, struct layer_export_##kind *out) \
	{                                                                                                              \
		bool found = false;                                                                                    \
		pthread_mutex_lock(&registry_lock);                                                                    \
		for (struct layer_export_##kind *r = device->field; r && !found; r = r->next) {                        \
			if (r->key == handle) {                                                                        \
				*out = *r;                                                                             \
				found = true;                                                                          \
			}                                                                                              \
		}                                                                                                      \
		pthread_mutex_unlock(&registry_lock);                                                                  \
		return found;                                                                                          \
	}                                                                                                              \
	void layer_export_##kind##_remove(struct layer_device *device, key_type handle)                              \
	{                                                                                                              \
		pthread_mutex_lock(&registry_lock);                                                                    \
		for (struct layer_export_##kind **link = &device->field; *link; link = &(*link)->next) {               \
			if ((*link)->key == handle) {                                                                  \
				struct layer_export_##kind *gone = *link;                                              \
				*link = gone->next;                                                                    \
				free(gone);                                                                            \
				break;                                                                                 \
			}                                                                                              \
		}                                                                                                      \
		pthread_mutex_unlock(&registry_lock);                                                                  \
	}

DEFINE_EXPORT_RECORDS(image, export_images, VkImage, image)
DEFINE_EXPORT_RECORDS(memory, export_memories, VkDeviceMemory, memory)
