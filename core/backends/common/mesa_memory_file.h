/*
 * Mesa's software drivers' opaque memory: what their import reads of it.
 */
#ifndef UDA_MESA_MEMORY_FILE_H
#define UDA_MESA_MEMORY_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Whether the opaque fd `fd`, from a Mesa software driver (lavapipe,
 * llvmpipe), holds `size` bytes of memory as its driver will map them:
 * NULL, or why not (written into `why`). */
const char *mesa_memory_file_problem(int fd, uint64_t size, char *why, size_t why_size);

#endif
