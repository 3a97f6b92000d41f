#!/usr/bin/env bash
# Builds the libFuzzer targets with clang under ASan+UBSan and runs each for
# a bounded time on a scratch copy of its checked-in corpus.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60, all)
#
# A crash leaves its reproducer in build-fuzz/findings/<target>/; copy it
# into tests/fuzz/corpus/<target>/ so ctest replays it from then on.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(capability_set_list allocation_metadata backend_manifest import drm_in_formats layer_pnext
	dmabuf_feedback dmabuf_import v4l2_driver vulkan_image_params compositor_requests)

if ! command -v clang >/dev/null || ! dpkg-query -W libclang-rt-14-dev >/dev/null 2>&1; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
fi

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DUDA_BUILD_FUZZERS=ON -DUDA_SANITIZE=address,undefined \
	-DUDA_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j "$(nproc)" >/dev/null

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
status=0
for target in "${targets[@]}"; do
	work=build-fuzz/corpus-work/$target
	findings=build-fuzz/findings/$target
	rm -rf "$work"
	mkdir -p "$work" "$findings"
	cp tests/fuzz/corpus/"$target"/* "$work"/
	echo "== fuzz $target for ${seconds}s"
	if ! build-fuzz/tests/fuzz/uda-fuzz-"$target" -max_total_time="$seconds" -max_len=16384 \
		-artifact_prefix="$findings/" -print_final_stats=1 "$work" 2>build-fuzz/fuzz-"$target".log; then
		status=1
		tail -n 40 build-fuzz/fuzz-"$target".log
	fi
	grep -E "stat::number_of_executed_units|stat::peak_rss_mb" build-fuzz/fuzz-"$target".log || true
done
exit $status
