// linux-dmabuf feedback as capability sets (the Wayland module's
// wayland_feedback.c), without a compositor: feedback recorded from real
// compositors by wayland-info (tests/wayland/feedback-fixtures), and
// negotiations of a renderer against it.
#include <gtest/gtest.h>

#include <drm_fourcc.h>
#include <dirent.h>
#include <algorithm>
#include <fstream>
#include <functional>
#include <sys/mman.h>
#include <unistd.h>
#include <regex>
#include <string>
#include <sys/sysmacros.h>
#include <vector>

#include "set_spec.hpp"
#include "test_device.h"

extern "C" {
#include "wayland_feedback.h"
}

using namespace uda_test;

namespace
{

// wayland-info's zwp_linux_dmabuf_v1 section: "main device: 0xE280",
// "tranche", "target device: 0xE280", "flags: scanout" or "flags: none",
// and one "0x34325241 = 'AR24'; 0x0000000000000000 = LINEAR" line per pair.
// wayland-utils prints tranches last received first (it prepends them to
// a list), so they are turned back into the compositor's order here. A
// version 3 section has pairs and no tranche: one tranche of them all.
bool parse_wayland_info(const std::string &path, feedback &out, std::string &error)
{
	std::ifstream in(path);
	if (!in) {
		error = "cannot read " + path;
		return false;
	}
	feedback_init(&out);
	static const std::regex main_device(R"(main device:\s*0x([0-9a-fA-F]+))");
	static const std::regex target_device(R"(target device:\s*0x([0-9a-fA-F]+))");
	static const std::regex flags(R"(flags:\s*(.*))");
	static const std::regex pair(R"(0x([0-9a-fA-F]{8}) = '[^']*'; 0x([0-9a-fA-F]{16}))");
	feedback_tranche *tranche = nullptr;
	std::string line;
	std::smatch m;
	while (std::getline(in, line)) {
		if (line.empty() || line[0] == '#')
			continue;
		if (std::regex_search(line, m, main_device)) {
			out.has_main_device = true;
			out.main_device = static_cast<dev_t>(std::stoull(m[1], nullptr, 16));
		} else if (line.find("tranche") != std::string::npos && line.find("target") == std::string::npos) {
			tranche = feedback_add_tranche(&out);
			if (!tranche) {
				error = "too many tranches";
				return false;
			}
		} else if (tranche && std::regex_search(line, m, target_device)) {
			tranche->target_device = static_cast<dev_t>(std::stoull(m[1], nullptr, 16));
		} else if (tranche && std::regex_search(line, m, flags)) {
			tranche->scanout = m[1].str().find("scanout") != std::string::npos;
		} else if (std::regex_search(line, m, pair)) {
			if (!tranche && !(tranche = feedback_add_tranche(&out))) {
				error = "too many tranches";
				return false;
			}
			if (!feedback_tranche_add(tranche, static_cast<uint32_t>(std::stoul(m[1], nullptr, 16)),
			                          std::stoull(m[2], nullptr, 16))) {
				error = "tranche full";
				return false;
			}
		}
	}
	if (out.tranche_count == 0) {
		error = path + " holds no tranche";
		return false;
	}
	std::reverse(out.tranches, out.tranches + out.tranche_count);
	return true;
}

std::vector<std::string> fixtures()
{
	std::vector<std::string> files;
	if (DIR *dir = opendir(UDA_TEST_FEEDBACK_FIXTURE_DIR)) {
		while (const dirent *entry = readdir(dir)) {
			std::string name = entry->d_name;
			if (name.size() > 4 && name.compare(name.size() - 4, 4, ".txt") == 0)
				files.push_back(std::string(UDA_TEST_FEEDBACK_FIXTURE_DIR) + "/" + name);
		}
		closedir(dir);
	}
	return files;
}

class WaylandFeedback : public ::testing::Test
{
      protected:
	void SetUp() override
	{
		const uda_context_create_info info = {UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO, nullptr,
		                                      UDA_CONTEXT_CREATE_NO_BACKENDS};
		ASSERT_EQ(uda_context_create(&info, &ctx), UDA_SUCCESS);
		feedback_init(&fb);
	}
	void TearDown() override
	{
		feedback_clear(&fb);
		uda_context_destroy(ctx);
	}

