// uda_surface: the buffer queue between a producer and a consumer, on real
// memory (the system backend's memfds). Fences: test_surface_fences.cpp.
#include <atomic>
#include <thread>
#include <vector>

#include "surface_fixture.hpp"

using namespace uda_test;

namespace
{

TEST_F(Surface, RefusesBadCreateInfo)
{
	uda_surface *out = reinterpret_cast<uda_surface *>(1);
	EXPECT_EQ(uda_surface_create(ctx, nullptr, &out), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(out, nullptr);
	uda_surface_create_info info = create_info();
	EXPECT_EQ(uda_surface_create(ctx, &info, nullptr), UDA_ERROR_INVALID_ARGUMENT);

	struct Case {
		const char *what;
		void (*spoil)(uda_surface_create_info &);
	} cases[] = {
		{"wrong type", [](uda_surface_create_info &i) { i.type = UDA_STRUCTURE_TYPE_ASSERTION; }},
		{"zero width", [](uda_surface_create_info &i) { i.width = 0; }},
		{"too high", [](uda_surface_create_info &i) { i.height = UDA_MAX_DIMENSION + 1; }},
		{"unknown format", [](uda_surface_create_info &i) { i.format = 0x20202020; }},
		{"no devices", [](uda_surface_create_info &i) { i.device_count = 0; }},
		{"null devices", [](uda_surface_create_info &i) { i.devices = nullptr; }},
		{"one buffer", [](uda_surface_create_info &i) { i.buffer_count = 1; }},
		{"too many buffers", [](uda_surface_create_info &i) { i.buffer_count = UDA_SURFACE_MAX_BUFFERS + 1; }},
		{"bad mode", [](uda_surface_create_info &i) { i.present_mode = static_cast<uda_present_mode>(7); }},
	};
	for (const Case &c : cases) {
		info = create_info();
		c.spoil(info);
		EXPECT_NE(uda_surface_create(ctx, &info, &out), UDA_SUCCESS) << c.what;
		EXPECT_EQ(out, nullptr) << c.what;
		EXPECT_STRNE(uda_context_get_error(ctx), "") << c.what;
	}

	// A device of another context.
	uda_context *other = nullptr;
	ASSERT_EQ(uda_context_create(nullptr, &other), UDA_SUCCESS);
	uint32_t count = 1;
	uda_device *foreign = nullptr;
	uda_context_enumerate_devices(other, &count, &foreign);
	info = create_info();
	uda_device_usage foreign_usage = {foreign, &cpu_usage};
	info.devices = &foreign_usage;
	EXPECT_EQ(uda_surface_create(ctx, &info, &out), UDA_ERROR_INVALID_ARGUMENT);
	uda_context_destroy(other);
}

TEST_F(Surface, FifoDeliversEveryFrameInOrderAndBlocksWhenFull)
{
	create();
	EXPECT_FALSE(frame_fd_readable());
	std::vector<uint64_t> ids;
	for (uint32_t frame = 1; frame <= 3; frame++) {
		uda_surface_buffer buffer = {};
		ASSERT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_SUCCESS) << uda_context_get_error(ctx);
		EXPECT_EQ(buffer.width, 64u);
		EXPECT_EQ(buffer.height, 32u);
		EXPECT_EQ(buffer.age, 0u); // new buffers have no content
		fill(buffer.allocation, 0xff000000u | frame);
		ASSERT_EQ(uda_surface_queue(surface, buffer.buffer_id, nullptr, 0), UDA_SUCCESS);
		ids.push_back(buffer.buffer_id);
		EXPECT_TRUE(frame_fd_readable());
	}
	// Three buffers, all queued: nothing to dequeue.
	uda_surface_buffer buffer = {};
	EXPECT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_ERROR_TIMEOUT);
	EXPECT_EQ(uda_surface_dequeue(surface, 2000000, &buffer), UDA_ERROR_TIMEOUT); // 2 ms

	for (uint32_t frame = 1; frame <= 3; frame++) {
		uda_surface_frame acquired = {};
		ASSERT_EQ(uda_surface_acquire(surface, 0, &acquired), UDA_SUCCESS);
		EXPECT_EQ(acquired.frame_number, frame);
		EXPECT_EQ(acquired.buffer_id, ids[frame - 1]);
		EXPECT_EQ(acquired.dropped_before, 0u);
		EXPECT_EQ(acquired.damage_count, 0u);
		EXPECT_TRUE(holds(acquired.allocation, 0xff000000u | frame));
		ASSERT_EQ(uda_surface_release(surface, acquired.buffer_id), UDA_SUCCESS);
	}
	EXPECT_FALSE(frame_fd_readable());
	uda_surface_frame none = {};
	EXPECT_EQ(uda_surface_acquire(surface, 0, &none), UDA_ERROR_TIMEOUT);

