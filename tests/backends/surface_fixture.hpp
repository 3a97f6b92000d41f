// The uda_surface tests' fixture: a surface of the system backend's
// memory (memfds), so the tests can check what each side sees by writing
// and reading the buffers themselves.
#ifndef UDA_TEST_SURFACE_FIXTURE_HPP
#define UDA_TEST_SURFACE_FIXTURE_HPP

#include <cstring>
#include <drm_fourcc.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <string>

#include <uda/uda_surface.h>

#include "backend_env.hpp"
#include "fd_count.hpp"

namespace uda_test
{

const uint8_t often[4] = {UDA_CPU_ACCESS_OFTEN, 0, 0, 0};
const uda_usage_atom cpu_atoms[] = {
	{UDA_VENDOR_NONE, UDA_USAGE_CPU_WRITE, 4, often},
	{UDA_VENDOR_NONE, UDA_USAGE_CPU_READ, 4, often},
};
const uda_usage cpu_usage = {UDA_STRUCTURE_TYPE_USAGE, nullptr, 2, cpu_atoms};

class Surface : public ::testing::Test
{
protected:
	void SetUp() override
	{
		fds_before = open_fd_count();
		use_build_tree_backends();
		ASSERT_EQ(uda_context_create(nullptr, &ctx), UDA_SUCCESS);
		uint32_t count = 8;
		uda_device *devices[8];
		ASSERT_EQ(uda_context_enumerate_devices(ctx, &count, devices), UDA_SUCCESS);
		for (uint32_t i = 0; i < count; i++) {
			uda_device_info info = {};
			info.type = UDA_STRUCTURE_TYPE_DEVICE_INFO;
			ASSERT_EQ(uda_device_get_info(devices[i], &info), UDA_SUCCESS);
			if (std::string(info.backend_name) == "system")
				device = devices[i];
		}
		ASSERT_NE(device, nullptr);
	}
	void TearDown() override
	{
		uda_surface_destroy(surface);
		uda_context_destroy(ctx);
		EXPECT_EQ(open_fd_count(), fds_before) << describe_open_fds();
	}

	uda_surface_create_info create_info(uint32_t width = 64, uint32_t height = 32, uint32_t buffers = 3)
	{
		device_usage = {device, &cpu_usage};
		uda_surface_create_info info = {};
		info.type = UDA_STRUCTURE_TYPE_SURFACE_CREATE_INFO;
		info.width = width;
		info.height = height;
		info.format = DRM_FORMAT_ABGR8888;
		info.device_count = 1;
		info.devices = &device_usage;
		info.buffer_count = buffers;
		return info;
	}
	// A buffer of a new size, which the surface negotiates anew.
	void expect_buffer_after_resize(uint32_t width, uint32_t height)
	{
		ASSERT_EQ(uda_surface_resize(surface, width, height), UDA_SUCCESS);
		uda_surface_buffer buffer = {};
		ASSERT_EQ(uda_surface_dequeue(surface, 0, &buffer), UDA_SUCCESS) << uda_context_get_error(ctx);
		EXPECT_EQ(buffer.width, width);
		EXPECT_EQ(buffer.height, height);
		EXPECT_EQ(uda_surface_cancel(surface, buffer.buffer_id), UDA_SUCCESS);
	}
	void create(uint32_t width = 64, uint32_t height = 32, uint32_t buffers = 3)
	{
		uda_surface_create_info info = create_info(width, height, buffers);
		ASSERT_EQ(uda_surface_create(ctx, &info, &surface), UDA_SUCCESS) << uda_context_get_error(ctx);
	}

	// Writes `value` into every pixel of the buffer.
	void fill(uda_allocation *allocation, uint32_t value)
	{
		void *pointer = nullptr;
		ASSERT_EQ(uda_allocation_map(allocation, UDA_ACCESS_WRITE, &pointer), UDA_SUCCESS);
		uda_allocation_metadata metadata = {};
		metadata.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA;
		ASSERT_EQ(uda_allocation_get_metadata(allocation, &metadata), UDA_SUCCESS);
		for (uint32_t y = 0; y < metadata.height; y++) {
			auto *row = reinterpret_cast<uint32_t *>(static_cast<uint8_t *>(pointer) + metadata.planes[0].offset +
			                                         y * metadata.planes[0].pitch);
			for (uint32_t x = 0; x < metadata.width; x++)
				row[x] = value;
		}
		ASSERT_EQ(uda_allocation_unmap(allocation), UDA_SUCCESS);
	}
	// Whether every pixel holds `value`.
	bool holds(uda_allocation *allocation, uint32_t value)
	{
		void *pointer = nullptr;
		if (uda_allocation_map(allocation, UDA_ACCESS_READ, &pointer) != UDA_SUCCESS)
			return false;
		uda_allocation_metadata metadata = {};
		metadata.type = UDA_STRUCTURE_TYPE_ALLOCATION_METADATA;
		uda_allocation_get_metadata(allocation, &metadata);
		bool all = true;
		for (uint32_t y = 0; y < metadata.height && all; y++) {
			auto *row = reinterpret_cast<const uint32_t *>(static_cast<uint8_t *>(pointer) +
			                                               metadata.planes[0].offset + y * metadata.planes[0].pitch);
			for (uint32_t x = 0; x < metadata.width; x++)
				all = all && row[x] == value;
		}
		uda_allocation_unmap(allocation);
		return all;
	}

	bool frame_fd_readable()
	{
		int fd = -1;
		EXPECT_EQ(uda_surface_get_frame_fd(surface, &fd), UDA_SUCCESS);
		pollfd entry = {fd, POLLIN, 0};
		return poll(&entry, 1, 0) == 1 && (entry.revents & POLLIN);
	}

	int fds_before = 0;
	uda_context *ctx = nullptr;
	uda_device *device = nullptr;
	uda_device_usage device_usage = {};
	uda_surface *surface = nullptr;
};

} // namespace uda_test

#endif
