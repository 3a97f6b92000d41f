// Counts the calling process's open file descriptors, so tests can prove
// an error path closed everything it opened.
#pragma once

#include <dirent.h>

namespace uda_test
{

inline int open_fd_count()
{
	DIR *dir = opendir("/proc/self/fd");
	if (!dir)
		return -1;
	int count = 0;
	while (const dirent *entry = readdir(dir)) {
		if (entry->d_name[0] != '.')
			count++;
	}
	closedir(dir);
	return count - 1; // the directory stream's own descriptor
}

} // namespace uda_test