	// The buffer with the newest content comes back first: age 1.
	ASSERT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_SUCCESS);
	EXPECT_EQ(buffer.buffer_id, ids[2]);
	EXPECT_EQ(buffer.age, 1u);
	EXPECT_TRUE(holds(buffer.allocation, 0xff000003u));
	// One dequeued buffer at a time.
	uda_surface_buffer second = {};
	EXPECT_EQ(uda_surface_dequeue(surface, 0, &second), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_surface_cancel(surface, buffer.buffer_id), UDA_SUCCESS);
}

TEST_F(Surface, MailboxReplacesFramesTheConsumerHasNotTaken)
{
	create();
	ASSERT_EQ(uda_surface_set_present_mode(surface, UDA_PRESENT_MODE_MAILBOX), UDA_SUCCESS);
	// The producer never waits while the consumer sleeps: 10 frames.
	for (uint32_t frame = 1; frame <= 10; frame++) {
		uda_surface_buffer buffer = {};
		ASSERT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_SUCCESS) << frame;
		fill(buffer.allocation, frame);
		ASSERT_EQ(uda_surface_queue(surface, buffer.buffer_id, nullptr, 0), UDA_SUCCESS);
	}
	uda_surface_frame frame = {};
	ASSERT_EQ(uda_surface_acquire(surface, 0, &frame), UDA_SUCCESS);
	EXPECT_EQ(frame.frame_number, 10u);
	EXPECT_EQ(frame.dropped_before, 9u);
	EXPECT_TRUE(holds(frame.allocation, 10));
	EXPECT_FALSE(frame_fd_readable()); // one count for the one pending frame
	uda_surface_frame none = {};
	EXPECT_EQ(uda_surface_acquire(surface, 0, &none), UDA_ERROR_TIMEOUT);
	ASSERT_EQ(uda_surface_release(surface, frame.buffer_id), UDA_SUCCESS);
	EXPECT_EQ(uda_surface_set_present_mode(surface, static_cast<uda_present_mode>(3)), UDA_ERROR_INVALID_ARGUMENT);
}

TEST_F(Surface, ResizeTakesEffectAtTheNextDequeueAndOldBuffersDrainOut)
{
	create(64, 32, 2);
	uda_surface_buffer buffer = {};
	ASSERT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_SUCCESS);
	fill(buffer.allocation, 7);
	ASSERT_EQ(uda_surface_queue(surface, buffer.buffer_id, nullptr, 0), UDA_SUCCESS);
	uda_surface_frame old_frame = {};
	ASSERT_EQ(uda_surface_acquire(surface, 0, &old_frame), UDA_SUCCESS);

	ASSERT_EQ(uda_surface_resize(surface, 100, 50), UDA_SUCCESS);
	EXPECT_EQ(uda_surface_resize(surface, 0, 50), UDA_ERROR_INVALID_ARGUMENT);
	uint32_t width = 0, height = 0;
	ASSERT_EQ(uda_surface_get_size(surface, &width, &height), UDA_SUCCESS);
	EXPECT_EQ(width, 100u);
	EXPECT_EQ(height, 50u);

	// The consumer still reads the old frame at the old size.
	EXPECT_EQ(old_frame.width, 64u);
	EXPECT_TRUE(holds(old_frame.allocation, 7));

	uda_surface_buffer resized = {};
	ASSERT_EQ(uda_surface_dequeue(surface, 0, &resized), UDA_SUCCESS);
	EXPECT_EQ(resized.width, 100u);
	EXPECT_EQ(resized.height, 50u);
	EXPECT_EQ(resized.age, 0u);
	uda_allocation_metadata metadata = {};
	metadata.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA;
	ASSERT_EQ(uda_allocation_get_metadata(resized.allocation, &metadata), UDA_SUCCESS);
	EXPECT_EQ(metadata.width, 100u);
	fill(resized.allocation, 8);
	ASSERT_EQ(uda_surface_queue(surface, resized.buffer_id, nullptr, 0), UDA_SUCCESS);

	// Two buffers at most, one old one new: the third must wait for the
	// old one, which is then destroyed rather than reused.
	uda_surface_buffer third = {};
	EXPECT_EQ(uda_surface_dequeue(surface, 0, &third), UDA_ERROR_TIMEOUT);
	ASSERT_EQ(uda_surface_release(surface, old_frame.buffer_id), UDA_SUCCESS);
	ASSERT_EQ(uda_surface_dequeue(surface, 0, &third), UDA_SUCCESS);
	EXPECT_EQ(third.width, 100u);
	EXPECT_NE(third.buffer_id, old_frame.buffer_id);
	EXPECT_NE(third.buffer_id, resized.buffer_id);
	ASSERT_EQ(uda_surface_cancel(surface, third.buffer_id), UDA_SUCCESS);
}

