#!/usr/bin/env bash
# Runs the test programs that use Vulkan a second time under the Vulkan
# loader and Khronos validation layer of Debian's testing suite (forky,
# 1.4.363 when this was written), unpacked into build-vulkan/ and put in
# front of the system's for those programs only. Nothing is installed.
#
#   scripts/newer-vulkan.sh
#
# Why: Debian 12's validation layer (1.3.239) predates the final Vulkan
# Video encode and AV1 extensions and takes their structures for errors,
# so test-vulkan-video's VulkanEncodeAndAv1.* run unvalidated under it;
# Debian 13's (1.4.309) predates VP9 decode (1.4.317). Here they must be
# validated (UDA_TEST_REQUIRE_VALIDATION=1), and every other test of
# Vulkan use gets a second, newer layer's reading (1.4.363's found a query
# Debian 12's let pass).
#
# Why testing rather than a release: no Debian release has a layer that
# knows VP9 decode yet. Testing moves, so a newer layer may one day find
# something new in code that did not change: that is a finding, as the
# first run's was, not noise. When a release has a new enough layer, name
# it here instead.
#
# The layer is built for testing's C library and C++ library, so each
# program runs under that C library's own dynamic loader, invoked with the
# unpacked libraries first (ld.so --library-path): the programs and uda's
# modules are Debian 12's builds, which a newer C library runs; lavapipe
# and the rest still come from the system.
#
# A stage of scripts/bootstrap.sh test. Where the suite's lists cannot be
# fetched (no network) the script says so and exits 0: the system's layer
# has run the rest. Any other failure to fetch or unpack fails it.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=lib/debian-unpack.sh
source scripts/lib/debian-unpack.sh
[[ -x build/tests/test-vulkan-video ]] || {
	echo "newer-vulkan: build/ is not built (scripts/bootstrap.sh builds it)" >&2
	exit 2
}

prefix=$root/build-vulkan
libdir=$prefix/root/usr/lib/x86_64-linux-gnu
ldso=$prefix/root/usr/lib64/ld-linux-x86-64.so.2
unpacked=0
suite=forky
debian_unpack "$suite" "$prefix" libc6 libstdc++6 libgcc-s1 libvulkan1 vulkan-validationlayers || unpacked=$?
debian_unpack_settle newer-vulkan "$suite" "$unpacked" "Vulkan loader and layer" \
	"the system's layer ran the suite, encode, AV1 and VP9 unvalidated"
echo "newer-vulkan: Vulkan loader and validation layer" \
	"$(debian_unpacked_version "$prefix" vulkan-validationlayers) from Debian $suite, in build-vulkan/"

passed=0
failed=0
# run NAME [VAR=VALUE...] -- PROGRAM [ARG...]: a program of build/tests
# under the newer loader and layer, its output in build-vulkan/NAME.log.
# It fails on a non-zero exit, a skipped test, or, where $expect is set,
# output without that pattern.
run() {
	local name=$1 variables=()
	shift
	while [[ $1 != -- ]]; do
		variables+=("$1")
		shift
	done
	shift
	local program=$root/build/tests/$1
	shift
	local log=$prefix/$name.log
	if (cd build/tests && env "${variables[@]}" VK_LAYER_PATH="$prefix/root/usr/share/vulkan/explicit_layer.d" \
		UDA_BACKEND_PATH="$root/build/manifests/backends.d" UDA_BACKEND_NO_DEFAULT_PATHS=1 \
		"$ldso" --library-path "$libdir" "$program" "$@") >"$log" 2>&1 &&
		! grep -q '\[  SKIPPED \]' "$log" && { [[ -z ${expect:-} ]] || grep -q "$expect" "$log"; }; then
		passed=$((passed + 1))
		echo "newer-vulkan: passed: $name ($(grep -o '\[  PASSED  \] [0-9]* tests\?' "$log" | tail -n 1))"
	else
		failed=$((failed + 1))
		echo "newer-vulkan: FAILED: $name" >&2
		tail -n 40 "$log" >&2
	fi
}

mock=$root/build/tests/support/mock_vulkan/uda_mock_vulkan_icd.json
# uda-mock-vulkan: decode, encode and AV1 images, each test validated.
run test-vulkan-video UDA_TEST_REQUIRE_VALIDATION=1 -- test-vulkan-video \
	--gtest_filter='VulkanVideo.*:VulkanEncodeAndAv1.*:VulkanVp9.*'
for decode in distinct optimal coincide; do
	expect='decode output made' run "test-vulkan-video-driver-on-mock-$decode" \
		VK_DRIVER_FILES="$mock" UDA_MOCK_VULKAN_DECODE=$decode -- test-vulkan-video \
		--gtest_filter='VulkanVideoDriver.*'
done
expect='encode input made' run test-vulkan-video-encode-driver-on-mock UDA_TEST_REQUIRE_VALIDATION=1 \
	VK_DRIVER_FILES="$mock" -- test-vulkan-video --gtest_filter='VulkanVideoEncodeDriver.*'
expect='VP9 decode output made' run test-vulkan-video-vp9-driver-on-mock UDA_TEST_REQUIRE_VALIDATION=1 \
	VK_DRIVER_FILES="$mock" -- test-vulkan-video --gtest_filter='VulkanVideoVp9Driver.*'
# lavapipe (the system's Mesa): Vulkan with GL, imports, faults, threads,
# the layer in an application's own device, the EGL platform's consumers.
for program in test-vulkan-gl test-bad-gpu-imports test-faults test-usage-change test-threads test-layer-import; do
	run "$program" -- "$program"
done
# The one test that skips on llvmpipe (it takes no BGRA memory from
# Vulkan) is left out, since a skip fails a run here.
run test-egl-platform -- test-egl-platform --gtest_filter='-EglPlatform.ArgbWindowFramesLieInMemoryBlueFirst'

echo "newer-vulkan: $passed passed, $failed failed"
((failed == 0))
