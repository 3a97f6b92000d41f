#ifndef UDA_ALLOCATION_METADATA_PRIVATE_H
#define UDA_ALLOCATION_METADATA_PRIVATE_H

#include "capability_set_list.h"

bool handle_type_known(uda_handle_type type);

/* Checks metadata against its format, its size and the set's constraints
 * (not the handle type, which exports choose later).
 * `fail` is the result to report: UDA_ERROR_INVALID_ARGUMENT for a caller's
 * metadata, UDA_ERROR_INVALID_DATA for received bytes. */
uda_result allocation_metadata_check(uda_context *ctx, uda_result fail, const uda_allocation_metadata *metadata,
                                     const uda_capability_set_list *list, const struct uda_capability_set_record *set);

#endif
