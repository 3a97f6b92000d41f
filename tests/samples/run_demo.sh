#!/usr/bin/env bash
# ctest: uda-demo in a fresh folder, under the Khronos validation layer;
# then its PNGs checked: uda-client's window pixel for pixel, and Weston's
# demo clients beside it where they are installed.
#   run_demo.sh UDA_DEMO CHECKER
set -euo pipefail
demo=$1 checker=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
windows=1
for client in weston-simple-shm weston-simple-egl; do
	command -v $client >/dev/null && windows=$((windows + 1))
done
export XDG_RUNTIME_DIR=$work
VK_INSTANCE_LAYERS=VK_LAYER_KHRONOS_validation "$demo" --frames 6 --size 160x120 --output frames 2>&1 | tee demo.log
if grep -q "Validation Error" demo.log; then
	echo "the validation layer found errors"
	exit 1
fi
"$checker" frames 160 120 $windows 1 3 6
