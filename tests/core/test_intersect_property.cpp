// Property tests over random capability-set lists (fixed seeds): the
// library's intersection is compared with a small reference model written
// straight from DESIGN.md's rules, and checked for the algebraic
// properties negotiation relies on.
#include <algorithm>
#include <optional>
#include <random>
#include <set>

#include "set_spec.hpp"

using namespace uda_test;

namespace
{

enum class Merge { Lcm, Min, Max };

Merge merge_of(uda_constraint c)
{
	switch (c) {
	case UDA_CONSTRAINT_ADDRESS_ALIGNMENT:
	case UDA_CONSTRAINT_PITCH_ALIGNMENT:
	case UDA_CONSTRAINT_OFFSET_ALIGNMENT:
	case UDA_CONSTRAINT_SIZE_ALIGNMENT:
	case UDA_CONSTRAINT_PLANE_ALIGNMENT:
		return Merge::Lcm;
	case UDA_CONSTRAINT_MIN_PITCH:
	case UDA_CONSTRAINT_MIN_SIZE:
		return Merge::Max;
	default:
		return Merge::Min;
	}
}

bool is_layout(const Cap &c)
{
	return c.vendor == UDA_VENDOR_NONE &&
	       (c.name == UDA_CAPABILITY_LAYOUT || c.name == UDA_CAPABILITY_LAYOUT_OPAQUE);
}

bool local(const Cap &c)
{
	return c.flags & UDA_CAPABILITY_FLAG_LOCAL;
}

// Identity of a capability: everything but the REQUIRED flag.
bool same(const Cap &a, const Cap &b)
{
	return a.vendor == b.vendor && a.name == b.name && a.payload == b.payload && local(a) == local(b) &&
	       (!local(a) || a.owner == b.owner);
}

SetSpec normalized(SetSpec s)
{
	std::sort(s.caps.begin(), s.caps.end());
	return s;
}

bool consistent(const std::map<uda_constraint, uint64_t> &c)
{
	auto get = [&](uda_constraint k) -> std::optional<uint64_t> {
		auto it = c.find(k);
		return it == c.end() ? std::nullopt : std::optional<uint64_t>(it->second);
	};
	uint64_t min_pitch = get(UDA_CONSTRAINT_MIN_PITCH).value_or(1);
	if (auto max_pitch = get(UDA_CONSTRAINT_MAX_PITCH)) {
		uint64_t align = get(UDA_CONSTRAINT_PITCH_ALIGNMENT).value_or(1);
		unsigned __int128 lowest = ((unsigned __int128)min_pitch + align - 1) / align * align;
		if (lowest > *max_pitch)
			return false;
	}
	auto max_size = get(UDA_CONSTRAINT_MAX_SIZE);
	auto size_align = get(UDA_CONSTRAINT_SIZE_ALIGNMENT);
	if (max_size && size_align && *size_align > *max_size)
		return false;
	auto min_size = get(UDA_CONSTRAINT_MIN_SIZE);
	if (max_size && min_size) {
		uint64_t align = size_align.value_or(1);
		unsigned __int128 lowest = ((unsigned __int128)*min_size + align - 1) / align * align;
		if (lowest > *max_size)
			return false;
	}
	return true;
}

// DESIGN.md's intersect(set A, set B), written independently of core/.
std::optional<SetSpec> ref_pair(const SetSpec &a, const SetSpec &b)
{
	SetSpec out;
	for (const Cap &ca : a.caps) {
		if (local(ca))
			continue;
		auto it = std::find_if(b.caps.begin(), b.caps.end(), [&](const Cap &cb) { return same(ca, cb); });
		if (it == b.caps.end()) {
			if (ca.flags & UDA_CAPABILITY_FLAG_REQUIRED)
				return std::nullopt;
			continue;
		}
		Cap merged = ca;
		merged.flags |= it->flags;
		out.caps.push_back(merged);
	}
	for (const Cap &cb : b.caps) {
		if (local(cb) || !(cb.flags & UDA_CAPABILITY_FLAG_REQUIRED))
			continue;
		if (std::none_of(a.caps.begin(), a.caps.end(), [&](const Cap &ca) { return same(ca, cb); }))
			return std::nullopt;
	}
	for (const SetSpec *side : {&a, &b}) {
		for (const Cap &c : side->caps) {
			if (!local(c))
				continue;
			auto it =
			    std::find_if(out.caps.begin(), out.caps.end(), [&](const Cap &o) { return same(o, c); });
			if (it == out.caps.end())
				out.caps.push_back(c);
			else
				it->flags |= c.flags;
		}
	}
	out.constraints = a.constraints;
	for (const auto &[k, v] : b.constraints) {
		auto it = out.constraints.find(k);
		if (it == out.constraints.end()) {
			out.constraints[k] = v;
			continue;
		}
		switch (merge_of(k)) {
		case Merge::Lcm: {
			unsigned __int128 l = (unsigned __int128)(it->second / std::__gcd(it->second, v)) * v;
			if (l > UINT64_MAX)
				return std::nullopt;
			it->second = (uint64_t)l;
			break;
		}
		case Merge::Min:
			it->second = std::min(it->second, v);
			break;
		case Merge::Max:
			it->second = std::max(it->second, v);
			break;
		}
	}
	if (!consistent(out.constraints))
		return std::nullopt;
	if (std::count_if(out.caps.begin(), out.caps.end(), is_layout) != 1)
		return std::nullopt;
	return normalized(out);
}

std::vector<SetSpec> ref_list(const std::vector<SetSpec> &a, const std::vector<SetSpec> &b)
{
	std::vector<SetSpec> out;
	for (const SetSpec &sa : a)
		for (const SetSpec &sb : b)
			if (auto r = ref_pair(sa, sb); r && std::find(out.begin(), out.end(), *r) == out.end())
				out.push_back(*r);
	return out;
}

std::vector<SetSpec> normalized_list(const uda_capability_set_list *list)
{
	std::vector<SetSpec> out = read_list(list);
	for (SetSpec &s : out)
		s = normalized(s);
	return out;
}

class RandomLists
{
      public:
	explicit RandomLists(uint32_t seed) : rng(seed) {}

