#!/usr/bin/env bash
# ctest: uda-demo in a fresh folder, under the Khronos validation layer;
# the EGL clients' buffers must reach the compositor zero-copy (uda's
# protocol); then its PNGs checked: uda-client's window pixel for pixel
# (read through the compositor's import of the client's own memory), and
# Weston's demo clients beside it where they are installed.
#   run_demo.sh UDA_DEMO CHECKER [UDA_DEMO_OPTION...]
# (--simple-egl-on-mesa under sanitizers: weston-simple-egl, built without
# them, cannot take the sanitized host; its frames then go through wl_shm.)
set -euo pipefail
demo=$1 checker=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
windows=1
for client in weston-simple-shm weston-simple-egl; do
	command -v $client >/dev/null && windows=$((windows + 1))
done
export XDG_RUNTIME_DIR=$work
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$demo" --frames 6 --size 160x120 --output frames "$@" 2>&1 | tee demo.log
if grep -q "Validation Error" demo.log; then
	echo "the validation layer found errors"
	exit 1
fi
# The EGL clients' frames must reach the compositor's device as they are,
# the wl_shm one copied.
grep -q "window mapped: uda-client (uda-client), 160x120, buffers through uda's protocol (zero-copy)" demo.log ||
	{ echo "uda-client's frames did not go zero-copy"; exit 1; }
if command -v weston-simple-egl >/dev/null && [[ " $* " != *" --simple-egl-on-mesa "* ]]; then
	grep -q "window mapped: simple-egl .*(zero-copy)" demo.log || { echo "weston-simple-egl's frames did not go zero-copy"; exit 1; }
fi
"$checker" frames 160 120 $windows 1 3 6
