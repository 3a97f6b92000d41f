#!/usr/bin/env bash
# Installs the build tree into a scratch prefix and builds a consumer
# against it twice: through find_package(uda) and through pkg-config.
# usage: check-install.sh BUILD_DIR SOURCE_DIR SCRATCH_DIR
set -euo pipefail
build=$1 source=$2 scratch=$3
rm -rf "$scratch"
prefix=$scratch/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

for f in include/uda/uda.h include/uda/uda_backend.h include/uda/uda_version.h; do
	test -f "$prefix/$f" || { echo "missing $f"; exit 1; }
done
libdir=$(dirname "$(find "$prefix" -name 'libuda.so.*.*' | head -n1)")
soname=$(objdump -p "$libdir"/libuda.so | awk '/SONAME/ {print $2}')
[[ $soname == libuda.so.0 ]] || { echo "unexpected soname '$soname'"; exit 1; }

cmake -S "$source/tests/install/consumer" -B "$scratch/cmake-consumer" -G Ninja \
	-DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$scratch/cmake-consumer" >/dev/null
LD_LIBRARY_PATH=$libdir "$scratch/cmake-consumer/consumer"

export PKG_CONFIG_PATH=$libdir/pkgconfig
# The consumer is C, built here with the flags pkg-config gives and no others.
cc -o "$scratch/pc-consumer" "$source/tests/install/consumer/consumer.c" $(pkg-config --cflags --libs uda)
LD_LIBRARY_PATH=$libdir "$scratch/pc-consumer"
echo "install ok: find_package and pkg-config consumers run"
