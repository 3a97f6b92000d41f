// uda_surface's fences: a _fenced side gets the other side's fence, a
// plain side has the surface wait for it. Pipes stand in for sync_files:
// the read end is the fence (readable once signalled, as a sync_file
// polls), the test keeps the write end to signal it with a tag byte, which
// also tells which fence came back.
#include <atomic>
#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <future>
#include <thread>
#include <unistd.h>

#include "surface_fixture.hpp"

using namespace uda_test;

namespace
{

class PipeFence
{
public:
	PipeFence()
	{
		// A surface that closed the fence early must fail the test's
		// checks, not kill the process on the test's signalling write.
		std::signal(SIGPIPE, SIG_IGN);
		int ends[2];
		EXPECT_EQ(pipe2(ends, O_CLOEXEC), 0);
		read_end = ends[0];
		write_end = ends[1];
	}
	~PipeFence()
	{
		if (read_end >= 0)
			close(read_end);
		close(write_end);
	}
	PipeFence(const PipeFence &) = delete;
	PipeFence &operator=(const PipeFence &) = delete;

	// The fence, for a call that takes ownership of it.
	int hand_over()
	{
		int fd = read_end;
		read_end = -1;
		return fd;
	}
	void signal(char tag)
	{
		EXPECT_EQ(write(write_end, &tag, 1), 1);
	}

private:
	int read_end = -1;
	int write_end = -1;
};

bool is_signalled(int fence)
{
	pollfd entry = {fence, POLLIN, 0};
	return poll(&entry, 1, 0) == 1;
}

// Reads the tag of a fence the test was handed, and closes it.
char take_tag(int fence)
{
	char tag = 0;
	EXPECT_TRUE(is_signalled(fence));
	EXPECT_EQ(read(fence, &tag, 1), 1);
	close(fence);
	return tag;
}

// For a fence the other thread may not have signalled yet.
char wait_for_tag(int fence)
{
	pollfd entry = {fence, POLLIN, 0};
	EXPECT_EQ(poll(&entry, 1, 10000), 1) << "the fence never signalled";
	return take_tag(fence);
}

bool is_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

class SurfaceFences : public Surface
{
protected:
	uda_surface_buffer dequeue()
	{
		uda_surface_buffer buffer = {};
		EXPECT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_SUCCESS) << uda_context_get_error(ctx);
		return buffer;
	}
	uint64_t queue_frame(int acquire_fence = -1)
	{
		uda_surface_buffer buffer = dequeue();
		EXPECT_EQ(uda_surface_queue_fenced(surface, buffer.buffer_id, nullptr, 0, acquire_fence), UDA_SUCCESS)
			<< uda_context_get_error(ctx);
		return buffer.buffer_id;
	}
	uda_surface_frame acquire()
	{
		uda_surface_frame frame = {};
		EXPECT_EQ(uda_surface_acquire(surface, 0, &frame), UDA_SUCCESS) << uda_context_get_error(ctx);
		return frame;
	}
};

TEST_F(SurfaceFences, TheProducersFenceReachesAFencedConsumer)
{
	create();
	PipeFence writes;
	queue_frame(writes.hand_over());
	uda_surface_frame frame = {};
	int fence = -2;
	ASSERT_EQ(uda_surface_acquire_fenced(surface, 0, &frame, &fence), UDA_SUCCESS) << uda_context_get_error(ctx);
	ASSERT_GE(fence, 0);
	EXPECT_EQ(frame.frame_number, 1u);
	EXPECT_FALSE(is_signalled(fence)) << "handed over, not waited for";
	writes.signal('A');
	EXPECT_EQ(take_tag(fence), 'A');
	EXPECT_EQ(uda_surface_release(surface, frame.buffer_id), UDA_SUCCESS);

	// A producer that finished before queueing: the consumer is told so.
	queue_frame();
	ASSERT_EQ(uda_surface_acquire_fenced(surface, 0, &frame, &fence), UDA_SUCCESS);
	EXPECT_EQ(fence, -1);
	EXPECT_EQ(frame.frame_number, 2u);
	EXPECT_EQ(uda_surface_release(surface, frame.buffer_id), UDA_SUCCESS);
}

