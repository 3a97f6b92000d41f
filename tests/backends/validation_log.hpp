// The Khronos validation layer's messages, collected from a context's log
// (UDA_VULKAN_VALIDATION=1 routes them there): a test fails on any.
#pragma once

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <uda/uda.h>

namespace uda_test
{

struct ValidationLog {
	std::mutex lock;
	std::vector<std::string> problems;
};

// A uda_log_callback; user data is the ValidationLog.
inline void collect_problems(uda_log_level level, const char *message, void *user)
{
	auto *log = static_cast<ValidationLog *>(user);
	if (level <= UDA_LOG_WARNING && std::strstr(message, "validation")) {
		std::lock_guard<std::mutex> guard(log->lock);
		log->problems.emplace_back(message);
	}
}

} // namespace uda_test
