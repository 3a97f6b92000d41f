/* A compositor's file, copied (wayland_file.h). */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wayland_file.h"

void *wayland_file_copy(int fd, uint32_t size, uint32_t max_size)
{
	struct stat st;
	if (fd < 0 || size == 0 || size > max_size || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    st.st_size < (off_t)size)
		return NULL;
	uint8_t *bytes = malloc(size);
	if (!bytes)
		return NULL;
	/* The file may shrink while it is read: a short read is a refusal. */
	for (uint32_t done = 0; done < size;) {
		const ssize_t n = pread(fd, bytes + done, size - done, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(bytes);
			return NULL;
		}
		done += (uint32_t)n;
	}
	return bytes;
}
