// The platform modules as a driver sees them, loaded here with dlopen and
// a fake EGLExtDriver: the load contract, the export table, and the
// exports' answers about displays that are not the platform's. A real
// driver (NVIDIA's libEGL) calls queryString and getInternalHandle with
// every platform's displays; those calls must answer "not mine" without
// setting an EGL error, or an unrelated eglQueryString of another
// platform's display would fail. Displays of real devices are the
// EGL suites' (test-egl-platform).
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <cstring>
#include <dlfcn.h>
#include <eglexternalplatform.h>
#include <gtest/gtest.h>
#include <set>
#include <string>
#include <vector>

#include <EGL/eglext_uda.h>

namespace
{

struct FakeDriver {
	std::vector<EGLint> errors;
	std::set<std::string> missing; // names getProcAddress does not know
} fake;

void fake_entry_point()
{
	ADD_FAILURE() << "the platform called the driver's EGL without being asked for a display";
}

void *fake_get_proc_address(const char *name)
{
	if (!name || fake.missing.count(name))
		return nullptr;
	if (std::strncmp(name, "egl", 3) != 0 && std::strncmp(name, "gl", 2) != 0)
		return nullptr; // a name no driver has (the host's private probe)
	return reinterpret_cast<void *>(&fake_entry_point);
}

void fake_set_error(EGLint error, EGLint, const char *)
{
	fake.errors.push_back(error);
}

void *fake_debug_message(EGLint, const char *)
{
	return nullptr;
}

EGLExtDriver fake_driver(int major, int minor)
{
	EGLExtDriver driver = {};
	driver.getProcAddress = fake_get_proc_address;
	driver.setError = fake_set_error;
	driver.debugMessage = fake_debug_message;
	driver.major = major;
	driver.minor = minor;
	return driver;
}

class PlatformModule : public ::testing::TestWithParam<const char *>
{
protected:
	void SetUp() override
	{
		fake = FakeDriver{};
		module = dlopen(GetParam(), RTLD_NOW | RTLD_LOCAL);
		ASSERT_NE(module, nullptr) << dlerror();
		load = reinterpret_cast<PEGLEXTFNLOADEGLEXTERNALPLATFORM>(dlsym(module, "loadEGLExternalPlatform"));
		ASSERT_NE(load, nullptr);
	}

	void TearDown() override
	{
		if (module)
			dlclose(module);
	}

	// Loads as a driver of interface major.minor would; false if refused.
	bool load_platform(EGLExtPlatform *out, int major = 1, int minor = 1)
	{
		EGLExtDriver driver = fake_driver(major, minor);
		*out = EGLExtPlatform{};
		return load(major, minor, &driver, out) == EGL_TRUE;
	}

	EGLenum expected_enum() const
	{
		return std::strstr(GetParam(), "platform-gbm") ? EGL_PLATFORM_GBM_KHR : EGL_PLATFORM_UDA;
	}

