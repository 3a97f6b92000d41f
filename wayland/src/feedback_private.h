/* Private to libuda-wayland-server: a feedback as feedback.c computes it
 * and dmabuf_import.c checks client buffers against it. */
#ifndef UDA_WAYLAND_FEEDBACK_PRIVATE_H
#define UDA_WAYLAND_FEEDBACK_PRIVATE_H

#include <stdbool.h>

#include <uda/uda_wayland_server.h>

struct table_entry {
	uint32_t format;
	uint32_t padding;
	uint64_t modifier;
};

struct tranche {
	bool present;
	dev_t target_device;
	uint32_t flags;
	uint32_t count, capacity;
	uint16_t *indices;
};

struct uda_wayland_feedback {
	uda_context *context;
	uda_device *render_device;
	/* The render device's negotiated set of each table entry (an index
	 * into render_sets), for imports of client buffers; UINT32_MAX for an
	 * entry only a display listed (none: the render device samples every
	 * scanout layout). */
	uda_capability_set_list *render_sets;
	uint32_t *render_set_of;
	bool has_main_device;
	dev_t main_device;
	struct table_entry *table;
	uint32_t table_count, table_capacity;
	int table_fd; /* sealed memfd of the table */
	struct tranche render;
	uint32_t display_count;
	struct tranche *scanout; /* one per display; present where any layout is shared */
};


/* The table index of a pair, or UINT32_MAX. */
uint32_t feedback_find_entry(const struct uda_wayland_feedback *feedback, uint32_t format, uint64_t modifier);

#endif
