// Counts the calling process's open file descriptors, so tests can prove
// an error path closed everything it opened.
#pragma once

#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <string>
#include <unistd.h>

namespace uda_test
{

// NVIDIA's proprietary driver opens its control and device nodes
// (/dev/nvidiactl, /dev/nvidia0, /dev/nvidia-uvm, ...) on first use and
// keeps them for the life of the process, measured on 580.159 (see
// docs/hardware.md). uda never opens those nodes itself, so they are the
// driver's, not a leak of the code under test.
inline bool is_driver_resident_fd(const char *name)
{
	const std::string link = std::string("/proc/self/fd/") + name;
	char target[256];
	const ssize_t length = readlink(link.c_str(), target, sizeof(target) - 1);
	if (length <= 0)
		return false;
	target[length] = '\0';
	return std::strncmp(target, "/dev/nvidia", 11) == 0;
}

// What each open descriptor points at, for the message of a failed count.
inline std::string describe_open_fds()
{
	std::string out;
	DIR *dir = opendir("/proc/self/fd");
	if (!dir)
		return out;
	const int own = dirfd(dir);
	while (const dirent *entry = readdir(dir)) {
		if (entry->d_name[0] == '.' || std::atoi(entry->d_name) == own)
			continue;
		const std::string link = std::string("/proc/self/fd/") + entry->d_name;
		char target[256] = {};
		if (readlink(link.c_str(), target, sizeof(target) - 1) > 0)
			out += std::string(entry->d_name) + " -> " + target + "\n";
	}
	closedir(dir);
	return out;
}

inline int open_fd_count()
{
	DIR *dir = opendir("/proc/self/fd");
	if (!dir)
		return -1;
	const int own = dirfd(dir);
	int count = 0;
	while (const dirent *entry = readdir(dir)) {
		if (entry->d_name[0] == '.' || std::atoi(entry->d_name) == own)
			continue;
		if (!is_driver_resident_fd(entry->d_name))
			count++;
	}
	closedir(dir);
	return count;
}

} // namespace uda_test
