#!/usr/bin/env bash
# uda-compositor with uda's protocol switched off, and uda-client on it: on
# a GPU whose Vulkan device imports DMA-BUFs the client's frames must take
# linux-dmabuf (version 4 feedback from uda) end to end. Run by nvidia.sh.
#   compositor_dmabuf.sh BUILD_DIR OUTPUT_DIR     (XDG_RUNTIME_DIR set)
set -uo pipefail
build=$1 output=$2
"$build"/samples/uda-compositor --socket wayland-hw --save 10 --output "$output" --no-uda-protocol &
pid=$!
for _ in $(seq 100); do [[ -S $XDG_RUNTIME_DIR/wayland-hw ]] && break; sleep 0.1; done
WAYLAND_DISPLAY=wayland-hw UDA_LOG=info "$build"/samples/uda-client --frames 30
status=$?
kill -TERM $pid
wait $pid
exit $status
