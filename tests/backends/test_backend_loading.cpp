// Backend modules: manifests found through UDA_BACKEND_PATH, and every way a
// manifest or a module can be broken skipped with a logged reason.
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "backend_env.hpp"
#include "fd_count.hpp"
#include "set_spec.hpp"

using namespace uda_test;

namespace
{

struct Log {
	std::vector<std::string> lines;
	bool has(const std::string &a, const std::string &b) const
	{
		for (const auto &line : lines) {
			if (line.find(a) != std::string::npos && line.find(b) != std::string::npos)
				return true;
		}
		return false;
	}
};

void record(uda_log_level, const char *message, void *user)
{
	static_cast<Log *>(user)->lines.emplace_back(message);
}

std::vector<uda_device *> devices_of(uda_context *ctx)
{
	uint32_t count = 0;
	EXPECT_EQ(uda_context_enumerate_devices(ctx, &count, nullptr), UDA_SUCCESS);
	std::vector<uda_device *> devices(count);
	EXPECT_EQ(uda_context_enumerate_devices(ctx, &count, devices.data()), UDA_SUCCESS);
	return devices;
}

std::vector<std::string> backend_names(uda_context *ctx)
{
	std::vector<std::string> names;
	for (uda_device *device : devices_of(ctx)) {
		uda_device_info info = {};
		info.type = UDA_STRUCTURE_TYPE_DEVICE_INFO;
		EXPECT_EQ(uda_device_get_info(device, &info), UDA_SUCCESS);
		names.emplace_back(info.backend_name);
	}
	return names;
}

std::string manifest(const std::string &name, const std::string &library, int version = 1)
{
	return "{\"file_format_version\": \"1.0.0\", \"backend\": {\"name\": \"" + name + "\", \"library_path\": \"" +
	       library + "\", \"interface_version\": " + std::to_string(version) + "}}";
}

class BackendLoading : public ::testing::Test
{
protected:
	std::string folder;