	// A list of up to max_sets random sets; sets the library rejects as
	// contradictory are skipped, as a backend would skip them.
	ListPtr make(uda_context *ctx, int max_sets)
	{
		uda_capability_set_list *list = nullptr;
		EXPECT_EQ(uda_capability_set_list_create(ctx, &list), UDA_SUCCESS);
		int n = pick(0, max_sets);
		for (int i = 0; i < n; i++)
			(void)append_set(list, ctx, random_set());
		return ListPtr(list);
	}

      private:
	std::mt19937 rng;

	int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
	bool chance(int percent) { return pick(1, 100) <= percent; }

	SetSpec random_set()
	{
		SetSpec s;
		s.caps.push_back(layout(pick(0, 5), chance(70) ? UDA_CAPABILITY_FLAG_REQUIRED : 0));
		std::vector<Cap> pool = {
		    common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_DMA_BUF),
		    common(UDA_CAPABILITY_HANDLE, UDA_HANDLE_TYPE_OPAQUE_FD),
		    common(UDA_CAPABILITY_PLACEMENT, UDA_PLACEMENT_DEVICE_LOCAL),
		    common(UDA_CAPABILITY_CPU_ACCESS, UDA_CPU_ACCESS_MAPPABLE),
		    vendor_cap(0x10de, 1, {1, 2, 3}),
		    vendor_cap(0x10de, 1, {1, 2, 4}),
		    vendor_cap(0x1002, 2, {}),
		    vendor_cap(0x8086, 3, {7, 7, 7, 7, 7, 7, 7, 7, 7}),
		};
		for (Cap c : pool) {
			if (!chance(45))
				continue;
			if (chance(15))
				c.flags |= UDA_CAPABILITY_FLAG_REQUIRED;
			s.caps.push_back(c);
		}
		if (chance(30))
			s.caps.push_back(vendor_cap(0x10de, 9, {static_cast<uint8_t>(pick(0, 1))},
			                            UDA_CAPABILITY_FLAG_LOCAL, static_cast<uint8_t>(pick(1, 3))));
		static const uint64_t pitch_aligns[] = {1, 2, 3, 16, 48, 64, 256, 1000};
		static const uint64_t pow2[] = {1, 64, 256, 4096, 65536};
		if (chance(60))
			s.constraints[UDA_CONSTRAINT_PITCH_ALIGNMENT] = pitch_aligns[pick(0, 7)];
		if (chance(40))
			s.constraints[UDA_CONSTRAINT_OFFSET_ALIGNMENT] = pitch_aligns[pick(0, 7)];
		if (chance(50))
			s.constraints[UDA_CONSTRAINT_ADDRESS_ALIGNMENT] = pow2[pick(0, 4)];
		if (chance(30))
			s.constraints[UDA_CONSTRAINT_SIZE_ALIGNMENT] = pow2[pick(0, 4)];
		if (chance(40))
			s.constraints[UDA_CONSTRAINT_MAX_PITCH] = static_cast<uint64_t>(pick(1, 64)) * 256;
		if (chance(30))
			s.constraints[UDA_CONSTRAINT_MIN_PITCH] = static_cast<uint64_t>(pick(0, 32)) * 256;
		if (chance(30))
			s.constraints[UDA_CONSTRAINT_MAX_WIDTH] = static_cast<uint64_t>(pick(1, 16)) * 1024;
		if (chance(20))
			s.constraints[UDA_CONSTRAINT_MAX_PLANES] = static_cast<uint64_t>(pick(1, 4));
		if (chance(20))
			s.constraints[UDA_CONSTRAINT_MAX_SIZE] = static_cast<uint64_t>(pick(1, 1 << 20)) * 64;
		if (chance(20))
			s.constraints[UDA_CONSTRAINT_MIN_SIZE] = static_cast<uint64_t>(pick(0, 1 << 20)) * 64;
		return s;
	}
};

