// Contexts: creation options, per-thread error messages, logging.
#include <chrono>
#include <future>
#include <thread>

#include <pthread.h>

#include "set_spec.hpp"
#include "test_device.h"

using namespace uda_test;

namespace
{

TEST(Context, CreateWithDefaultsAndDestroyNull)
{
	uda_context *ctx = nullptr;
	ASSERT_EQ(uda_context_create(nullptr, &ctx), UDA_SUCCESS);
	EXPECT_STREQ(uda_context_get_error(ctx), "");
	uda_context_destroy(ctx);
	uda_context_destroy(nullptr);
	EXPECT_STREQ(uda_context_get_error(nullptr), "");
}

TEST(Context, CreateRejectsBadInfo)
{
	uda_context *ctx = nullptr;
	EXPECT_EQ(uda_context_create(nullptr, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	uda_context_create_info info = {};
	EXPECT_EQ(uda_context_create(&info, &ctx), UDA_ERROR_INVALID_ARGUMENT); // type 0
	info.type = UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO;
	int extension = 0;
	info.next = &extension;
	EXPECT_EQ(uda_context_create(&info, &ctx), UDA_ERROR_INVALID_ARGUMENT);
	info.next = nullptr;
	info.log_level = static_cast<uda_log_level>(17);
	EXPECT_EQ(uda_context_create(&info, &ctx), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(ctx, nullptr);
}

struct LogRecord {
	std::vector<std::pair<uda_log_level, std::string>> lines;
};

void record_log(uda_log_level level, const char *message, void *user)
{
	static_cast<LogRecord *>(user)->lines.emplace_back(level, message);
}

TEST(Context, ErrorsAreLoggedAtDebugLevelOnly)
{
	LogRecord quiet, verbose;
	for (auto [level, record] : {std::pair{UDA_LOG_WARNING, &quiet}, std::pair{UDA_LOG_DEBUG, &verbose}}) {
		uda_context_create_info info = bare_context_info();
		info.log_level = level;
		info.log_callback = record_log;
		info.log_user_data = record;
		uda_context *ctx = nullptr;
		ASSERT_EQ(uda_context_create(&info, &ctx), UDA_SUCCESS);
		uda_capability_set_builder *b = nullptr;
		ASSERT_EQ(uda_capability_set_builder_create(ctx, &b), UDA_SUCCESS);
		EXPECT_EQ(uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_MAX_PITCH, 0),
		          UDA_ERROR_INVALID_ARGUMENT);
		uda_capability_set_builder_destroy(b);
		uda_context_destroy(ctx);
	}
	EXPECT_TRUE(quiet.lines.empty());
	ASSERT_EQ(verbose.lines.size(), 1u);
	EXPECT_EQ(verbose.lines[0].first, UDA_LOG_DEBUG);
	EXPECT_NE(verbose.lines[0].second.find("UDA_ERROR_INVALID_ARGUMENT"), std::string::npos);
}

// A log callback that calls back into the context. Whether the core still
// holds a lock of its own is checked from a second thread with a timeout,
// so a violation fails the test instead of hanging it; only then is the
// context re-entered from the callback's own thread.
struct ReentrantLog {
	uda_context *ctx = nullptr;
	std::vector<std::string> blocked; // messages logged while a lock was held
	std::vector<uint32_t> counts;     // device counts seen from inside the callback
	// Checks still blocked when their callback returned; waited for once
	// the core has let go of its lock.
	std::vector<std::future<uda_result>> pending;
};

void reentrant_log(uda_log_level level, const char *message, void *user)
{
	auto *log = static_cast<ReentrantLog *>(user);
	uint32_t count = 0;
	auto other = std::async(std::launch::async, [&] {
		uint32_t n = 0;
		return uda_context_enumerate_devices(log->ctx, &n, nullptr);
	});
	if (other.wait_for(std::chrono::seconds(2)) != std::future_status::ready) {
		log->blocked.push_back(message);
		log->pending.push_back(std::move(other));
		return;
	}
	EXPECT_EQ(other.get(), UDA_SUCCESS);
	EXPECT_EQ(uda_context_enumerate_devices(log->ctx, &count, nullptr), UDA_SUCCESS);
	log->counts.push_back(count);
}

TEST(Context, LogCallbackMayCallBackIntoTheContext)
{
	ReentrantLog log;
	uda_context_create_info info = bare_context_info();
	info.log_level = UDA_LOG_DEBUG;
	info.log_callback = reentrant_log;
	info.log_user_data = &log;
	ASSERT_EQ(uda_context_create(&info, &log.ctx), UDA_SUCCESS);
	ContextPtr ctx(log.ctx);

	ASSERT_EQ(test_device_add(ctx.get(), "first", 1, make_list(ctx.get(), {}).release(), nullptr, nullptr),
	          UDA_SUCCESS);
	// The duplicate UUID is found while the device array is locked.
	EXPECT_EQ(test_device_add(ctx.get(), "second", 1, make_list(ctx.get(), {}).release(), nullptr, nullptr),
	          UDA_ERROR_EXISTS);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("already registered through OTHER by first"), std::string::npos);
	log.pending.clear();
	EXPECT_TRUE(log.blocked.empty()) << "logged under a lock: " << log.blocked[0];
	// "first registered" and the EXISTS error both reached the callback.
	EXPECT_EQ(log.counts, (std::vector<uint32_t>{1, 1}));
}

TEST(Context, ErrorMessagesArePerThread)
{
	ContextPtr ctx = make_context();
	uda_capability_set_builder *b = nullptr;
	ASSERT_EQ(uda_capability_set_builder_create(ctx.get(), &b), UDA_SUCCESS);
	EXPECT_EQ(uda_capability_set_builder_set_constraint(b, UDA_CONSTRAINT_ADDRESS_ALIGNMENT, 3),
	          UDA_ERROR_INVALID_ARGUMENT);
	std::string main_message = uda_context_get_error(ctx.get());
	EXPECT_NE(main_message.find("power of two"), std::string::npos);

	std::string other_before, other_after;
	std::thread worker([&] {
		other_before = uda_context_get_error(ctx.get());
		uda_capability_set_list *list = nullptr;
		EXPECT_EQ(uda_capability_set_list_create(ctx.get(), &list), UDA_SUCCESS);
		uint32_t n;
		EXPECT_EQ(uda_capability_set_list_get_capability_count(list, 5, &n), UDA_ERROR_INVALID_ARGUMENT);
		other_after = uda_context_get_error(ctx.get());
		uda_capability_set_list_destroy(list);
	});
	worker.join();
	EXPECT_EQ(other_before, "");
	EXPECT_NE(other_after.find("out of range"), std::string::npos);
	EXPECT_EQ(std::string(uda_context_get_error(ctx.get())), main_message);
	uda_capability_set_builder_destroy(b);
}

TEST(Context, ANewThreadWithARecycledIdStartsWithoutAMessage)
{
	ContextPtr ctx = make_context();
	pthread_t first_id{};
	std::thread first([&] {
		first_id = pthread_self();
		uint32_t n;
		uda_capability_set_list *list = nullptr;
		ASSERT_EQ(uda_capability_set_list_create(ctx.get(), &list), UDA_SUCCESS);
		EXPECT_EQ(uda_capability_set_list_get_capability_count(list, 5, &n), UDA_ERROR_INVALID_ARGUMENT);
		uda_capability_set_list_destroy(list);
	});
	first.join();
	// The system reuses the ID of a joined thread for a later one (glibc
	// reuses its cached stack and descriptor at once); look for that.
	bool recycled = false;
	std::string inherited;
	for (int attempt = 0; attempt < 100 && !recycled; attempt++) {
		std::thread later([&] {
			if (pthread_equal(pthread_self(), first_id)) {
				recycled = true;
				inherited = uda_context_get_error(ctx.get());
			}
		});
		later.join();
	}
	if (!recycled)
		GTEST_SKIP() << "no thread ID was reused";
	EXPECT_EQ(inherited, "");
}

TEST(Context, ManyThreadsFailingConcurrently)
{
	ContextPtr ctx = make_context();
	std::vector<std::thread> threads;
	std::atomic<int> mismatches{0};
	for (int t = 0; t < 48; t++) {
		threads.emplace_back([&, t] {
			uda_capability_set_list *list = nullptr;
			ASSERT_EQ(uda_capability_set_list_create(ctx.get(), &list), UDA_SUCCESS);
			for (int i = 0; i < 200; i++) {
				uint32_t n;
				uint32_t index = static_cast<uint32_t>(t * 1000 + i);
				EXPECT_EQ(uda_capability_set_list_get_capability_count(list, index, &n),
				          UDA_ERROR_INVALID_ARGUMENT);
				// Each thread sees exactly its own latest message.
				std::string expected = "set index " + std::to_string(index) + " out of range";
				std::string got = uda_context_get_error(ctx.get());
				if (got.rfind(expected, 0) != 0)
					mismatches++;
			}
			uda_capability_set_list_destroy(list);
		});
	}
	for (auto &t : threads)
		t.join();
	EXPECT_EQ(mismatches.load(), 0);
}

TEST(Context, ResultNames)
{
	EXPECT_STREQ(uda_result_to_string(UDA_SUCCESS), "UDA_SUCCESS");
	EXPECT_STREQ(uda_result_to_string(UDA_ERROR_INVALID_DATA), "UDA_ERROR_INVALID_DATA");
	EXPECT_STREQ(uda_result_to_string(static_cast<uda_result>(-1000)), "UDA_ERROR_UNKNOWN");
	EXPECT_STREQ(uda_constraint_to_string(UDA_CONSTRAINT_MIN_PITCH), "MIN_PITCH");
	EXPECT_STREQ(uda_constraint_to_string(UDA_CONSTRAINT_MIN_SIZE), "MIN_SIZE");
	EXPECT_EQ(uda_constraint_to_string(UDA_CONSTRAINT_COUNT), nullptr);
	EXPECT_EQ(uda_constraint_to_string(static_cast<uda_constraint>(-1)), nullptr);
}

} // namespace
