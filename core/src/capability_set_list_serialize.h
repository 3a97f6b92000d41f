/* List (de)serialization pieces shared with the allocation metadata, which
 * embeds a one-set list. */
#ifndef UDA_CAPABILITY_SET_LIST_SERIALIZE_H
#define UDA_CAPABILITY_SET_LIST_SERIALIZE_H

#include "byte_io.h"
#include <uda/uda.h>

/* Writes sets [first, first + count) as a complete list blob. */
void capability_set_list_write(struct byte_writer *w, const uda_capability_set_list *list, uint32_t first,
                               uint32_t count);

/* Reads one list blob at r's offset and advances past it. */
uda_result capability_set_list_read(uda_context *ctx, struct byte_reader *r, uda_capability_set_list **out_list);

#endif