constexpr uint32_t kSeeds = 2000;

// One test per property, each looping over the seeds (one ctest entry
// each rather than thousands); SCOPED_TRACE names the failing seed.
class IntersectProperty : public ::testing::Test
{
      protected:
	ContextPtr ctx = make_context();
};

#define FOR_EACH_SEED(seed)                                                                                            \
	for (uint32_t seed = 1; seed <= kSeeds; seed++)                                                                \
		if (SCOPED_TRACE("seed " + std::to_string(seed)); true)

TEST_F(IntersectProperty, MatchesReferenceModel)
{
	uint32_t results = 0, empty = 0;
	FOR_EACH_SEED(seed)
	{
		RandomLists gen(seed);
		auto a = gen.make(ctx.get(), 24);
		auto b = gen.make(ctx.get(), 24);
		auto r = intersect(a.get(), b.get());
		EXPECT_EQ(normalized_list(r.get()), ref_list(normalized_list(a.get()), normalized_list(b.get())));
		results += count_of(r.get());
		empty += count_of(r.get()) == 0;
	}
	// The generator must exercise both outcomes, or the comparison says little.
	EXPECT_GT(results, kSeeds * 5);
	EXPECT_GT(empty, 0u);
	printf("%u result sets over %u seeds, %u empty intersections\n", results, kSeeds, empty);
}

// Every result set satisfies both inputs: it comes from a pair whose
// constraints it is at least as strict as, and its non-LOCAL capabilities
// are present in both.
TEST_F(IntersectProperty, ResultsAreValidForBothInputs)
{
	FOR_EACH_SEED(seed)
	{
		RandomLists gen(seed + 1000000);
		auto a = gen.make(ctx.get(), 16);
		auto b = gen.make(ctx.get(), 16);
		auto r = intersect(a.get(), b.get());
		auto sa = read_list(a.get()), sb = read_list(b.get());
		auto strict_enough = [](const SetSpec &res, const SetSpec &src) {
			for (const auto &[k, v] : src.constraints) {
				auto it = res.constraints.find(k);
				if (it == res.constraints.end())
					return false;
				switch (merge_of(k)) {
				case Merge::Lcm:
					if (it->second % v)
						return false;
					break;
				case Merge::Min:
					if (it->second > v)
						return false;
					break;
				case Merge::Max:
					if (it->second < v)
						return false;
					break;
				}
			}
			return true;
		};
		auto has = [](const SetSpec &s, const Cap &c) {
			return std::any_of(s.caps.begin(), s.caps.end(), [&](const Cap &o) { return same(o, c); });
		};
		for (const SetSpec &res : read_list(r.get())) {
			bool found = false;
			for (const SetSpec &x : sa) {
				for (const SetSpec &y : sb) {
					if (!strict_enough(res, x) || !strict_enough(res, y))
						continue;
					bool caps_ok = std::all_of(res.caps.begin(), res.caps.end(), [&](const Cap &c) {
						return local(c) ? has(x, c) || has(y, c) : has(x, c) && has(y, c);
					});
					found = found || caps_ok;
				}
			}
			EXPECT_TRUE(found);
			EXPECT_EQ(std::count_if(res.caps.begin(), res.caps.end(), is_layout), 1);
		}
	}
}

TEST_F(IntersectProperty, FoldOrderDoesNotChangeTheSetOfResults)
{
	FOR_EACH_SEED(seed)
	{
		RandomLists gen(seed + 2000000);
		auto a = gen.make(ctx.get(), 12);
		auto b = gen.make(ctx.get(), 12);
		auto c = gen.make(ctx.get(), 12);
		auto as_set = [](const ListPtr &l) {
			auto v = normalized_list(l.get());
			return std::set<SetSpec>(v.begin(), v.end());
		};
		auto abc = as_set(intersect(intersect(a.get(), b.get()).get(), c.get()));
		auto bca = as_set(intersect(intersect(b.get(), c.get()).get(), a.get()));
		auto cab = as_set(intersect(c.get(), intersect(a.get(), b.get()).get()));
		auto acb = as_set(intersect(a.get(), intersect(c.get(), b.get()).get()));
		EXPECT_EQ(abc, bca);
		EXPECT_EQ(abc, cab);
		EXPECT_EQ(abc, acb);
	}
}

TEST_F(IntersectProperty, SelfIntersectionKeepsEverySet)
{
	FOR_EACH_SEED(seed)
	{
		RandomLists gen(seed + 3000000);
		auto a = gen.make(ctx.get(), 16);
		auto self = normalized_list(intersect(a.get(), a.get()).get());
		for (const SetSpec &s : normalized_list(a.get()))
			EXPECT_NE(std::find(self.begin(), self.end(), s), self.end());
	}
}

} // namespace
