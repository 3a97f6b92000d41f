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

/* uda_allocation_metadata_deserialize, and the colour information when
 * the bytes carry some (*out_has_color). */
uda_result allocation_metadata_read(uda_context *ctx, const void *data, size_t size,
                                    uda_allocation_metadata *out_metadata, uda_capability_set_list **out_set_list,
                                    uda_color_info *out_color, bool *out_has_color);

/* A uda_color_info that can be serialized: known enums, chromaticities
 * within 0..1, next NULL. */
uda_result color_info_check(uda_context *ctx, uda_result fail, const uda_color_info *color);

/* The uda_color_info chained to metadata->next, NULL if none; INVALID for
 * any other struct there (the caller reports it). */
const uda_color_info *metadata_color_info(const uda_allocation_metadata *metadata, bool *out_invalid);

#endif
