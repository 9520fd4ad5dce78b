#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine and runs every test tier: unit, e2e,
# golden, docs, dashboards/rules, packaging and the Soft-RoCE VM suite.
# Build: ASan+UBSan, warnings as errors.
set -euo pipefail
cd "$(dirname "$0")/.."
./setup.sh
BUILD_DIR=${BUILD_DIR:-build-test}
# RNIC_TEST_DEB: the packaging tier also builds, installs and runs the .deb.
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DRNIC_SANITIZE=ON -DRNIC_WERROR=ON -DRNIC_TEST_DEB=ON
cmake --build "$BUILD_DIR" -j2
# LeakSanitizer would flag one-time allocations of system libraries at exit.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
ctest --test-dir "$BUILD_DIR" --output-on-failure -j2 "$@"
# Fuzz smoke runs: a second, clang-built tree with only the fuzz targets.
FUZZ_DIR=${FUZZ_DIR:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$FUZZ_DIR" -G Ninja \
  -DCMAKE_BUILD_TYPE=Debug -DRNIC_FUZZ=ON -DRNIC_BUILD_TESTS=OFF
cmake --build "$FUZZ_DIR" --target rnic_fuzz -j2
ctest --test-dir "$FUZZ_DIR" -L fuzz --output-on-failure -j2
