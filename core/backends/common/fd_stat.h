/*
 * fstat() for the import paths, shared by the core and the backends that
 * look at an fd's file.
 */
#ifndef UDA_FD_STAT_H
#define UDA_FD_STAT_H

#include <fcntl.h>
#include <sys/stat.h>

/* glibc's fstat is fstatat(fd, "", AT_EMPTY_PATH) with the "" in libc's
 * shared read-only mapping, which the kernel must read; on the 2-core CI
 * VM that read, right after a driver's mmap/munmap, cost 1.5-7 us per
 * import (runs differ by where the mapping lands) against a steady 1.5 us
 * with the empty path kept on the caller's stack, as here. An import
 * stats its fd twice on a software driver (the core, then the Mesa
 * memory-file check), which made the difference a benchmark row's. */
static inline int uda_fd_stat(int fd, struct stat *st)
{
	char empty_path[1] = {0};
	return fstatat(fd, empty_path, st, AT_EMPTY_PATH);
}

#endif