TEST_F(Surface, DamageIsClippedAndHandedToTheConsumer)
{
	create(64, 32);
	uda_surface_buffer buffer = {};
	ASSERT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_SUCCESS);
	const uda_rect damage[] = {
		{10, 5, 20, 4},  // inside
		{-5, -5, 10, 10}, // clipped at the top-left
		{60, 30, 10, 10}, // clipped at the bottom-right
		{70, 0, 5, 5},    // outside: dropped
	};
	EXPECT_EQ(uda_surface_queue(surface, buffer.buffer_id, nullptr, 2), UDA_ERROR_INVALID_ARGUMENT);
	const uda_rect negative = {0, 0, -1, 4};
	EXPECT_EQ(uda_surface_queue(surface, buffer.buffer_id, &negative, 1), UDA_ERROR_INVALID_ARGUMENT);
	ASSERT_EQ(uda_surface_queue(surface, buffer.buffer_id, damage, 4), UDA_SUCCESS);
	uda_surface_frame frame = {};
	ASSERT_EQ(uda_surface_acquire(surface, 0, &frame), UDA_SUCCESS);
	ASSERT_EQ(frame.damage_count, 3u);
	EXPECT_EQ(frame.damage[0].x, 10);
	EXPECT_EQ(frame.damage[0].width, 20);
	EXPECT_EQ(frame.damage[1].x, 0);
	EXPECT_EQ(frame.damage[1].y, 0);
	EXPECT_EQ(frame.damage[1].width, 5);
	EXPECT_EQ(frame.damage[1].height, 5);
	EXPECT_EQ(frame.damage[2].width, 4);
	EXPECT_EQ(frame.damage[2].height, 2);
	ASSERT_EQ(uda_surface_release(surface, frame.buffer_id), UDA_SUCCESS);
}

TEST_F(Surface, RefusesBuffersInTheWrongState)
{
	create();
	EXPECT_EQ(uda_surface_queue(surface, 0, nullptr, 0), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_surface_queue(surface, 12345, nullptr, 0), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_surface_release(surface, 1), UDA_ERROR_INVALID_ARGUMENT);
	uda_surface_buffer buffer = {};
	ASSERT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_SUCCESS);
	EXPECT_EQ(uda_surface_release(surface, buffer.buffer_id), UDA_ERROR_INVALID_ARGUMENT); // not acquired
	ASSERT_EQ(uda_surface_queue(surface, buffer.buffer_id, nullptr, 0), UDA_SUCCESS);
	EXPECT_EQ(uda_surface_queue(surface, buffer.buffer_id, nullptr, 0), UDA_ERROR_INVALID_ARGUMENT); // twice
	EXPECT_EQ(uda_surface_cancel(surface, buffer.buffer_id), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_surface_dequeue(nullptr, 0, &buffer), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_surface_dequeue(surface, 0, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_surface_acquire(surface, 0, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_surface_get_frame_fd(surface, nullptr), UDA_ERROR_INVALID_ARGUMENT);
}

TEST_F(Surface, DestroyCallbacksAndValidation)
{
	create();
	EXPECT_EQ(uda_context_validate_surface(ctx, surface), UDA_SUCCESS);
	int stack_object = 0;
	EXPECT_EQ(uda_context_validate_surface(ctx, &stack_object), UDA_ERROR_NOT_FOUND);
	EXPECT_EQ(uda_context_validate_surface(ctx, nullptr), UDA_ERROR_NOT_FOUND);

	static int calls;
	calls = 0;
	auto callback = [](uda_surface *, void *data) { calls += *static_cast<int *>(data); };
	int one = 1, ten = 10;
	ASSERT_EQ(uda_surface_add_destroy_callback(surface, callback, &one), UDA_SUCCESS);
	ASSERT_EQ(uda_surface_add_destroy_callback(surface, callback, &ten), UDA_SUCCESS);
	EXPECT_EQ(uda_surface_add_destroy_callback(surface, callback, &ten), UDA_ERROR_EXISTS);
	ASSERT_EQ(uda_surface_remove_destroy_callback(surface, callback, &ten), UDA_SUCCESS);
	EXPECT_EQ(uda_surface_remove_destroy_callback(surface, callback, &ten), UDA_ERROR_NOT_FOUND);

	// Destroyed with a buffer in each state: nothing leaks (LSan, fds).
	uda_surface_buffer buffer = {};
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_SUCCESS);
		ASSERT_EQ(uda_surface_queue(surface, buffer.buffer_id, nullptr, 0), UDA_SUCCESS);
	}
	uda_surface_frame frame = {};
	ASSERT_EQ(uda_surface_acquire(surface, 0, &frame), UDA_SUCCESS);
	ASSERT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_SUCCESS);

	uda_surface *gone = surface;
	uda_surface_destroy(surface);
	surface = nullptr;
	EXPECT_EQ(calls, 1);
	EXPECT_EQ(uda_context_validate_surface(ctx, gone), UDA_ERROR_NOT_FOUND);
}

