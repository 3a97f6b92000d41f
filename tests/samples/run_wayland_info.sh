#!/usr/bin/env bash
# ctest: wayland-info (Debian's wayland-utils), an unmodified Wayland tool,
# sees uda-compositor as a normal compositor: every global at the version
# it implements, wl_shm's formats, the output's mode; linux-dmabuf at the
# version the compositor says it offers, or absent where it says why.
#   run_wayland_info.sh COMPOSITOR
set -uo pipefail
compositor=$1
command -v wayland-info >/dev/null || { echo "wayland-info is not installed (Debian: wayland-utils)"; exit 1; }
work=$(mktemp -d)
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work WAYLAND_DISPLAY=wayland-info-test
"$compositor" --socket $WAYLAND_DISPLAY --save none --size 640x360 >"$work/compositor.log" 2>&1 &
pid=$!
for _ in $(seq 100); do [[ -S $work/$WAYLAND_DISPLAY ]] && break; sleep 0.1; done
timeout 30 wayland-info >"$work/info.txt" 2>&1 || { cat "$work/info.txt" "$work/compositor.log"; echo "wayland-info failed"; exit 1; }
cat "$work/info.txt"
failed=0
expect() {
	grep -Eq "$1" "$work/info.txt" || { echo "missing: $1"; failed=1; }
}
expect "interface: 'wl_compositor', +version: +5,"
expect "interface: 'xdg_wm_base', +version: +2,"
expect "interface: 'wl_shm', +version: +1,"
for format in XR24 AR24 XB24 AB24; do expect "= '$format'"; done
expect "interface: 'wl_output', +version: +3,"
expect "width: 640 px, height: 360 px, refresh: 60.000 Hz"
expect "interface: 'uda_allocation_manager_v1', +version: +1,"
if version=$(grep -o "linux-dmabuf version [0-9]" "$work/compositor.log"); then
	expect "interface: 'zwp_linux_dmabuf_v1', +version: +${version##* },"
elif grep -q "no linux-dmabuf: " "$work/compositor.log"; then
	grep -q "zwp_linux_dmabuf_v1" "$work/info.txt" && { echo "linux-dmabuf listed, though the compositor left it out"; failed=1; }
	grep "no linux-dmabuf: " "$work/compositor.log"
else
	expect "interface: 'zwp_linux_dmabuf_v1', +version: +4,"
fi
((failed == 0)) && echo "wayland-info sees every global of uda-compositor at its version"