TEST_F(SurfaceFences, PlainAcquireWaitsForTheProducersFence)
{
	create();
	PipeFence writes;
	uint64_t id = queue_frame(writes.hand_over());

	uda_surface_frame frame = {};
	EXPECT_EQ(uda_surface_acquire(surface, 0, &frame), UDA_ERROR_TIMEOUT);
	EXPECT_NE(std::string(uda_context_get_error(ctx)).find("acquire fence"), std::string::npos)
		<< uda_context_get_error(ctx);
	EXPECT_EQ(uda_surface_acquire(surface, 20'000'000, &frame), UDA_ERROR_TIMEOUT);
	EXPECT_TRUE(frame_fd_readable()) << "a frame whose fence is pending stays queued";

	std::atomic<bool> signalled{false};
	std::thread gpu([&] {
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
		signalled = true;
		writes.signal('A');
	});
	ASSERT_EQ(uda_surface_acquire(surface, UINT64_MAX, &frame), UDA_SUCCESS) << uda_context_get_error(ctx);
	EXPECT_TRUE(signalled);
	gpu.join();
	EXPECT_EQ(frame.buffer_id, id);
	EXPECT_EQ(frame.frame_number, 1u);
	EXPECT_EQ(frame.dropped_before, 0u);
	EXPECT_FALSE(frame_fd_readable());
	EXPECT_EQ(uda_surface_release(surface, frame.buffer_id), UDA_SUCCESS);
}

TEST_F(SurfaceFences, PlainAcquireSeesEveryWriteMadeBeforeTheFenceSignals)
{
	create(64, 32, 2);
	const int frames = 20;
	std::atomic<bool> failed{false};
	std::thread producer([&] {
		for (int i = 1; i <= frames && !failed; i++) {
			uda_surface_buffer buffer = {};
			int release_fence = -1;
			if (uda_surface_dequeue_fenced(surface, UINT64_MAX, &buffer, &release_fence) != UDA_SUCCESS) {
				failed = true;
				break;
			}
			if (release_fence >= 0)
				wait_for_tag(release_fence);
			// Queued before it is written, as a GPU producer queues work:
			// only the fence says when the frame is done.
			PipeFence writes;
			if (uda_surface_queue_fenced(surface, buffer.buffer_id, nullptr, 0, writes.hand_over()) !=
			    UDA_SUCCESS) {
				failed = true;
				break;
			}
			std::this_thread::sleep_for(std::chrono::milliseconds(2));
			fill(buffer.allocation, 0xff000000u | (uint32_t)i);
			writes.signal('W');
		}
	});
	for (int i = 1; i <= frames && !failed; i++) {
		uda_surface_frame frame = {};
		ASSERT_EQ(uda_surface_acquire(surface, UINT64_MAX, &frame), UDA_SUCCESS) << uda_context_get_error(ctx);
		EXPECT_TRUE(holds(frame.allocation, 0xff000000u | (uint32_t)i)) << "frame " << i;
		// Reads "still running": the producer must wait for this fence.
		PipeFence reads;
		ASSERT_EQ(uda_surface_release_fenced(surface, frame.buffer_id, reads.hand_over()), UDA_SUCCESS);
		reads.signal('R');
	}
	producer.join();
	EXPECT_FALSE(failed);
}