	void *module = nullptr;
	PEGLEXTFNLOADEGLEXTERNALPLATFORM load = nullptr;
};

TEST_P(PlatformModule, LoadsForEveryOneDotDriverAndFillsTheTable)
{
	for (int minor : {0, 1, 2, 3}) {
		SCOPED_TRACE(minor);
		EGLExtPlatform platform;
		ASSERT_TRUE(load_platform(&platform, 1, minor));
		EXPECT_EQ(platform.version.major, 1);
		EXPECT_EQ(platform.platform, expected_enum());
		const EGLExtPlatformExports &exports = platform.exports;
		EXPECT_NE(exports.unloadEGLExternalPlatform, nullptr);
		EXPECT_NE(exports.getHookAddress, nullptr);
		EXPECT_NE(exports.isValidNativeDisplay, nullptr);
		EXPECT_NE(exports.getPlatformDisplay, nullptr);
		EXPECT_NE(exports.queryString, nullptr);
		EXPECT_NE(exports.getInternalHandle, nullptr);
		// As NVIDIA's own platforms have it: labels stay the driver's.
		EXPECT_EQ(exports.getObjectLabel, nullptr);
		EXPECT_TRUE(fake.errors.empty());
		EXPECT_EQ(exports.unloadEGLExternalPlatform(platform.data), EGL_TRUE);
	}
}

TEST_P(PlatformModule, RefusesDriversItCannotWorkWith)
{
	EGLExtPlatform platform{};
	EXPECT_FALSE(load_platform(&platform, 2, 0)) << "another major version";
	EXPECT_FALSE(load_platform(&platform, 0, 9));

	EXPECT_EQ(load(1, 1, nullptr, &platform), EGL_FALSE);
	EGLExtDriver driver = fake_driver(1, 1);
	EXPECT_EQ(load(1, 1, &driver, nullptr), EGL_FALSE);
	driver.setError = nullptr;
	EXPECT_EQ(load(1, 1, &driver, &platform), EGL_FALSE) << "no way to report errors";

	fake.missing = {"eglInitialize"};
	EXPECT_FALSE(load_platform(&platform)) << "an EGL entry point it needs is missing";
	fake.missing.clear();

	// Nothing of the refusals stays behind.
	ASSERT_TRUE(load_platform(&platform));
	EXPECT_EQ(platform.exports.unloadEGLExternalPlatform(platform.data), EGL_TRUE);
}

TEST_P(PlatformModule, OneLoadAtATime)
{
	EGLExtPlatform first, second;
	ASSERT_TRUE(load_platform(&first));
	EXPECT_FALSE(load_platform(&second)) << "hooks find their platform through the module";
	EXPECT_EQ(first.exports.unloadEGLExternalPlatform(first.data), EGL_TRUE);
	ASSERT_TRUE(load_platform(&second)) << "free again once unloaded";
	EXPECT_EQ(second.exports.unloadEGLExternalPlatform(second.data), EGL_TRUE);
}

TEST_P(PlatformModule, HooksTheWindowSystemEntryPointsOnly)
{
	EGLExtPlatform platform;
	ASSERT_TRUE(load_platform(&platform));
	for (const char *name :
	     {"eglCreatePlatformWindowSurface", "eglCreatePlatformPixmapSurface", "eglSwapBuffers", "eglInitialize",
	      "eglTerminate", "eglDestroySurface", "eglCreateImage", "eglChooseConfig", "eglSwapInterval"})
		EXPECT_NE(platform.exports.getHookAddress(platform.data, name), nullptr) << name;
	for (const char *name : {"eglGetDisplay", "eglCreateContext", "eglGetError", "eglNotAFunction", ""})
		EXPECT_EQ(platform.exports.getHookAddress(platform.data, name), nullptr) << name;
	EXPECT_EQ(platform.exports.getHookAddress(platform.data, nullptr), nullptr);
	EXPECT_TRUE(fake.errors.empty());
	platform.exports.unloadEGLExternalPlatform(platform.data);
}

TEST_P(PlatformModule, ClientExtensionsNameThePlatform)
{
	EGLExtPlatform platform;
	ASSERT_TRUE(load_platform(&platform));
	const char *client =
	    platform.exports.queryString(platform.data, EGL_NO_DISPLAY, EGL_EXT_PLATFORM_PLATFORM_CLIENT_EXTENSIONS);
	ASSERT_NE(client, nullptr);
	EXPECT_NE(std::strstr(client, "EGL_UDA_platform_uda"), nullptr) << client;
	EXPECT_TRUE(fake.errors.empty());
	platform.exports.unloadEGLExternalPlatform(platform.data);
}

TEST_P(PlatformModule, OtherPlatformsDisplaysAreNoError)
{
	EGLExtPlatform platform;
	ASSERT_TRUE(load_platform(&platform));
	// Native objects are at least a pointer wide: platforms may read the
	// first word of one to tell its kind (libgbm's convention).
	uint64_t foreign_object[4] = {};
	EGLDisplay foreign = foreign_object;
	void *surface = foreign_object + 1;

	const char *display_extensions =
	    platform.exports.queryString(platform.data, foreign, EGL_EXT_PLATFORM_DISPLAY_EXTENSIONS);
	EXPECT_TRUE(!display_extensions || !display_extensions[0]) << display_extensions;
	const char *no_display_extensions =
	    platform.exports.queryString(platform.data, EGL_NO_DISPLAY, EGL_EXT_PLATFORM_DISPLAY_EXTENSIONS);
	EXPECT_TRUE(!no_display_extensions || !no_display_extensions[0]) << no_display_extensions;
	EXPECT_EQ(platform.exports.getInternalHandle(EGL_NO_DISPLAY, EGL_OBJECT_DISPLAY_KHR, foreign), nullptr);
	EXPECT_EQ(platform.exports.getInternalHandle(foreign, EGL_OBJECT_SURFACE_KHR, surface), surface)
	    << "a surface of another platform passes unchanged";
	EXPECT_EQ(platform.exports.getInternalHandle(foreign, EGL_OBJECT_CONTEXT_KHR, surface), surface);
	EXPECT_EQ(platform.exports.isValidNativeDisplay(platform.data, foreign_object), EGL_FALSE);
	EXPECT_TRUE(fake.errors.empty()) << "first error set: 0x" << std::hex << fake.errors.front();
	platform.exports.unloadEGLExternalPlatform(platform.data);
}

TEST_P(PlatformModule, DisplaysItCannotServeAreRefusedWithTheirReason)
{
	EGLExtPlatform platform;
	ASSERT_TRUE(load_platform(&platform));
	uint64_t not_a_device[4] = {};
	const EGLenum own = expected_enum();

	EXPECT_EQ(platform.exports.getPlatformDisplay(platform.data, EGL_PLATFORM_X11_KHR, not_a_device, nullptr),
	          EGL_NO_DISPLAY);
	ASSERT_EQ(fake.errors.size(), 1u);
	EXPECT_EQ(fake.errors.back(), EGL_BAD_PARAMETER) << "another platform's enum";

	EXPECT_EQ(platform.exports.getPlatformDisplay(platform.data, own, nullptr, nullptr), EGL_NO_DISPLAY);
	ASSERT_EQ(fake.errors.size(), 2u);
	EXPECT_EQ(fake.errors.back(), EGL_BAD_PARAMETER) << "a NULL native display";

	const EGLAttrib attribs[] = {EGL_WIDTH, 1, EGL_NONE};
	EXPECT_EQ(platform.exports.getPlatformDisplay(platform.data, own, not_a_device, attribs), EGL_NO_DISPLAY);
	ASSERT_EQ(fake.errors.size(), 3u);
	EXPECT_EQ(fake.errors.back(), EGL_BAD_ATTRIBUTE);

	// Anything but a uda_device is refused, not followed: here memory
	// whose words would lead nowhere if read as a device's pointers.
	uint64_t not_a_uda_device[8];
	std::memset(not_a_uda_device, 0x11, sizeof(not_a_uda_device));
	EXPECT_EQ(platform.exports.getPlatformDisplay(platform.data, EGL_PLATFORM_UDA, not_a_uda_device, nullptr),
	          EGL_NO_DISPLAY);
	ASSERT_EQ(fake.errors.size(), 4u);
	EXPECT_EQ(fake.errors.back(), EGL_BAD_PARAMETER);
	fake.errors.pop_back();

	if (own == EGL_PLATFORM_GBM_KHR) {
		// A gbm_device of another backend (here: libgbm never loaded
		// uda's) is the next platform's to serve, not an error.
		EXPECT_EQ(platform.exports.getPlatformDisplay(platform.data, own, not_a_device, nullptr), EGL_NO_DISPLAY);
		EXPECT_EQ(fake.errors.size(), 3u);
	}
	platform.exports.unloadEGLExternalPlatform(platform.data);
}

// With UDA_LOG set, a module leaving the process says whether the driver
// unloaded the platform before: the account a hardware run reads when a
// driver drops the module unasked.
TEST_P(PlatformModule, LeavingTheProcessIsReported)
{
	EGLExtPlatform platform;
	ASSERT_TRUE(load_platform(&platform));
	platform.exports.unloadEGLExternalPlatform(platform.data);

	const char *old_log = std::getenv("UDA_LOG");
	std::string saved = old_log ? old_log : "";
	setenv("UDA_LOG", "debug", 1);
	testing::internal::CaptureStderr();
	dlclose(module);
	module = nullptr;
	std::string log = testing::internal::GetCapturedStderr();
	if (old_log)
		setenv("UDA_LOG", saved.c_str(), 1);
	else
		unsetenv("UDA_LOG");
	EXPECT_NE(log.find("module leaving the process: 1 load(s), 1 unloadEGLExternalPlatform call(s)"),
	          std::string::npos)
	    << log;
}

INSTANTIATE_TEST_SUITE_P(Modules, PlatformModule,
                         ::testing::Values(UDA_TEST_EGL_PLATFORM_MODULE, UDA_TEST_EGL_GBM_PLATFORM_MODULE),
                         [](const ::testing::TestParamInfo<const char *> &param_info) {
	                         return std::strstr(param_info.param, "platform-gbm") ? std::string("Gbm")
	                                                                          : std::string("Uda");
                         });

} // namespace
