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
// directory stream's own; false if /proc/self/fd cannot be read. A
// descriptor another thread closes between readdir and readlink is gone,
// not open, and is skipped (it used to be counted with an empty target,
// and so could not even be named in the failure message).
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
			continue;
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
//
// Also skipped: Mesa's on-disk shader cache (<cache dir>/mesa_shader_cache/
// on Mesa 22.3). A shader compiled for the first time (llvmpipe's
// scissored glClear draws a quad) is written to the cache by a Mesa
// thread of its own after the call that compiled it returned, into a
// "<key>.tmp" file it then renames and closes; nothing in GL or EGL waits
// for that thread (glFinish does not). That descriptor can be open while
// the test thread counts, or not, by timing alone: under valgrind (where
// llvmpipe's cache keys differ from a native run's, so a first run there
// compiles and writes afresh), VulkanGl.GlWritesVulkanReadsEveryPixel counted
// "4 -> .../mesa_shader_cache/74/2b5b...a9b2.tmp" at its end and failed
// one count over (strace: the writer thread opened it 145 ms before the
// count and renamed it 179 ms after). uda never opens the cache.
inline bool is_driver_resident_target(const char *target)
{
	return std::strncmp(target, "/dev/nvidia", 11) == 0 || std::strncmp(target, "/memfd:allocation fd", 20) == 0 ||
	       std::strstr(target, "/mesa_shader_cache") != nullptr;
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