// Owners tear their objects down while the surface is being destroyed
// (an EGLSurface destroyed from a callback, or on another thread): a
// removal that succeeds means the callback is never called, one that
// fails means it is being called or was. Callbacks run in the order
// they were added.
TEST_F(Surface, CallbacksRemovedDuringDestroyAreNotCalled)
{
	create();
	struct Owner {
		uda_surface_destroy_callback callback;
		std::vector<int> *order;
		int name;
		Owner *removes; // removed by this one's callback
		uda_result removal = UDA_ERROR_BACKEND; // never a removal's answer
	};
	std::vector<int> order;
	auto callback = [](uda_surface *destroyed, void *data) {
		auto *owner = static_cast<Owner *>(data);
		owner->order->push_back(owner->name);
		if (owner->removes)
			owner->removal =
				uda_surface_remove_destroy_callback(destroyed, owner->removes->callback, owner->removes);
	};
	Owner third = {callback, &order, 3, nullptr};
	Owner first = {callback, &order, 1, nullptr};
	Owner second = {callback, &order, 2, nullptr};
	first.removes = &third;  // not yet called: removed, never called
	second.removes = &first; // called already: NOT_FOUND
	for (Owner *owner : {&first, &second, &third})
		ASSERT_EQ(uda_surface_add_destroy_callback(surface, callback, owner), UDA_SUCCESS);
	uda_surface_destroy(surface);
	surface = nullptr;
	EXPECT_EQ(order, (std::vector<int>{1, 2}));
	EXPECT_EQ(first.removal, UDA_SUCCESS);
	EXPECT_EQ(second.removal, UDA_ERROR_NOT_FOUND);
}

TEST_F(Surface, ProducerAndConsumerThreads)
{
	create(32, 16, 3);
	const uint32_t frames = 300;
	std::atomic<bool> failed{false};
	std::thread producer([&] {
		for (uint32_t frame = 1; frame <= frames && !failed; frame++) {
			uda_surface_buffer buffer = {};
			if (uda_surface_dequeue(surface, UINT64_MAX, &buffer) != UDA_SUCCESS) {
				failed = true;
				break;
			}
			fill(buffer.allocation, frame);
			if (frame % 50 == 0)
				uda_surface_resize(surface, 32 + frame / 50, 16);
			if (uda_surface_queue(surface, buffer.buffer_id, nullptr, 0) != UDA_SUCCESS)
				failed = true;
		}
	});
	int fd = -1;
	ASSERT_EQ(uda_surface_get_frame_fd(surface, &fd), UDA_SUCCESS);
	for (uint32_t expected = 1; expected <= frames && !failed; expected++) {
		pollfd entry = {fd, POLLIN, 0};
		ASSERT_EQ(poll(&entry, 1, 10000), 1) << "no frame " << expected;
		uda_surface_frame frame = {};
		ASSERT_EQ(uda_surface_acquire(surface, 0, &frame), UDA_SUCCESS) << uda_context_get_error(ctx);
		EXPECT_EQ(frame.frame_number, expected);
		EXPECT_TRUE(holds(frame.allocation, expected)) << expected;
		ASSERT_EQ(uda_surface_release(surface, frame.buffer_id), UDA_SUCCESS);
	}
	producer.join();
	EXPECT_FALSE(failed);
}

} // namespace

