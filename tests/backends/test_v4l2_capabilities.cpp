// The capability sets of a V4L2 node (core/backends/v4l2/v4l2_capabilities.c)
// from its VIDIOC_TRY_FMT answers, through fakes that answer as the recorded
// drivers did; what they negotiate with a GPU; and drivers that lie.
#include <drm_fourcc.h>
#include <gtest/gtest.h>
#include <memory>

#include "set_spec.hpp"
#include "v4l2_capabilities.h"
#include "v4l2_fake_driver.hpp"

using namespace uda_test;

namespace
{

struct Probed {
	FakeDriver driver;
	std::unique_ptr<v4l2_probed_node> node = std::make_unique<v4l2_probed_node>();
	v4l2_io io{};

	explicit Probed(FakeDriver d) : driver(std::move(d))
	{
		io = {FakeDriver::ioctl, &driver};
		char why[256] = "";
		EXPECT_TRUE(v4l2_probe_node(&io, 3, node.get(), why, sizeof(why))) << why;
	}

	uda_result sets(uda_context *ctx, uint32_t width, uint32_t height, uint32_t format, ListPtr &out,
	                bool cpu_access = false)
	{
		uda_capability_set_list *list = nullptr;
		uda_result r = v4l2_capability_sets(ctx, &io, 3, &node->capture, width, height, format, cpu_access, 0, &list);
		out.reset(list);
		return r;
	}
};

uint64_t constraint(const uda_capability_set_list *list, uint32_t set, uda_constraint c)
{
	bool present = false;
	uint64_t value = 0;
	EXPECT_EQ(uda_capability_set_list_get_constraint(list, set, c, &present, &value), UDA_SUCCESS);
	return present ? value : 0;
}

uint64_t modifier_of(const uda_capability_set_list *list, uint32_t set)
{
	uint64_t modifier = DRM_FORMAT_MOD_INVALID;
	EXPECT_EQ(uda_capability_set_list_get_modifier(list, set, &modifier), UDA_SUCCESS);
	return modifier;
}

} // namespace

TEST(V4l2Capabilities, AUvcCameraOffersYuyvAtItsPitchForTheSizesItLists)
{
	const ContextPtr ctx = make_context();
	Probed camera(uvc_camera());
	ListPtr sets;
	ASSERT_EQ(camera.sets(ctx.get(), 640, 480, DRM_FORMAT_YUYV, sets), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	uint32_t count = 0;
	uda_capability_set_list_get_count(sets.get(), &count);
	ASSERT_EQ(count, 1u);
	EXPECT_EQ(modifier_of(sets.get(), 0), DRM_FORMAT_MOD_LINEAR);
	EXPECT_EQ(constraint(sets.get(), 0, UDA_CONSTRAINT_PITCH_ALIGNMENT), 1280u);
	EXPECT_EQ(constraint(sets.get(), 0, UDA_CONSTRAINT_MAX_PITCH), 1280u);
	// 800x600 is not a size the camera lists; NV12 not a format it has.
	EXPECT_EQ(camera.sets(ctx.get(), 800, 600, DRM_FORMAT_YUYV, sets), UDA_ERROR_INCOMPATIBLE);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("not one the driver lists"), std::string::npos);
	EXPECT_EQ(camera.sets(ctx.get(), 640, 480, DRM_FORMAT_NV12, sets), UDA_ERROR_INCOMPATIBLE);
}

