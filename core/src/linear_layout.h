/* Pitch-linear plane layout under a set's constraints, shared by the
 * negotiation's assertion filter and by backends that allocate linear
 * memory. */
#ifndef UDA_LINEAR_LAYOUT_H
#define UDA_LINEAR_LAYOUT_H

#include "constraints.h"

/* Fills size, plane_count and planes; false if the constraints cannot hold
 * the image (max pitch, max size, or an overflow). */
bool linear_layout_compute(const uda_format_info *format, uint32_t width, uint32_t height,
                           const struct uda_constraint_values *constraints, uda_allocation_metadata *out);

#endif
