#!/usr/bin/env bash
# ctest: uda-compositor meets sixteen Wayland clients that break the rules
# (or walk along their edge), one way each (misbehaving_client.c), then a
# good one. Each bad one must get the protocol's answer (or lose its
# connection; the edge walker keeps it) while the compositor
# goes on: it serves the good client and ends with the descriptors it had
# before the first.
#   run_misbehaving.sh COMPOSITOR CLIENT MISBEHAVING_CLIENT [VULKAN_DRIVER_MANIFEST]
# With a driver manifest (uda-mock-vulkan's) the compositor and the bad
# clients run on that driver alone: a GPU that imports DMA-BUFs, so
# linux-dmabuf is offered and the bad-dmabuf client meets it. The good
# client keeps the environment's drivers (its EGL platform needs the
# Vulkan device that allocates for its GL).
set -uo pipefail
compositor=$1 client=$2 bad=$3
on_driver=()
[[ -n ${4:-} ]] && on_driver=(env VK_DRIVER_FILES="$4")
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work WAYLAND_DISPLAY=wayland-misbehaving
modes=(garbage-metadata small-fd unconfigured-buffer shrunk-pool flood malformed bad-dmabuf params-flood gone-mid-frame
	stall role-outlives-surface xdg-surface-first wm-base-first role-switch commit-flood huge-shm)
"${on_driver[@]}" "$compositor" --socket $WAYLAND_DISPLAY --output "$work" --save none >"$work/compositor.log" 2>&1 &
pid=$!
for _ in $(seq 100); do [[ -S $work/$WAYLAND_DISPLAY ]] && break; sleep 0.1; done
# The bad clients leave their proxies behind on purpose (they stop at the
# compositor's answer): their leaks are theirs, not the compositor's.
for mode in "${modes[@]}"; do
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "${on_driver[@]}" timeout 60 "$bad" "$mode" || { echo "the misbehaving client ($mode) did not get the answer it should"; cat "$work/compositor.log"; exit 1; }
	kill -0 $pid 2>/dev/null || { echo "the compositor died after: $mode"; cat "$work/compositor.log"; exit 1; }
done
timeout 60 "$client" --frames 3 --size 64x48 || { echo "the good client failed"; cat "$work/compositor.log"; exit 1; }
kill -TERM $pid
wait $pid
status=$?
cat "$work/compositor.log"
[[ $status == 0 ]] || { echo "the compositor exited $status"; exit 1; }
grep -q "window mapped: uda-client" "$work/compositor.log" || { echo "the good client's window never showed"; exit 1; }
grep -q "a 16384x16384 wl_shm buffer refused: larger than a texture" "$work/compositor.log" ||
	{ echo "the huge wl_shm buffer was not refused before memory was made for it"; exit 1; }
grep -Eq "([0-9]+) descriptors open after the clients, \1 before" "$work/compositor.log" ||
	{ echo "the compositor leaked descriptors"; exit 1; }
echo "the compositor answered ${#modes[@]} misbehaving clients, served the good one, leaked nothing"
