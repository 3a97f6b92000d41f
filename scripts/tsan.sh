#!/usr/bin/env bash
# Builds with ThreadSanitizer and runs the tests that use threads: the
# core's per-thread error slots, the eight-thread stress test over the
# system, Vulkan and GL backends, uda_surface's producer and consumer
# threads, and a V4L2 node's buffers made and freed from four threads
# (recorded drivers), decode outputs made and shared from four threads
# over uda-mock-vulkan (instrumented too), and two Wayland windows of the
# EGL platform swapped on two threads against Weston. Mesa's drivers are not
# instrumented, so
# races inside them are not looked for; uda's own locks and data are.
#
#   scripts/tsan.sh [ITERATIONS]      (default 100 per thread)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
iterations=${1:-100}
cmake -S . -B build-tsan -G Ninja -DUDA_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo -DUDA_SANITIZE=thread >/dev/null
cmake --build build-tsan -j "$(nproc)" --target test-context test-threads test-surface test-v4l2-device \
	test-vulkan-video uda-mock-vulkan uda-backend-system uda-backend-vulkan uda-backend-gl uda-backend-drm \
	uda-backend-v4l2 uda-backend-dma-heap test-wayland-client uda-egl-platform-wayland uda-egl-platform \
	uda-egl-host >/dev/null
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/sanitizer/tsan.supp"
export UDA_BACKEND_PATH=$root/build-tsan/manifests/backends.d UDA_BACKEND_NO_DEFAULT_PATHS=1
export UDA_TEST_THREAD_ITERATIONS=$iterations
build-tsan/tests/test-context
build-tsan/tests/test-threads
build-tsan/tests/test-surface
build-tsan/tests/test-v4l2-device --gtest_filter='V4l2Device.BuffersComeAndGo*'
build-tsan/tests/test-vulkan-video --gtest_filter='VulkanVideo.DecodeOutputsComeAndGo*'
# Through ctest, which gives it Weston and the platform's manifests.
(cd build-tsan && ctest --output-on-failure -R 'WaylandClientTest.TwoWindowsSwapOnTwoThreadsAtOnce')
echo "tsan ok"