TEST_F(SurfaceFences, MailboxReplacesAFrameWhoseFenceWasWaitedForInVain)
{
	create(64, 32, 2);
	ASSERT_EQ(uda_surface_set_present_mode(surface, UDA_PRESENT_MODE_MAILBOX), UDA_SUCCESS);
	PipeFence writes;
	uint64_t first = queue_frame(writes.hand_over());

	uda_result waited = UDA_SUCCESS;
	std::thread consumer([&] {
		uda_surface_frame frame = {};
		waited = uda_surface_acquire(surface, 300'000'000, &frame);
	});
	// The consumer has taken the frame off the queue to wait for it...
	while (frame_fd_readable())
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	// ...when a newer one comes, which replaces it once the wait fails.
	uint64_t second = queue_frame();
	consumer.join();
	EXPECT_EQ(waited, UDA_ERROR_TIMEOUT);

	uda_surface_frame frame = acquire();
	EXPECT_EQ(frame.buffer_id, second);
	EXPECT_EQ(frame.frame_number, 2u);
	EXPECT_EQ(frame.dropped_before, 1u);

	// The replaced buffer goes back to the producer with the fence of its
	// unfinished writes.
	uda_surface_buffer buffer = {};
	int fence = -1;
	ASSERT_EQ(uda_surface_dequeue_fenced(surface, 0, &buffer, &fence), UDA_SUCCESS) << uda_context_get_error(ctx);
	EXPECT_EQ(buffer.buffer_id, first);
	ASSERT_GE(fence, 0);
	writes.signal('A');
	EXPECT_EQ(take_tag(fence), 'A');
	EXPECT_EQ(uda_surface_cancel(surface, buffer.buffer_id), UDA_SUCCESS);
	EXPECT_EQ(uda_surface_release(surface, frame.buffer_id), UDA_SUCCESS);
}

TEST_F(SurfaceFences, ReleaseFencesGoToTheProducerOrAreWaitedFor)
{
	create(64, 32, 2);
	uint64_t first = queue_frame();
	uint64_t second = queue_frame();
	ASSERT_EQ(acquire().buffer_id, first);
	PipeFence reads;
	ASSERT_EQ(uda_surface_release_fenced(surface, first, reads.hand_over()), UDA_SUCCESS);

	// The only free buffer is still being read.
	uda_surface_buffer buffer = {};
	EXPECT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_ERROR_TIMEOUT);
	EXPECT_NE(std::string(uda_context_get_error(ctx)).find("release fence"), std::string::npos)
		<< uda_context_get_error(ctx);
	std::atomic<bool> signalled{false};
	std::thread gpu([&] {
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
		signalled = true;
		reads.signal('R');
	});
	ASSERT_EQ(uda_surface_dequeue(surface, UINT64_MAX, &buffer), UDA_SUCCESS) << uda_context_get_error(ctx);
	EXPECT_TRUE(signalled);
	gpu.join();
	EXPECT_EQ(buffer.buffer_id, first);
	EXPECT_EQ(uda_surface_queue(surface, buffer.buffer_id, nullptr, 0), UDA_SUCCESS);

	// A fenced producer gets the fence itself.
	ASSERT_EQ(acquire().buffer_id, second);
	PipeFence reads_again;
	ASSERT_EQ(uda_surface_release_fenced(surface, second, reads_again.hand_over()), UDA_SUCCESS);
	int fence = -1;
	ASSERT_EQ(uda_surface_dequeue_fenced(surface, 0, &buffer, &fence), UDA_SUCCESS);
	EXPECT_EQ(buffer.buffer_id, second);
	ASSERT_GE(fence, 0);
	EXPECT_FALSE(is_signalled(fence));
	reads_again.signal('S');
	EXPECT_EQ(take_tag(fence), 'S');
	EXPECT_EQ(uda_surface_cancel(surface, buffer.buffer_id), UDA_SUCCESS);
}