// A decoder's NV12 at its 16-byte pitch meets a GPU that samples rows at
// 256-byte pitches: at 1280 wide (a multiple) they agree, at 1920 (1920 =
// 7.5 x 256) the decoder's pitch is the only one it takes, and nothing is
// common: the guess a player makes today, answered.
TEST(V4l2Capabilities, ADecodersPitchMeetsAGpusAlignmentOrSaysWhyNot)
{
	const ContextPtr ctx = make_context();
	Probed decoder(hantro_decoder());
	const ListPtr gpu = make_list(ctx.get(), {{{layout(DRM_FORMAT_MOD_LINEAR, 0),
	                                            common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF)},
	                                           {{UDA_CONSTRAINT_PITCH_ALIGNMENT, 256}}}});
	for (const auto &[width, agree] : {std::pair<uint32_t, bool>{1280, true}, {1920, false}}) {
		ListPtr sets;
		ASSERT_EQ(decoder.sets(ctx.get(), width, 720, DRM_FORMAT_NV12, sets), UDA_SUCCESS)
		        << uda_context_get_error(ctx.get());
		EXPECT_EQ(constraint(sets.get(), 0, UDA_CONSTRAINT_MAX_PITCH), width);
		uda_capability_set_list *common_sets = nullptr;
		ASSERT_EQ(uda_capability_set_list_intersect(sets.get(), gpu.get(), &common_sets), UDA_SUCCESS);
		uint32_t count = 0;
		uda_capability_set_list_get_count(common_sets, &count);
		EXPECT_EQ(count, agree ? 1u : 0u) << width;
		uda_capability_set_list_destroy(common_sets);
	}
}

TEST(V4l2Capabilities, TiledAndColumnFormatsCarryTheirModifiers)
{
	const ContextPtr ctx = make_context();
	FakeDriver g2 = hantro_decoder(); // hantro G2 answers VT12 (tests/backends/v4l2-fixtures/hantro-imx8mq-g2-all.txt)
	g2.capture[0].code = "VT12";
	g2.capture[0].size_extra = 144; // 48x48: sizeimage 3600, not 3456
	Probed tiled(g2);
	ListPtr sets;
	ASSERT_EQ(tiled.sets(ctx.get(), 48, 48, DRM_FORMAT_NV12, sets), UDA_SUCCESS) << uda_context_get_error(ctx.get());
	EXPECT_EQ(modifier_of(sets.get(), 0), DRM_FORMAT_MOD_VIVANTE_TILED);
	EXPECT_EQ(constraint(sets.get(), 0, UDA_CONSTRAINT_MAX_PITCH), 48u)
	        << "the modifier lays out the tiles, the driver's bytesperline their rows";
	EXPECT_EQ(tiled.sets(ctx.get(), 48, 48, DRM_FORMAT_NV12, sets, true), UDA_ERROR_INCOMPATIBLE)
	        << "the CPU reads rows, not tiles";
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("tiled layout"), std::string::npos);
	// NC12 (rpivid): bytesperline is the column height. Where its planes
	// lie in the columns is not written yet, so no set is offered that
	// could never be allocated or imported, and the refusal says so.
	FakeDriver rpivid = hantro_decoder();
	rpivid.capture[0].code = "NC12";
	Probed columns(rpivid);
	EXPECT_EQ(columns.sets(ctx.get(), 1920, 1088, DRM_FORMAT_NV12, sets), UDA_ERROR_INCOMPATIBLE);
	EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find("SAND128 columns"), std::string::npos)
	        << uda_context_get_error(ctx.get());
}

TEST(V4l2Capabilities, ADriverThatLiesIsRefusedWithWhatItSaid)
{
	const ContextPtr ctx = make_context();
	const struct {
		FakeFormat::Lie lie;
		const char *reason;
	} lies[] = {
		{FakeFormat::ShortPitch, "bytesperline is below the row"},
		{FakeFormat::ShortSize, "sizeimage is below its planes"},
		{FakeFormat::OtherSize, "the driver answers NV12 at 1296x720 instead"},
	};
	for (const auto &l : lies) {
		FakeDriver driver = hantro_decoder();
		driver.capture[0].lie = l.lie;
		Probed decoder(driver);
		ListPtr sets;
		EXPECT_EQ(decoder.sets(ctx.get(), 1280, 720, DRM_FORMAT_NV12, sets), UDA_ERROR_INCOMPATIBLE);
		EXPECT_NE(std::string(uda_context_get_error(ctx.get())).find(l.reason), std::string::npos)
		        << uda_context_get_error(ctx.get());
		EXPECT_EQ(sets, nullptr);
	}
}
