// Declarative capability sets for the C++ suites: build lists from plain
// values and read them back into the same form for comparison.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <vector>

#include <uda/uda_backend.h>

namespace uda_test
{

struct Cap {
	uint16_t vendor = UDA_VENDOR_NONE;
	uint16_t name = 0;
	uint32_t flags = 0;
	std::vector<uint8_t> payload;
	uint8_t owner = 0; // last byte of the owner UUID, LOCAL only

	bool operator==(const Cap &o) const
	{
		return vendor == o.vendor && name == o.name && flags == o.flags && payload == o.payload &&
		       owner == o.owner;
	}
	bool operator<(const Cap &o) const
	{
		return std::tie(vendor, name, flags, payload, owner) <
		       std::tie(o.vendor, o.name, o.flags, o.payload, o.owner);
	}
};

struct SetSpec {
	std::vector<Cap> caps;
	std::map<uda_constraint, uint64_t> constraints;

	bool operator==(const SetSpec &o) const { return caps == o.caps && constraints == o.constraints; }
	bool operator<(const SetSpec &o) const { return std::tie(caps, constraints) < std::tie(o.caps, o.constraints); }
};

inline std::vector<uint8_t> le_bytes(uint64_t v, int n)
{
	std::vector<uint8_t> out(n);
	for (int i = 0; i < n; i++)
		out[i] = static_cast<uint8_t>(v >> (8 * i));
	return out;
}

inline Cap layout(uint64_t modifier, uint32_t flags = UDA_CAPABILITY_FLAG_REQUIRED)
{
	return Cap{UDA_VENDOR_NONE, UDA_CAPABILITY_LAYOUT, flags, le_bytes(modifier, 8)};
}

inline Cap common(uda_capability_name name, uint32_t value, uint32_t flags = 0)
{
	return Cap{UDA_VENDOR_NONE, static_cast<uint16_t>(name), flags, le_bytes(value, 4)};
}

inline Cap vendor_cap(uint16_t vendor, uint16_t name, std::vector<uint8_t> payload, uint32_t flags = 0,
                      uint8_t owner = 0)
{
	return Cap{vendor, name, flags, std::move(payload), owner};
}

struct ContextDeleter {
	void operator()(uda_context *c) const { uda_context_destroy(c); }
};
struct ListDeleter {
	void operator()(uda_capability_set_list *l) const { uda_capability_set_list_destroy(l); }
};
struct AllocationDeleter {
	void operator()(uda_allocation *a) const { uda_allocation_destroy(a); }
};
using ContextPtr = std::unique_ptr<uda_context, ContextDeleter>;
using ListPtr = std::unique_ptr<uda_capability_set_list, ListDeleter>;
using AllocationPtr = std::unique_ptr<uda_allocation, AllocationDeleter>;

/* Core tests run on in-process test devices only: a bare context never
 * loads the backend modules that may be installed on the machine. */
inline uda_context_create_info bare_context_info()
{
	uda_context_create_info info = {};
	info.type = UDA_STRUCTURE_TYPE_CONTEXT_CREATE_INFO;
	info.flags = UDA_CONTEXT_CREATE_NO_BACKENDS;
	return info;
}

inline ContextPtr make_context()
{
	uda_context *ctx = nullptr;
	uda_context_create_info info = bare_context_info();
	EXPECT_EQ(uda_context_create(&info, &ctx), UDA_SUCCESS);
	return ContextPtr(ctx);
}

inline uda_capability to_public(const Cap &cap)
{
	uda_capability out = {};
	out.vendor = cap.vendor;
	out.name = cap.name;
	out.flags = cap.flags;
	out.length = static_cast<uint32_t>(cap.payload.size());
	out.payload = cap.payload.empty() ? nullptr : cap.payload.data();
	out.owner_uuid[15] = cap.owner;
	return out;
}

inline uda_result append_set(uda_capability_set_list *list, uda_context *ctx, const SetSpec &spec)
{
	uda_capability_set_builder *b = nullptr;
	uda_result r = uda_capability_set_builder_create(ctx, &b);
	for (const Cap &cap : spec.caps) {
		if (r != UDA_SUCCESS)
			break;
		uda_capability pub = to_public(cap);
		r = uda_capability_set_builder_add_capability(b, &pub);
	}
	for (const auto &[c, v] : spec.constraints) {
		if (r != UDA_SUCCESS)
			break;
		r = uda_capability_set_builder_set_constraint(b, c, v);
	}
	if (r == UDA_SUCCESS)
		r = uda_capability_set_list_append_set(list, b);
	uda_capability_set_builder_destroy(b);
	return r;
}

inline ListPtr make_list(uda_context *ctx, const std::vector<SetSpec> &specs)
{
	uda_capability_set_list *list = nullptr;
	EXPECT_EQ(uda_capability_set_list_create(ctx, &list), UDA_SUCCESS);
	for (const SetSpec &spec : specs)
		EXPECT_EQ(append_set(list, ctx, spec), UDA_SUCCESS) << uda_context_get_error(ctx);
	return ListPtr(list);
}

inline uint32_t count_of(const uda_capability_set_list *list)
{
	uint32_t n = 0;
	EXPECT_EQ(uda_capability_set_list_get_count(list, &n), UDA_SUCCESS);
	return n;
}

// Reads set i back; capabilities come out in the list's canonical order.
inline SetSpec read_set(const uda_capability_set_list *list, uint32_t i)
{
	SetSpec spec;
	uint32_t caps = 0;
	EXPECT_EQ(uda_capability_set_list_get_capability_count(list, i, &caps), UDA_SUCCESS);
	for (uint32_t k = 0; k < caps; k++) {
		uda_capability pub;
		EXPECT_EQ(uda_capability_set_list_get_capability(list, i, k, &pub), UDA_SUCCESS);
		Cap cap{pub.vendor, pub.name, pub.flags, {}, 0};
		const uint8_t *p = static_cast<const uint8_t *>(pub.payload);
		cap.payload.assign(p, p + pub.length);
		if (pub.flags & UDA_CAPABILITY_FLAG_LOCAL)
			cap.owner = pub.owner_uuid[15];
		spec.caps.push_back(cap);
	}
	for (int c = 0; c < UDA_CONSTRAINT_COUNT; c++) {
		bool present = false;
		uint64_t value = 0;
		EXPECT_EQ(
		    uda_capability_set_list_get_constraint(list, i, static_cast<uda_constraint>(c), &present, &value),
		    UDA_SUCCESS);
		if (present)
			spec.constraints[static_cast<uda_constraint>(c)] = value;
	}
	return spec;
}

inline std::vector<SetSpec> read_list(const uda_capability_set_list *list)
{
	std::vector<SetSpec> out;
	for (uint32_t i = 0; i < count_of(list); i++)
		out.push_back(read_set(list, i));
	return out;
}

inline ListPtr intersect(const uda_capability_set_list *a, const uda_capability_set_list *b)
{
	uda_capability_set_list *out = nullptr;
	EXPECT_EQ(uda_capability_set_list_intersect(a, b, &out), UDA_SUCCESS);
	return ListPtr(out);
}

inline std::vector<uint64_t> modifiers_of(const uda_capability_set_list *list)
{
	std::vector<uint64_t> out;
	for (uint32_t i = 0; i < count_of(list); i++) {
		uda_capability cap;
		EXPECT_EQ(uda_capability_set_list_get_layout(list, i, &cap), UDA_SUCCESS);
		uint64_t m = 0;
		for (int k = 0; k < 8; k++)
			m |= static_cast<uint64_t>(static_cast<const uint8_t *>(cap.payload)[k]) << (8 * k);
		out.push_back(m);
	}
	return out;
}

} // namespace uda_test