namespace
{

// A peer's list (as a compositor sends it) of one set requiring `layout`.
uda_capability_set_list *peer_taking_only(uda_context *ctx, uint64_t layout)
{
	uda_capability_set_builder *builder = nullptr;
	uda_capability_set_list *list = nullptr;
	EXPECT_EQ(uda_capability_set_builder_create(ctx, &builder), UDA_SUCCESS);
	EXPECT_EQ(uda_capability_set_builder_add_layout(builder, layout, UDA_CAPABILITY_FLAG_REQUIRED), UDA_SUCCESS);
	EXPECT_EQ(uda_capability_set_list_create(ctx, &list), UDA_SUCCESS);
	EXPECT_EQ(uda_capability_set_list_append_set(list, builder), UDA_SUCCESS);
	uda_capability_set_builder_destroy(builder);
	return list;
}

// Peer lists (a compositor's) take part in every buffer's negotiation,
// the first one's at creation.
TEST_F(Surface, PeerListsTakePartInTheNegotiation)
{
	// A peer that only takes a tiled layout the system device lacks: the
	// surface cannot exist, and says why when it is created.
	uda_capability_set_list *stranger = peer_taking_only(ctx, fourcc_mod_code(NVIDIA, 0x10));
	uda_negotiation_peer_info peer = {UDA_STRUCTURE_TYPE_NEGOTIATION_PEER_INFO, nullptr, stranger};
	uda_surface_create_info info = create_info();
	info.next = &peer;
	EXPECT_EQ(uda_surface_create(ctx, &info, &surface), UDA_ERROR_INCOMPATIBLE);
	EXPECT_EQ(surface, nullptr);
	EXPECT_NE(std::string(uda_context_get_error(ctx)).find("peer"), std::string::npos) << uda_context_get_error(ctx);
	uda_capability_set_list_destroy(stranger);

	// A peer that takes what this device offers (as one of its kind in
	// another process would): the surface keeps a copy of its list and
	// negotiates with it again for a new size.
	const uda_assertion assertion = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 64, 32, DRM_FORMAT_ABGR8888, 0};
	uda_capability_set_list *kindred = nullptr;
	ASSERT_EQ(uda_device_get_capability_sets(device, &assertion, &cpu_usage, &kindred), UDA_SUCCESS);
	peer.sets = kindred;
	ASSERT_EQ(uda_surface_create(ctx, &info, &surface), UDA_SUCCESS) << uda_context_get_error(ctx);
	uda_capability_set_list_destroy(kindred);
	expect_buffer_after_resize(32, 16);

	// Only peer structs, with sets, belong in the chain.
	uda_surface *other = nullptr;
	peer.sets = nullptr;
	EXPECT_EQ(uda_surface_create(ctx, &info, &other), UDA_ERROR_INVALID_ARGUMENT);
	uda_assertion stray = {UDA_STRUCTURE_TYPE_ASSERTION, nullptr, 1, 1, DRM_FORMAT_ABGR8888, 0};
	info.next = &stray;
	EXPECT_EQ(uda_surface_create(ctx, &info, &other), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(other, nullptr);
}

// A layout filter is copied with the surface and applied to every buffer.
TEST_F(Surface, LayoutFilterIsKeptAndApplied)
{
	uint64_t modifiers[] = {fourcc_mod_code(NVIDIA, 0x10)};
	uda_negotiation_layout_filter filter = {UDA_STRUCTURE_TYPE_NEGOTIATION_LAYOUT_FILTER, nullptr, 1, modifiers,
	                                        UDA_HANDLE_TYPE_MEMFD};
	uda_surface_create_info info = create_info();
	info.next = &filter;
	// Only a layout the system device lacks: no surface.
	EXPECT_EQ(uda_surface_create(ctx, &info, &surface), UDA_ERROR_INCOMPATIBLE);
	EXPECT_EQ(surface, nullptr);

	// Linear allowed: the system device's memfds pass.
	modifiers[0] = DRM_FORMAT_MOD_LINEAR;
	ASSERT_EQ(uda_surface_create(ctx, &info, &surface), UDA_SUCCESS) << uda_context_get_error(ctx);
	// Changing the caller's array afterwards changes nothing, also for
	// buffers of a new size, which are negotiated again.
	modifiers[0] = fourcc_mod_code(NVIDIA, 0x10);
	expect_buffer_after_resize(32, 16);

	uda_surface *other = nullptr;
	filter.modifiers = nullptr;
	EXPECT_EQ(uda_surface_create(ctx, &info, &other), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(other, nullptr);
}

} // namespace