	std::vector<SetSpec> sets_for(uint32_t format)
	{
		uda_capability_set_list *list = nullptr;
		if (feedback_capability_sets(&fb, ctx, format, &list) != UDA_SUCCESS)
			return {};
		std::vector<SetSpec> out = read_list(list);
		uda_capability_set_list_destroy(list);
		return out;
	}

	uda_context *ctx = nullptr;
	feedback fb;
};

uint64_t layout_of(const SetSpec &set)
{
	for (const Cap &cap : set.caps) {
		if (cap.name == UDA_CAPABILITY_LAYOUT && cap.vendor == UDA_VENDOR_NONE) {
			uint64_t modifier = 0;
			for (size_t i = 0; i < cap.payload.size(); i++)
				modifier |= uint64_t(cap.payload[i]) << (8 * i);
			return modifier;
		}
	}
	return DRM_FORMAT_MOD_INVALID;
}

// Every recorded compositor: one set per explicit modifier of a format,
// in the order the compositor lists them across its tranches, each a
// required DMA-BUF; the implicit modifier gives none.
TEST_F(WaylandFeedback, RecordedCompositorsGiveOneDmaBufSetPerExplicitModifier)
{
	const std::vector<std::string> files = fixtures();
	ASSERT_FALSE(files.empty()) << "no recorded feedback in " << UDA_TEST_FEEDBACK_FIXTURE_DIR;
	for (const std::string &file : files) {
		SCOPED_TRACE(file);
		std::string error;
		feedback_clear(&fb);
		ASSERT_TRUE(parse_wayland_info(file, fb, error)) << error;
		bool any = false;
		for (uint32_t format : {DRM_FORMAT_ARGB8888, DRM_FORMAT_XRGB8888, DRM_FORMAT_ABGR8888, DRM_FORMAT_XBGR8888}) {
			std::vector<uint64_t> expected;
			for (uint32_t t = 0; t < fb.tranche_count; t++) {
				for (uint32_t p = 0; p < fb.tranches[t].pair_count; p++) {
					const feedback_pair &pair = fb.tranches[t].pairs[p];
					if (pair.format == format && pair.modifier != DRM_FORMAT_MOD_INVALID &&
					    std::find(expected.begin(), expected.end(), pair.modifier) == expected.end())
						expected.push_back(pair.modifier);
				}
			}
			std::vector<SetSpec> sets = sets_for(format);
			ASSERT_EQ(sets.size(), expected.size()) << "format 0x" << std::hex << format;
			for (size_t i = 0; i < sets.size(); i++) {
				EXPECT_EQ(layout_of(sets[i]), expected[i]);
				EXPECT_NE(std::find(sets[i].caps.begin(), sets[i].caps.end(),
				                    common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF,
				                           UDA_CAPABILITY_FLAG_REQUIRED)),
				          sets[i].caps.end());
			}
			any = any || !sets.empty();
		}
		EXPECT_TRUE(any) << "no 8-bit RGB format with an explicit modifier";
	}
}

// What the tests below negotiate against: a GPU's render tranche of
// three modifiers and, when the surface could go on a plane, a scanout
// tranche first with the one modifier the display reads. (Constructed
// for the tests; the recorded ones above come from real compositors.)
constexpr uint64_t TILED = I915_FORMAT_MOD_Y_TILED, COMPRESSED = I915_FORMAT_MOD_Y_TILED_CCS,
                   X_TILED = I915_FORMAT_MOD_X_TILED;

void render_tranche(feedback &fb)
{
	feedback_tranche *t = feedback_add_tranche(&fb);
	t->target_device = makedev(226, 128);
	for (uint64_t modifier : {COMPRESSED, TILED, X_TILED, uint64_t(DRM_FORMAT_MOD_LINEAR), uint64_t(DRM_FORMAT_MOD_INVALID)})
		feedback_tranche_add(t, DRM_FORMAT_XRGB8888, modifier);
}