	void SetUp() override
	{
		char pattern[] = "/tmp/uda-loader-XXXXXX";
		ASSERT_NE(mkdtemp(pattern), nullptr);
		folder = pattern;
	}
	void TearDown() override
	{
		std::string command = "rm -rf '" + folder + "'";
		ASSERT_EQ(system(command.c_str()), 0);
	}
	void write(const std::string &file, const std::string &text)
	{
		std::ofstream(folder + "/" + file) << text;
	}
	ContextPtr create(Log &log)
	{
		uda_context_create_info info = {};
		info.type = UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO;
		info.log_level = UDA_LOG_DEBUG;
		info.log_callback = record;
		info.log_user_data = &log;
		uda_context *ctx = nullptr;
		EXPECT_EQ(uda_context_create(&info, &ctx), UDA_SUCCESS);
		return ContextPtr(ctx);
	}
};

TEST_F(BackendLoading, FindsTheSystemBackendOfTheBuildTree)
{
	use_build_tree_backends();
	Log log;
	ContextPtr ctx = create(log);
	std::vector<std::string> names = backend_names(ctx.get());
	EXPECT_NE(std::find(names.begin(), names.end(), "system"), names.end());
	EXPECT_TRUE(log.has("backend system loaded", "libuda-backend-system.so"));
}

TEST_F(BackendLoading, NoBackendsFlagLoadsNothing)
{
	use_build_tree_backends();
	ContextPtr ctx = make_context(); // UDA_CONTEXT_CREATE_NO_BACKENDS
	EXPECT_TRUE(devices_of(ctx.get()).empty());
}

TEST_F(BackendLoading, SkipsEveryBrokenManifestAndModuleWithAReason)
{
	write("00-not-json.json", "{ \"file_format_version\": ");
	write("01-trailing.json", manifest("trailing", FAKE_MODULE_GOOD) + " garbage");
	write("02-no-backend.json", "{\"file_format_version\": \"1.0.0\"}");
	write("03-bad-name.json", manifest("Bad Name", FAKE_MODULE_GOOD));
	write("04-missing-module.json", manifest("missing", "/nonexistent/libuda-backend-missing.so"));
	write("05-future-interface.json", manifest("future", FAKE_MODULE_GOOD, 2));
	write("06-wrong-version.json", manifest("fake-wrong-version", FAKE_MODULE_WRONG_VERSION));
	write("07-no-entry.json", manifest("fake-no-entry", FAKE_MODULE_NO_ENTRY));
	write("08-failing-load.json", manifest("fake-failing-load", FAKE_MODULE_FAILING_LOAD));
	write("09-refuses.json", manifest("fake-refuses", FAKE_MODULE_REFUSES));
	write("10-good.json", manifest("fake-good", FAKE_MODULE_GOOD));
	write("11-shadowed.json", manifest("fake-good", FAKE_MODULE_GOOD));
	write("12-format-2.json", "{\"file_format_version\": \"2.0.0\", \"backend\": {}}");
	write("13-huge.json", std::string(100 * 1024, ' '));
	write("14-name-mismatch.json", manifest("not-fake-good", FAKE_MODULE_GOOD));
	write("not-a-manifest.txt", manifest("ignored", FAKE_MODULE_GOOD));
	ASSERT_EQ(mkdir((folder + "/15-folder.json").c_str(), 0755), 0);
	use_backend_path(folder + ":/nonexistent-folder");

	const int fds_before = open_fd_count();
	Log log;
	{
		ContextPtr ctx = create(log);
		ASSERT_TRUE(ctx);
		// Only the good module's device; the failing module's device,
		// registered before it gave up, is gone with it.
		EXPECT_EQ(backend_names(ctx.get()), std::vector<std::string>{"fake-good"});
	}
	EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();

	EXPECT_TRUE(log.has("00-not-json.json", "the JSON ends early"));
	// json-c's strict mode stops at the garbage itself.
	EXPECT_TRUE(log.has("01-trailing.json", "not JSON"));
	EXPECT_TRUE(log.has("02-no-backend.json", "no \"backend\" object"));
	EXPECT_TRUE(log.has("03-bad-name.json", "backend name may hold only"));
	EXPECT_TRUE(log.has("libuda-backend-missing.so", "cannot load"));
	EXPECT_TRUE(log.has("05-future-interface.json", "interface version 2"));
	EXPECT_TRUE(log.has("fake-wrong-version", "answered with another interface version"));
	EXPECT_TRUE(log.has("fake-no-entry", "no uda_backend_get_interface entry point"));
	EXPECT_TRUE(log.has("fake-failing-load", "fake backend gives up after one device"));
	EXPECT_TRUE(log.has("fake-refuses", "refused this library's interface version"));
	EXPECT_TRUE(log.has("11-shadowed.json", "shadowed by an earlier manifest"));
	EXPECT_TRUE(log.has("12-format-2.json", "reads 1.x.y"));
	EXPECT_TRUE(log.has("13-huge.json", "unreadable or too large"));
	EXPECT_TRUE(log.has("not-fake-good", "another name"));
	EXPECT_TRUE(log.has("15-folder.json", "unreadable or too large"));
	EXPECT_FALSE(log.has("ignored", ""));
	if (HasFailure()) {
		for (const auto &line : log.lines)
			ADD_FAILURE() << "log: " << line;
	}
}

TEST_F(BackendLoading, FirstFolderOfTheSearchPathWins)
{
	write("fake.json", manifest("fake-good", FAKE_MODULE_GOOD));
	char second_pattern[] = "/tmp/uda-loader-XXXXXX";
	ASSERT_NE(mkdtemp(second_pattern), nullptr);
	std::string second = second_pattern;
	std::ofstream(second + "/fake.json") << manifest("fake-good", "/nonexistent/libshadowed.so");
	use_backend_path(folder + ":" + second);
	Log log;
	{
		ContextPtr ctx = create(log);
		EXPECT_EQ(backend_names(ctx.get()), std::vector<std::string>{"fake-good"});
	}
	EXPECT_TRUE(log.has(second + "/fake.json", "shadowed"));
	EXPECT_FALSE(log.has("libshadowed.so", "cannot load"));
	std::string command = "rm -rf '" + second + "'";
	ASSERT_EQ(system(command.c_str()), 0);
}

} // namespace
