#!/usr/bin/env bash
# Configures (RelWithDebInfo, Ninja) and builds everything into $BUILD_DIR (default build/), or
# only $BUILD_TARGETS (space-separated) when set. Extra arguments go to the configure step, e.g.
#   BUILD_DIR=build-asan BUILD_TARGETS=cairnd tools/build.sh -DCAIRN_SANITIZE=ON
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}

configure=(cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo)
# The generator can only be chosen when the build directory is first configured.
[[ -f "$BUILD_DIR/CMakeCache.txt" ]] || configure+=(-G Ninja)
"${configure[@]}" "$@"
targets=()
for target in ${BUILD_TARGETS:-}; do targets+=(--target "$target"); done
cmake --build "$BUILD_DIR" -j "$(nproc)" "${targets[@]}"