TEST_F(SurfaceFences, AReadyBufferComesBeforeOneStillBeingRead)
{
	create(64, 32, 2);
	uint64_t older = queue_frame();
	uint64_t newer = queue_frame();
	ASSERT_EQ(acquire().buffer_id, older);
	ASSERT_EQ(uda_surface_release(surface, older), UDA_SUCCESS);
	ASSERT_EQ(acquire().buffer_id, newer);
	PipeFence reads;
	ASSERT_EQ(uda_surface_release_fenced(surface, newer, reads.hand_over()), UDA_SUCCESS);

	// The newest content would give the smallest age, but its reads run.
	uda_surface_buffer buffer = {};
	int fence = -2;
	ASSERT_EQ(uda_surface_dequeue_fenced(surface, 0, &buffer, &fence), UDA_SUCCESS);
	EXPECT_EQ(buffer.buffer_id, older);
	EXPECT_EQ(fence, -1);
	EXPECT_EQ(buffer.age, 2u);
	EXPECT_EQ(uda_surface_cancel(surface, buffer.buffer_id), UDA_SUCCESS);

	// Once signalled, the fence is dropped rather than handed over.
	reads.signal('R');
	ASSERT_EQ(uda_surface_dequeue_fenced(surface, 0, &buffer, &fence), UDA_SUCCESS);
	EXPECT_EQ(buffer.buffer_id, newer);
	EXPECT_EQ(fence, -1);
	EXPECT_EQ(buffer.age, 1u);
	EXPECT_EQ(uda_surface_cancel(surface, buffer.buffer_id), UDA_SUCCESS);
}

// With every free buffer still being read, a plain dequeue waits for the
// first of their fences, not for the one whose content is newest.
TEST_F(SurfaceFences, PlainDequeueTakesWhicheverReleaseSignalsFirst)
{
	create(64, 32, 2);
	uint64_t older = queue_frame();
	uint64_t newer = queue_frame();
	PipeFence older_reads, newer_reads;
	ASSERT_EQ(acquire().buffer_id, older);
	ASSERT_EQ(uda_surface_release_fenced(surface, older, older_reads.hand_over()), UDA_SUCCESS);
	ASSERT_EQ(acquire().buffer_id, newer);
	ASSERT_EQ(uda_surface_release_fenced(surface, newer, newer_reads.hand_over()), UDA_SUCCESS);

	std::thread gpu([&] {
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
		older_reads.signal('O');
	});
	uda_surface_buffer buffer = {};
	// The timeout only bounds a failure: the wait ends with the fence.
	uda_result result = uda_surface_dequeue(surface, 20000000000ull, &buffer);
	gpu.join();
	ASSERT_EQ(result, UDA_SUCCESS) << uda_context_get_error(ctx);
	EXPECT_EQ(buffer.buffer_id, older);
	EXPECT_EQ(uda_surface_cancel(surface, buffer.buffer_id), UDA_SUCCESS);

	// The newer one is still being read: a dequeue with no time to wait
	// says so, and leaves it free.
	ASSERT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_SUCCESS);
	EXPECT_EQ(buffer.buffer_id, older) << "the ready one again";
	EXPECT_EQ(uda_surface_queue(surface, buffer.buffer_id, nullptr, 0), UDA_SUCCESS);
	EXPECT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_ERROR_TIMEOUT);
	EXPECT_NE(std::string(uda_context_get_error(ctx)).find("release fence"), std::string::npos);
	newer_reads.signal('N');
	ASSERT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_SUCCESS);
	EXPECT_EQ(buffer.buffer_id, newer);
	EXPECT_EQ(uda_surface_cancel(surface, buffer.buffer_id), UDA_SUCCESS);
}

// A plain dequeue waiting on a release fence also wakes when the consumer
// gives another buffer back without one.
TEST_F(SurfaceFences, PlainDequeueWakesForABufferReleasedWithoutAFence)
{
	create(64, 32, 2);
	uint64_t first = queue_frame();
	uint64_t second = queue_frame();
	PipeFence reads;
	ASSERT_EQ(acquire().buffer_id, first);
	ASSERT_EQ(uda_surface_release_fenced(surface, first, reads.hand_over()), UDA_SUCCESS);
	ASSERT_EQ(acquire().buffer_id, second);

	std::thread consumer([&] {
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
		EXPECT_EQ(uda_surface_release(surface, second), UDA_SUCCESS);
	});
	uda_surface_buffer buffer = {};
	uda_result result = uda_surface_dequeue(surface, 20000000000ull, &buffer);
	consumer.join();
	ASSERT_EQ(result, UDA_SUCCESS) << uda_context_get_error(ctx);
	EXPECT_EQ(buffer.buffer_id, second);
	EXPECT_EQ(uda_surface_cancel(surface, buffer.buffer_id), UDA_SUCCESS);
	reads.signal('R');
}

