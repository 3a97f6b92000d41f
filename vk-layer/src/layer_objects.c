#include <pthread.h>
#include <stdlib.h>

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
	remove_node(&devices, device);
}
