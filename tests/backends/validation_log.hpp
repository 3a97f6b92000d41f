// The Khronos validation layer's messages, collected from a context's log
// (UDA_VULKAN_VALIDATION=1 routes them there): a test fails on any.
#pragma once

#include <cstdlib>
#include <cstring>
#include <gtest/gtest.h>
#include <mutex>
#include <string>
#include <vector>

#include <uda/uda.h>

#include "set_spec.hpp"

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

// A context over whatever backends the environment names, with the
// Vulkan backend under the validation layer and its messages in `log`
// (`validate` false: without the layer, its log kept all the same).
inline ContextPtr create_validated_context(ValidationLog &log, bool validate = true)
{
	setenv("UDA_VULKAN_VALIDATION", validate ? "1" : "0", 1);
	uda_context_create_info info = {};
	info.type = UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO;
	info.log_level = UDA_LOG_WARNING;
	info.log_callback = collect_problems;
	info.log_user_data = &log;
	uda_context *raw = nullptr;
	EXPECT_EQ(uda_context_create(&info, &raw), UDA_SUCCESS);
	return ContextPtr(raw);
}

} // namespace uda_test
