/* uda_surface_sets_v1 events into capability set lists (wayland_uda_sets.h). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wayland_file.h"
#include "wayland_uda_sets.h"

static void clear(struct uda_sets_entry *entries, uint32_t *count)
{
	for (uint32_t i = 0; i < *count; i++)
		uda_capability_set_list_destroy(entries[i].sets);
	*count = 0;
}

void uda_sets_receiver_init(struct uda_sets_receiver *receiver, uda_context *context)
{
	memset(receiver, 0, sizeof(*receiver));
	receiver->context = context;
}

void uda_sets_receiver_finish(struct uda_sets_receiver *receiver)
{
	clear(receiver->pending, &receiver->pending_count);
	clear(receiver->current, &receiver->current_count);
}

static uda_capability_set_list *read_sets(uda_context *context, int fd, uint32_t size)
{
	void *bytes = wayland_file_copy(fd, size, UDA_MAX_SERIALIZED_SIZE);
	if (!bytes)
		return NULL;
	uda_capability_set_list *sets = NULL;
	if (uda_capability_set_list_deserialize(context, bytes, size, &sets) != UDA_SUCCESS)
		sets = NULL;
	free(bytes);
	return sets;
}

void uda_sets_receiver_format_sets(struct uda_sets_receiver *receiver, uint32_t format, int fd, uint32_t size)
{
	uda_capability_set_list *sets = fd >= 0 ? read_sets(receiver->context, fd, size) : NULL;
	if (fd >= 0)
		close(fd);
	bool repeated = false;
	for (uint32_t i = 0; i < receiver->pending_count; i++)
		repeated = repeated || receiver->pending[i].format == format;
	if (!sets || repeated || receiver->pending_count == UDA_SETS_MAX_FORMATS) {
		uda_capability_set_list_destroy(sets);
		receiver->broken = true;
		return;
	}
	receiver->pending[receiver->pending_count++] = (struct uda_sets_entry){format, sets};
}

void uda_sets_receiver_done(struct uda_sets_receiver *receiver)
{
	if (receiver->broken) {
		clear(receiver->pending, &receiver->pending_count);
	} else {
		clear(receiver->current, &receiver->current_count);
		memcpy(receiver->current, receiver->pending, sizeof(receiver->pending[0]) * receiver->pending_count);
		receiver->current_count = receiver->pending_count;
		receiver->pending_count = 0;
		receiver->generation++;
		receiver->received = true;
	}
	receiver->broken = false;
}

const uda_capability_set_list *uda_sets_receiver_find(const struct uda_sets_receiver *receiver, uint32_t format)
{
	for (uint32_t i = 0; i < receiver->current_count; i++) {
		if (receiver->current[i].format == format)
			return receiver->current[i].sets;
	}
	return NULL;
}
