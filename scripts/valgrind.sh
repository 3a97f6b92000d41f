#!/usr/bin/env bash
# Runs the core, backend and GBM backend test programs under valgrind's memcheck and
# fails on any definitely or indirectly lost byte of uda's (drivers' own
# are suppressed in tests/sanitizer/valgrind.supp, each with its reason)
# and on any invalid read or write. Uses the release build in build/.
# Prints the whole log of every program that fails.
#
#   scripts/valgrind.sh            every program below, two at a time
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
[[ -x build/tests/test-context ]] || { echo "build first (cmake --build build)"; exit 1; }
export UDA_BACKEND_PATH=$root/build/manifests/backends.d UDA_BACKEND_NO_DEFAULT_PATHS=1
programs=(test-context test-capability-set test-intersect test-serialize test-negotiate test-formats
	test-bad-arguments test-backend-loading test-system-backend test-surface test-vulkan-gl test-bad-gpu-imports
	test-faults test-gbm-backend test-dma-heap test-wayland-feedback test-compositor-feedback test-feedback-protocol
	test-uda-protocol test-drm-backend test-v4l2-probe test-v4l2-capabilities test-v4l2-device
	test-vulkan-video)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run() {
	valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect --error-exitcode=99 \
		--suppressions="$root/tests/sanitizer/valgrind.supp" --gen-suppressions=all -q \
		"build/tests/$1" >"$out/$1.log" 2>&1
	echo "$?" >"$out/$1.rc"
}
export -f run
export root out
printf '%s\n' "${programs[@]}" | xargs -P 2 -I{} bash -c 'run {}'
failed=0
for p in "${programs[@]}"; do
	rc=$(cat "$out/$p.rc")
	if [[ $rc != 0 ]]; then
		# The whole log: which assertion fired, or which error memcheck
		# reported, is in it, and $out goes with the script.
		echo "== $p: exit $rc; its whole log:"
		cat "$out/$p.log"
		echo "== end of $p's log"
		failed=1
	else
		echo "== $p: no leak, no invalid access"
	fi
done
((failed == 0)) && echo "valgrind ok"
exit $failed