void scanout_tranche(feedback &fb)
{
	feedback_tranche *t = feedback_add_tranche(&fb);
	t->target_device = makedev(226, 0);
	t->scanout = true;
	feedback_tranche_add(t, DRM_FORMAT_XRGB8888, X_TILED);
}

// A renderer that can write every one of those layouts as a DMA-BUF,
// best first as its driver would rank them.
uda_device *add_renderer(uda_context *ctx)
{
	std::vector<SetSpec> specs;
	for (uint64_t modifier : {COMPRESSED, TILED, X_TILED, uint64_t(DRM_FORMAT_MOD_LINEAR)})
		specs.push_back(SetSpec{{layout(modifier, 0), common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF)}});
	uda_device *device = nullptr;
	struct test_device *test = nullptr;
	EXPECT_EQ(test_device_add(ctx, "renderer", 7, make_list(ctx, specs).release(), &device, &test), UDA_SUCCESS);
	return device;
}

// The first set the renderer and the compositor agree on, negotiated as
// the platform does (feedback_negotiation: its sets, its DMA-BUF filter
// and ranking, its GPU sampling and its display scanning out where uda
// knows them); its layout, and the set itself in *out_set.
uint64_t negotiated_first(uda_context *ctx, uda_device *renderer, const feedback &fb, SetSpec *out_set = nullptr)
{
	feedback_negotiation negotiation;
	EXPECT_EQ(feedback_negotiation_init(&negotiation, &fb, ctx, DRM_FORMAT_XRGB8888), UDA_SUCCESS);
	const uda_usage_atom render = {UDA_VENDOR_NONE, UDA_USAGE_RENDER_TARGET, 0, nullptr};
	const uda_usage_atom sample = {UDA_VENDOR_NONE, UDA_USAGE_SAMPLED, 0, nullptr};
	const uda_usage_atom scanout = {UDA_VENDOR_NONE, UDA_USAGE_SCANOUT, 0, nullptr};
	const uda_usage render_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &render};
	const uda_usage sample_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &sample};
	const uda_usage scanout_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 1, &scanout};
	std::vector<uda_device_usage> devices = {{renderer, &render_usage}};
	if (negotiation.reader)
		devices.push_back({negotiation.reader, &sample_usage});
	if (negotiation.display)
		devices.push_back({negotiation.display, &scanout_usage});
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 256, 256, DRM_FORMAT_XRGB8888, 1};
	const uda_negotiation_info info = {UDA_STRUCTURE_TYPE_NEGOTIATION_INFO, &negotiation.peer, &assertion,
	                                   static_cast<uint32_t>(devices.size()), devices.data()};
	uda_capability_set_list *result = nullptr;
	uint64_t modifier = DRM_FORMAT_MOD_INVALID;
	if (uda_negotiate(ctx, &info, &result) == UDA_SUCCESS) {
		uda_capability_set_list_get_modifier(result, 0, &modifier);
		if (out_set)
			*out_set = read_set(result, 0);
	}
	uda_capability_set_list_destroy(result);
	feedback_negotiation_finish(&negotiation);
	return modifier;
}

TEST_F(WaylandFeedback, TheRendererTakesTheCompositorsBestCommonLayout)
{
	uda_device *renderer = add_renderer(ctx);
	render_tranche(fb);
	EXPECT_EQ(negotiated_first(ctx, renderer, fb), COMPRESSED);
}

