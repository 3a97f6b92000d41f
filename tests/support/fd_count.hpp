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

// Calls visit(fd name, link target) for each open descriptor but the
// directory stream's own; false if /proc/self/fd cannot be read.
template <typename Visit> bool for_each_open_fd(Visit visit)
{
	DIR *dir = opendir("/proc/self/fd");
	if (!dir)
		return false;
	const int own = dirfd(dir);
	while (const dirent *entry = readdir(dir)) {
		if (entry->d_name[0] == '.' || std::atoi(entry->d_name) == own)
			continue;
		const std::string link = std::string("/proc/self/fd/") + entry->d_name;
		char target[256] = {};
		if (readlink(link.c_str(), target, sizeof(target) - 1) < 0)
			target[0] = '\0';
		visit(entry->d_name, target);
	}
	closedir(dir);
	return true;
}

// Descriptors a driver opens on first use and keeps while its screen or
// device lives, which for a GL display uda cannot terminate (no
// EGL_KHR_display_reference) is the life of the process:
// - NVIDIA's control and device nodes (/dev/nvidiactl, /dev/nvidia0,
//   /dev/nvidia-uvm, ...), measured on 580.159 (docs/hardware.md);
// - llvmpipe's per-screen memory heap, a memfd named "allocation fd"
//   (seen with Mesa 25.0, not 22.3; docs/drivers.md). The memory
//   llvmpipe and lavapipe export is a different memfd, "llvmpipe memory
//   fd", and stays counted.
// uda opens neither, so they are the driver's, not a leak of the code
// under test.
inline bool is_driver_resident_target(const char *target)
{
	return std::strncmp(target, "/dev/nvidia", 11) == 0 ||
	       std::strncmp(target, "/memfd:allocation fd", 20) == 0;
}

// What each open descriptor points at, for the message of a failed count.
inline std::string describe_open_fds()
{
	std::string out;
	for_each_open_fd([&](const char *name, const char *target) {
		if (target[0])
			out += std::string(name) + " -> " + target + "\n";
	});
	return out;
}

inline int open_fd_count()
{
	int count = 0;
	const bool read = for_each_open_fd([&](const char *, const char *target) {
		if (!is_driver_resident_target(target))
			count++;
	});
	return read ? count : -1;
}

} // namespace uda_test