// A dequeue that finds every buffer still being read and may not wait
// still destroys what it retired on the way (an old-size buffer whose
// fence has signalled since).
TEST_F(SurfaceFences, ADequeueThatMayNotWaitStillFreesRetiredBuffers)
{
	create(64, 32, 2);
	uint64_t old_id = queue_frame();
	uda_surface_frame old_frame = acquire();
	ASSERT_EQ(old_frame.buffer_id, old_id);
	ASSERT_EQ(uda_surface_resize(surface, 32, 16), UDA_SUCCESS);
	PipeFence old_reads, reads_a, reads_b;
	ASSERT_EQ(uda_surface_release_fenced(surface, old_id, old_reads.hand_over()), UDA_SUCCESS);
	uint64_t a = queue_frame(); // the old buffer lingers
	uint64_t b = queue_frame();
	ASSERT_EQ(acquire().buffer_id, a);
	ASSERT_EQ(uda_surface_release_fenced(surface, a, reads_a.hand_over()), UDA_SUCCESS);
	ASSERT_EQ(acquire().buffer_id, b);
	ASSERT_EQ(uda_surface_release_fenced(surface, b, reads_b.hand_over()), UDA_SUCCESS);
	EXPECT_EQ(uda_context_validate_allocation(ctx, old_frame.allocation), UDA_SUCCESS);

	old_reads.signal('O');
	uda_surface_buffer buffer = {};
	EXPECT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_ERROR_TIMEOUT);
	EXPECT_EQ(uda_context_validate_allocation(ctx, old_frame.allocation), UDA_ERROR_NOT_FOUND)
		<< "the old-size buffer outlived its fence";
	reads_a.signal('A');
	reads_b.signal('B');
	ASSERT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_SUCCESS);
	EXPECT_EQ(uda_surface_cancel(surface, buffer.buffer_id), UDA_SUCCESS);
}

// A resize wakes a dequeue waiting on release fences of the old size: a
// buffer of the new size can be allocated instead.
TEST_F(SurfaceFences, AResizeWakesADequeueWaitingOnOldBuffers)
{
	create(64, 32, 2);
	uint64_t a = queue_frame();
	uint64_t b = queue_frame();
	PipeFence reads_a, reads_b;
	ASSERT_EQ(acquire().buffer_id, a);
	ASSERT_EQ(uda_surface_release_fenced(surface, a, reads_a.hand_over()), UDA_SUCCESS);
	ASSERT_EQ(acquire().buffer_id, b);
	ASSERT_EQ(uda_surface_release_fenced(surface, b, reads_b.hand_over()), UDA_SUCCESS);
	std::thread resizer([&] {
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
		EXPECT_EQ(uda_surface_resize(surface, 32, 16), UDA_SUCCESS);
	});
	uda_surface_buffer buffer = {};
	uda_result result = uda_surface_dequeue(surface, 20000000000ull, &buffer);
	resizer.join();
	ASSERT_EQ(result, UDA_SUCCESS) << uda_context_get_error(ctx);
	EXPECT_EQ(buffer.width, 32u);
	EXPECT_EQ(uda_surface_cancel(surface, buffer.buffer_id), UDA_SUCCESS);
	reads_a.signal('A');
	reads_b.signal('B');
}