// The scanout tranche appears (the surface can go on a plane): the layout
// the display reads comes first; it goes again, and the render tranche's
// best is back.
TEST_F(WaylandFeedback, AScanoutTrancheLeadsTheNegotiationWhileItLasts)
{
	uda_device *renderer = add_renderer(ctx);
	render_tranche(fb);
	feedback with_plane;
	feedback_init(&with_plane);
	scanout_tranche(with_plane);
	render_tranche(with_plane);
	EXPECT_FALSE(feedback_equal(&fb, &with_plane));
	EXPECT_TRUE(feedback_has_scanout(&with_plane, DRM_FORMAT_XRGB8888));
	EXPECT_FALSE(feedback_has_scanout(&fb, DRM_FORMAT_XRGB8888));
	EXPECT_EQ(negotiated_first(ctx, renderer, with_plane), X_TILED);
	EXPECT_EQ(negotiated_first(ctx, renderer, fb), COMPRESSED);
	feedback_clear(&with_plane);
}

// The compositor's devices among uda's, by the dev_t its feedback names:
// the main device is its GPU (a reader, sampling); a scanout tranche's
// target is its display, for the formats that tranche lists.
TEST_F(WaylandFeedback, TheCompositorsDevicesAreFoundByTheirNodes)
{
	const std::vector<SetSpec> any = {SetSpec{{layout(DRM_FORMAT_MOD_LINEAR, 0)}}};
	uda_device *gpu = nullptr, *display = nullptr, *other = nullptr;
	const test_device_node gpu_node = {UDA_DEVICE_API_VULKAN, 226, 128, true};
	const test_device_node display_node = {UDA_DEVICE_API_DRM, 226, 0, true};
	const test_device_node other_node = {UDA_DEVICE_API_GL, 226, 129, true};
	ASSERT_EQ(test_device_add_on_node(ctx, "GPU", 1, make_list(ctx, any).release(), &gpu_node, &gpu), UDA_SUCCESS);
	ASSERT_EQ(test_device_add_on_node(ctx, "display", 2, make_list(ctx, any).release(), &display_node, &display),
	          UDA_SUCCESS);
	ASSERT_EQ(test_device_add_on_node(ctx, "another GPU", 3, make_list(ctx, any).release(), &other_node, &other),
	          UDA_SUCCESS);
	scanout_tranche(fb);
	render_tranche(fb);
	fb.has_main_device = true;
	fb.main_device = makedev(226, 128);
	uda_device *reader = nullptr, *scanning = nullptr;
	feedback_devices(&fb, ctx, DRM_FORMAT_XRGB8888, &reader, &scanning);
	EXPECT_EQ(reader, gpu);
	EXPECT_EQ(scanning, display);
	feedback_devices(&fb, ctx, DRM_FORMAT_ARGB8888, &reader, &scanning);
	EXPECT_EQ(reader, gpu);
	EXPECT_EQ(scanning, nullptr) << "the scanout tranche lists no ARGB8888";
	// A node uda does not know, and a display named as a main device.
	fb.main_device = makedev(226, 130);
	feedback_devices(&fb, ctx, DRM_FORMAT_XRGB8888, &reader, &scanning);
	EXPECT_EQ(reader, nullptr);
	fb.main_device = makedev(226, 0);
	feedback_devices(&fb, ctx, DRM_FORMAT_XRGB8888, &reader, &scanning);
	EXPECT_EQ(reader, nullptr) << "a display samples nothing";
}

// While the scanout tranche lasts, the display negotiates too: what it
// needs beyond a layout (here rows of 512 bytes) is in the buffers the
// renderer makes, which the layout alone would not have carried.
TEST_F(WaylandFeedback, TheDisplaysConstraintsReachTheBuffersWhileItScansOut)
{
	uda_device *renderer = add_renderer(ctx);
	SetSpec scanout_set{{layout(X_TILED, 0), common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF)}};
	scanout_set.constraints[UDA_CONSTRAINT_PITCH_ALIGNMENT] = 512;
	uda_device *display = nullptr;
	const test_device_node display_node = {UDA_DEVICE_API_DRM, 226, 0, true};
	ASSERT_EQ(test_device_add_on_node(ctx, "display", 2, make_list(ctx, {scanout_set}).release(), &display_node,
	                                  &display),
	          UDA_SUCCESS);
	feedback with_plane;
	feedback_init(&with_plane);
	scanout_tranche(with_plane);
	render_tranche(with_plane);
	SetSpec agreed;
	EXPECT_EQ(negotiated_first(ctx, renderer, with_plane, &agreed), X_TILED);
	EXPECT_EQ(agreed.constraints[UDA_CONSTRAINT_PITCH_ALIGNMENT], 512u);
	// Back to composition: the display is out, and so is its constraint.
	render_tranche(fb);
	SetSpec composited;
	EXPECT_EQ(negotiated_first(ctx, renderer, fb, &composited), COMPRESSED);
	EXPECT_EQ(composited.constraints.count(UDA_CONSTRAINT_PITCH_ALIGNMENT), 0u);
	feedback_clear(&with_plane);
}

