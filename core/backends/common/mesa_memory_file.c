/*
 * lavapipe and llvmpipe export memory as a memfd that begins with a header
 * of their own, {size_t size, size_t offset, 16-byte driver hash}, and
 * import one by mapping `size` bytes of it and taking the memory from
 * `offset` on, as the header says (Mesa's os_import_memory_fd). Whoever
 * sent the fd wrote that header: a size past the file's end, or an offset
 * past the size, makes the importing process fault when the driver reads
 * (a compositor taken down by a client's buffer). The core has sealed the
 * file against shrinking by the time a backend imports it, so the size
 * read here stays true.
 */
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd_stat.h"
#include "mesa_memory_file.h"

const char *mesa_memory_file_problem(int fd, uint64_t size, char *why, size_t why_size)
{
	struct {
		size_t size, offset;
	} header;
	struct stat st;
	if (uda_fd_stat(fd, &st) != 0 || !S_ISREG(st.st_mode))
		return "the driver's opaque fds are files, and this one is not";
	if (pread(fd, &header, sizeof(header), 0) != (ssize_t)sizeof(header))
		return "the file is too short for the driver's header";
	if (header.size > (uint64_t)st.st_size || header.offset > header.size || header.size - header.offset < size) {
		snprintf(why, why_size,
		         "the file of %" PRId64 " bytes says it maps %zu bytes from %zu on, for %" PRIu64 " bytes of memory",
		         (int64_t)st.st_size, header.size, header.offset, size);
		return why;
	}
	return NULL;
}