TEST_F(SurfaceFences, MemoryIsFreedOnlyOnceItsFenceSignals)
{
	create(64, 32, 2);
	uint64_t id = queue_frame();
	uda_surface_frame frame = acquire();
	ASSERT_EQ(frame.buffer_id, id);
	ASSERT_EQ(uda_surface_resize(surface, 32, 16), UDA_SUCCESS);

	// Released at the old size while still being read: neither the
	// release nor the next dequeue waits, and the memory stays until the
	// fence has signalled. The fence signals when the test says so, or
	// after a while if a call wrongly waits for it.
	PipeFence reads;
	std::promise<void> reads_may_end;
	std::atomic<bool> reads_ended{false};
	std::thread gpu([&, go = reads_may_end.get_future()] {
		go.wait_for(std::chrono::seconds(5));
		reads_ended = true;
		reads.signal('R');
	});
	ASSERT_EQ(uda_surface_release_fenced(surface, id, reads.hand_over()), UDA_SUCCESS);
	EXPECT_FALSE(reads_ended) << "the release waited for its fence";
	EXPECT_EQ(uda_context_validate_allocation(ctx, frame.allocation), UDA_SUCCESS);
	uda_surface_buffer buffer = dequeue();
	EXPECT_FALSE(reads_ended) << "the dequeue waited for an old buffer's fence";
	EXPECT_EQ(buffer.width, 32u);
	EXPECT_EQ(uda_context_validate_allocation(ctx, frame.allocation), UDA_SUCCESS)
		<< "freed while its release fence was pending";
	reads_may_end.set_value();
	gpu.join();
	// The next call on the surface finds it done and frees it (one that
	// allocates nothing, so the address is not at once a new buffer's).
	ASSERT_EQ(uda_surface_queue(surface, buffer.buffer_id, nullptr, 0), UDA_SUCCESS);
	const uda_surface_frame shown = acquire();
	ASSERT_EQ(uda_surface_release(surface, shown.buffer_id), UDA_SUCCESS);
	EXPECT_NE(uda_context_validate_allocation(ctx, frame.allocation), UDA_SUCCESS);

	// Destroying the surface waits for the fences it holds: a frame's and
	// an old buffer's still lingering.
	queue_frame();
	frame = acquire();
	ASSERT_EQ(uda_surface_resize(surface, 16, 8), UDA_SUCCESS);
	PipeFence old_reads;
	ASSERT_EQ(uda_surface_release_fenced(surface, frame.buffer_id, old_reads.hand_over()), UDA_SUCCESS);
	buffer = dequeue();
	PipeFence writes;
	ASSERT_EQ(uda_surface_queue_fenced(surface, buffer.buffer_id, nullptr, 0, writes.hand_over()), UDA_SUCCESS);
	std::atomic<int> signalled{0};
	std::thread late_gpu([&] {
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
		signalled++;
		writes.signal('W');
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
		signalled++;
		old_reads.signal('R');
	});
	uda_surface_destroy(surface);
	surface = nullptr;
	EXPECT_EQ(signalled, 2);
	late_gpu.join();
}

// The surface keeps its own copy of a release fence it hands over: a
// producer that cancels the buffer unwritten (and drops its copy) must not
// make the buffer look ready to the next producer.
TEST_F(SurfaceFences, ACancelledBufferKeepsItsReleaseFence)
{
	create(64, 32, 2);
	uint64_t first = queue_frame();
	queue_frame();
	ASSERT_EQ(acquire().buffer_id, first);
	PipeFence reads;
	ASSERT_EQ(uda_surface_release_fenced(surface, first, reads.hand_over()), UDA_SUCCESS);

	uda_surface_buffer buffer = {};
	int release_fence = -1;
	ASSERT_EQ(uda_surface_dequeue_fenced(surface, 0, &buffer, &release_fence), UDA_SUCCESS);
	ASSERT_EQ(buffer.buffer_id, first);
	ASSERT_GE(release_fence, 0);
	close(release_fence);
	ASSERT_EQ(uda_surface_cancel(surface, buffer.buffer_id), UDA_SUCCESS);

	uda_surface_buffer again = {};
	EXPECT_EQ(uda_surface_dequeue(surface, 0, &again), UDA_ERROR_TIMEOUT)
		<< "a cancelled buffer came back while the consumer still read it";
	reads.signal('R');
	ASSERT_EQ(uda_surface_dequeue(surface, 0, &again), UDA_SUCCESS) << uda_context_get_error(ctx);
	EXPECT_EQ(again.buffer_id, first);
}