// Nothing in common with the renderer (a compositor that takes only a
// layout the GPU cannot write): no set, so the window falls back to
// wl_shm.
TEST_F(WaylandFeedback, NothingInCommonNegotiatesNothing)
{
	uda_device *renderer = add_renderer(ctx);
	feedback_tranche *t = feedback_add_tranche(&fb);
	feedback_tranche_add(t, DRM_FORMAT_XRGB8888, AMD_FMT_MOD | AMD_FMT_MOD_SET(TILE_VERSION, AMD_FMT_MOD_TILE_VER_GFX9));
	EXPECT_EQ(negotiated_first(ctx, renderer, fb), DRM_FORMAT_MOD_INVALID);
}

TEST_F(WaylandFeedback, OnlyTheImplicitModifierGivesNoSet)
{
	feedback_tranche *t = feedback_add_tranche(&fb);
	feedback_tranche_add(t, DRM_FORMAT_XRGB8888, DRM_FORMAT_MOD_INVALID);
	uda_capability_set_list *list = nullptr;
	EXPECT_EQ(feedback_capability_sets(&fb, ctx, DRM_FORMAT_XRGB8888, &list), UDA_ERROR_NOT_FOUND);
	EXPECT_EQ(list, nullptr);
}

// The bounds a compositor cannot push past.
TEST_F(WaylandFeedback, TranchesAndPairsAreBounded)
{
	for (uint32_t i = 0; i < FEEDBACK_MAX_TRANCHES; i++)
		ASSERT_NE(feedback_add_tranche(&fb), nullptr);
	EXPECT_EQ(feedback_add_tranche(&fb), nullptr);
	feedback_tranche *t = &fb.tranches[0];
	for (uint32_t i = 0; i < FEEDBACK_MAX_PAIRS_PER_TRANCHE; i++)
		ASSERT_TRUE(feedback_tranche_add(t, DRM_FORMAT_XRGB8888, i));
	EXPECT_FALSE(feedback_tranche_add(t, DRM_FORMAT_XRGB8888, FEEDBACK_MAX_PAIRS_PER_TRANCHE));
	EXPECT_EQ(t->pair_count, FEEDBACK_MAX_PAIRS_PER_TRANCHE);
}

// ---- The events as a compositor sends them --------------------------

// A format table in a memfd, as compositors make it.
int table_fd(const std::vector<feedback_table_entry> &entries, size_t file_size)
{
	int fd = memfd_create("format-table", MFD_CLOEXEC);
	EXPECT_GE(fd, 0);
	EXPECT_EQ(ftruncate(fd, static_cast<off_t>(file_size)), 0);
	const size_t bytes = std::min(file_size, entries.size() * sizeof(feedback_table_entry));
	EXPECT_EQ(pwrite(fd, entries.data(), bytes, 0), static_cast<ssize_t>(bytes));
	return fd;
}

class FeedbackEvents : public ::testing::Test
{
      protected:
	void SetUp() override { feedback_receiver_init(&receiver); }
	void TearDown() override { feedback_receiver_finish(&receiver); }

