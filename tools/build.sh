#!/usr/bin/env bash
# Configures (RelWithDebInfo, Ninja) and builds everything into $BUILD_DIR (default build/).
# Extra arguments go to the configure step, e.g. tools/build.sh -DCAIRN_SANITIZE=ON
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}

configure=(cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo)
# The generator can only be chosen when the build directory is first configured.
[[ -f "$BUILD_DIR/CMakeCache.txt" ]] || configure+=(-G Ninja)
"${configure[@]}" "$@"
cmake --build "$BUILD_DIR" -j "$(nproc)"
