/* List (de)serialization pieces shared with the allocation metadata, which
 * embeds a one-set list. */
#ifndef UDA_CAPABILITY_SET_LIST_SERIALIZE_H
#define UDA_CAPABILITY_SET_LIST_SERIALIZE_H

#include "byte_io.h"
#include <uda/uda.h>

/* Whether sets [first, first + count) fit the wire format's fields (a
 * set's capability count is a u16, and the reader takes at most
 * UDA_MAX_CAPABILITIES_PER_SET); sets an error naming the first set that
 * does not. Lists built by the core always fit; this keeps the writer
 * from ever emitting what the reader refuses. */
uda_result capability_set_list_check_writable(const uda_capability_set_list *list, uint32_t first, uint32_t count);

/* Writes sets [first, first + count) as a complete list blob. */
void capability_set_list_write(struct byte_writer *w, const uda_capability_set_list *list, uint32_t first,
                               uint32_t count);

/* Reads one list blob at r's offset and advances past it. */
uda_result capability_set_list_read(uda_context *ctx, struct byte_reader *r, uda_capability_set_list **out_list);

#endif