	// A whole feedback: table, main device, one tranche of `indices`.
	void send(const std::vector<feedback_table_entry> &entries, const std::vector<uint16_t> &indices,
	          uint32_t flags = 0, size_t table_bytes = 0, size_t index_bytes = SIZE_MAX)
	{
		const size_t size = entries.size() * sizeof(feedback_table_entry);
		feedback_receiver_format_table(&receiver, table_fd(entries, table_bytes ? table_bytes : size),
		                               static_cast<uint32_t>(size));
		dev_t main = makedev(226, 128);
		feedback_receiver_main_device(&receiver, &main, sizeof(main));
		feedback_receiver_tranche_target_device(&receiver, &main, sizeof(main));
		feedback_receiver_tranche_formats(&receiver, indices.data(),
		                                  index_bytes == SIZE_MAX ? indices.size() * sizeof(uint16_t) : index_bytes);
		feedback_receiver_tranche_flags(&receiver, flags);
		feedback_receiver_tranche_done(&receiver);
		feedback_receiver_done(&receiver);
	}

	feedback_receiver receiver;
	const std::vector<feedback_table_entry> table = {{DRM_FORMAT_XRGB8888, 0, DRM_FORMAT_MOD_LINEAR},
	                                                 {DRM_FORMAT_XRGB8888, 0, I915_FORMAT_MOD_X_TILED},
	                                                 {DRM_FORMAT_ARGB8888, 0, DRM_FORMAT_MOD_LINEAR}};
};

TEST_F(FeedbackEvents, AGoodFeedbackBecomesCurrent)
{
	send(table, {1, 0, 2}, 1 /* scanout */);
	ASSERT_TRUE(receiver.received);
	EXPECT_EQ(receiver.generation, 1u);
	const feedback &fb = receiver.current;
	EXPECT_TRUE(fb.has_main_device);
	EXPECT_EQ(fb.main_device, makedev(226, 128));
	ASSERT_EQ(fb.tranche_count, 1u);
	EXPECT_TRUE(fb.tranches[0].scanout);
	ASSERT_EQ(fb.tranches[0].pair_count, 3u);
	EXPECT_EQ(fb.tranches[0].pairs[0].modifier, I915_FORMAT_MOD_X_TILED);
	EXPECT_EQ(fb.tranches[0].pairs[2].format, DRM_FORMAT_ARGB8888);
}

// Each way a compositor can get it wrong drops that feedback and keeps
// the last good one.
TEST_F(FeedbackEvents, BrokenFeedbackIsDroppedAndTheLastGoodOneStays)
{
	send(table, {0});
	ASSERT_EQ(receiver.generation, 1u);
	uint16_t good = 0; // the index of the last good feedback's one pair
	struct Case {
		const char *what;
		std::function<void()> send_it;
	} cases[] = {
		{"an index past the table", [&] { send(table, {0, 3}); }},
		{"a table file shorter than its size", [&] { send(table, {0}, 0, 16); }},
		{"an odd number of index bytes", [&] { send(table, {0, 1}, 0, 0, 3); }},
		{"a table size that is no number of entries",
		 [&] {
			 feedback_receiver_format_table(&receiver, table_fd(table, 48), 40);
			 feedback_receiver_tranche_formats(&receiver, nullptr, 0);
			 feedback_receiver_tranche_done(&receiver);
			 feedback_receiver_done(&receiver);
		 }},
		{"a dev_t of another size",
		 [&] {
			 uint16_t small = 1;
			 feedback_receiver_main_device(&receiver, &small, sizeof(small));
			 feedback_receiver_done(&receiver);
		 }},
		{"done in the middle of a tranche",
		 [&] {
			 feedback_receiver_tranche_flags(&receiver, 0);
			 feedback_receiver_done(&receiver);
		 }},
	};
	for (Case &c : cases) {
		SCOPED_TRACE(c.what);
		const uint64_t before = receiver.generation;
		const uint32_t pairs_before = receiver.received ? receiver.current.tranches[0].pair_count : 0;
		c.send_it();
		EXPECT_EQ(receiver.generation, before) << "a broken feedback was taken";
		if (receiver.received) {
			EXPECT_EQ(receiver.current.tranches[0].pair_count, pairs_before);
		}
		// And a good one after it (another than the last) is taken.
		good = good ? 0 : 1;
		send(table, {good});
		EXPECT_EQ(receiver.generation, before + 1);
	}
}