// Timeouts short of UINT64_MAX can still be centuries: they wait like it.
TEST_F(SurfaceFences, HugeTimeoutsWaitForTheFence)
{
	create();
	PipeFence writes;
	queue_frame(writes.hand_over());
	std::thread gpu([&] {
		std::this_thread::sleep_for(std::chrono::milliseconds(30));
		writes.signal('W');
	});
	uda_surface_frame frame = {};
	EXPECT_EQ(uda_surface_acquire(surface, UINT64_MAX - 1, &frame), UDA_SUCCESS) << uda_context_get_error(ctx);
	gpu.join();
}

TEST_F(SurfaceFences, FencesAreTakenEvenWhenACallFails)
{
	create();
	uda_surface_buffer buffer = dequeue();

	PipeFence unowned;
	int fence = unowned.hand_over();
	EXPECT_EQ(uda_surface_queue_fenced(nullptr, buffer.buffer_id, nullptr, 0, fence), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FALSE(is_open(fence));

	PipeFence wrong_buffer;
	fence = wrong_buffer.hand_over();
	EXPECT_EQ(uda_surface_queue_fenced(surface, buffer.buffer_id + 100, nullptr, 0, fence),
	          UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FALSE(is_open(fence));

	PipeFence no_damage;
	fence = no_damage.hand_over();
	EXPECT_EQ(uda_surface_queue_fenced(surface, buffer.buffer_id, nullptr, 2, fence), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FALSE(is_open(fence));

	PipeFence bad_damage;
	fence = bad_damage.hand_over();
	const uda_rect negative = {0, 0, -1, 4};
	EXPECT_EQ(uda_surface_queue_fenced(surface, buffer.buffer_id, &negative, 1, fence), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FALSE(is_open(fence));

	PipeFence not_acquired;
	fence = not_acquired.hand_over();
	EXPECT_EQ(uda_surface_release_fenced(surface, buffer.buffer_id, fence), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FALSE(is_open(fence));
	PipeFence no_surface;
	fence = no_surface.hand_over();
	EXPECT_EQ(uda_surface_release_fenced(nullptr, buffer.buffer_id, fence), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_FALSE(is_open(fence));

	// Not a descriptor at all: refused, and the buffer is still dequeued.
	int closed[2];
	ASSERT_EQ(pipe2(closed, O_CLOEXEC), 0);
	close(closed[0]);
	close(closed[1]);
	EXPECT_EQ(uda_surface_queue_fenced(surface, buffer.buffer_id, nullptr, 0, closed[0]), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_NE(std::string(uda_context_get_error(ctx)).find("open descriptor"), std::string::npos);
	EXPECT_EQ(uda_surface_queue_fenced(surface, buffer.buffer_id, nullptr, 0, -2), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_surface_release_fenced(surface, buffer.buffer_id, -7), UDA_ERROR_INVALID_ARGUMENT);

	// Outputs: both pointers are required.
	uda_surface_buffer second = {};
	uda_surface_frame frame = {};
	int out = 5;
	EXPECT_EQ(uda_surface_dequeue_fenced(surface, 0, &second, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_surface_dequeue_fenced(surface, 0, nullptr, &out), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_surface_dequeue_fenced(nullptr, 0, &second, &out), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_surface_acquire_fenced(surface, 0, &frame, nullptr), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_surface_acquire_fenced(surface, 0, nullptr, &out), UDA_ERROR_INVALID_ARGUMENT);
	EXPECT_EQ(uda_surface_acquire_fenced(nullptr, 0, &frame, &out), UDA_ERROR_INVALID_ARGUMENT);
	out = 5;
	EXPECT_EQ(uda_surface_acquire_fenced(surface, 0, &frame, &out), UDA_ERROR_TIMEOUT);
	EXPECT_EQ(out, -1) << "no frame, no fence";

	EXPECT_EQ(uda_surface_queue_fenced(surface, buffer.buffer_id, nullptr, 0, -1), UDA_SUCCESS);
	ASSERT_EQ(uda_surface_acquire_fenced(surface, 0, &frame, &out), UDA_SUCCESS);
	EXPECT_EQ(out, -1);
	EXPECT_EQ(uda_surface_release_fenced(surface, frame.buffer_id, -1), UDA_SUCCESS);
}

} // namespace