// Compositors send the surface's feedback again on every plane decision,
// most often unchanged: the same feedback again is no change (the
// generation stays, so the window's buffers are not negotiated anew).
TEST_F(FeedbackEvents, TheSameFeedbackAgainIsNoChange)
{
	send(table, {1, 0});
	ASSERT_EQ(receiver.generation, 1u);
	send(table, {1, 0});
	EXPECT_EQ(receiver.generation, 1u);
	send(table, {1, 0}, 1 /* scanout */);
	EXPECT_EQ(receiver.generation, 2u) << "the scanout flag is a change";
	EXPECT_TRUE(receiver.current.tranches[0].scanout);
	send(table, {0, 1}, 1);
	EXPECT_EQ(receiver.generation, 3u) << "another order is a change";
	EXPECT_EQ(receiver.current.tranches[0].pairs[0].modifier, DRM_FORMAT_MOD_LINEAR);
}

// A compositor that repeats indices costs nothing: each pair is kept once,
// and a whole table's worth of repeats is read in linear time.
TEST_F(FeedbackEvents, RepeatedIndicesAreKeptOnce)
{
	std::vector<uint16_t> indices;
	for (int i = 0; i < 30000; i++)
		indices.push_back(static_cast<uint16_t>(i % 3));
	send(table, indices);
	ASSERT_TRUE(receiver.received);
	EXPECT_EQ(receiver.current.tranches[0].pair_count, 3u);
}

// The compositor keeps the table's file and may shrink it after sending
// it (nothing makes it seal the file): the receiver reads what it was
// sent, never past the file's new end (a mapping would raise SIGBUS in
// the client).
TEST_F(FeedbackEvents, ATableShrunkAfterItWasSentIsReadAsSent)
{
	const size_t size = table.size() * sizeof(feedback_table_entry);
	const int compositor_fd = table_fd(table, size);
	feedback_receiver_format_table(&receiver, dup(compositor_fd), static_cast<uint32_t>(size));
	ASSERT_EQ(ftruncate(compositor_fd, 0), 0);
	close(compositor_fd);
	const dev_t main = makedev(226, 128);
	feedback_receiver_main_device(&receiver, &main, sizeof(main));
	feedback_receiver_tranche_target_device(&receiver, &main, sizeof(main));
	const uint16_t indices[] = {2, 1};
	feedback_receiver_tranche_formats(&receiver, indices, sizeof(indices));
	feedback_receiver_tranche_done(&receiver);
	feedback_receiver_done(&receiver);
	ASSERT_TRUE(receiver.received);
	ASSERT_EQ(receiver.current.tranches[0].pair_count, 2u);
	EXPECT_EQ(receiver.current.tranches[0].pairs[0].format, DRM_FORMAT_ARGB8888);
	EXPECT_EQ(receiver.current.tranches[0].pairs[1].modifier, I915_FORMAT_MOD_X_TILED);
}

TEST_F(FeedbackEvents, FormatsBeforeAnyTableBreakTheFeedback)
{
	uint16_t index = 0;
	feedback_receiver_tranche_formats(&receiver, &index, sizeof(index));
	feedback_receiver_tranche_done(&receiver);
	feedback_receiver_done(&receiver);
	EXPECT_FALSE(receiver.received);
}

TEST_F(FeedbackEvents, TranchesBeyondTheBoundBreakTheFeedback)
{
	const size_t size = table.size() * sizeof(feedback_table_entry);
	feedback_receiver_format_table(&receiver, table_fd(table, size), static_cast<uint32_t>(size));
	for (uint32_t t = 0; t <= FEEDBACK_MAX_TRANCHES; t++) {
		feedback_receiver_tranche_flags(&receiver, 0);
		feedback_receiver_tranche_done(&receiver);
	}
	feedback_receiver_done(&receiver);
	EXPECT_FALSE(receiver.received);
}

} // namespace
