#!/usr/bin/env bash
# clang-tidy over every first-party .cc file (.clang-tidy: a small set of bug-finding checks, every
# finding an error), with the flags of a build's compile_commands.json. CTest runs it as the test
# `lint` (label lint), so CI (tools/test.sh) fails on any finding. Headers are checked through the
# files that include them (.clang-tidy's HeaderFilterRegex); a finding in one is shown once.
#
#   tools/lint.sh [BUILD_DIR] [FILE_REGEX]
#
# BUILD_DIR: default $BUILD_DIR, else build/ (configured by tools/build.sh, and built, for the
# cache below). FILE_REGEX: only the files whose path (relative to the repository) matches, e.g.
# '^server/cursor/'. LINT_JOBS: clang-tidy processes at once (default nproc).
#
# A whole run takes about 20 CPU-minutes (10 minutes on 2 cores), so a file that passed is not
# checked again until something it depends on changes (a cache keyed by content hashes, as
# ccache's, in $LINT_CACHE_DIR, default ~/.cache/cairn-lint; LINT_CACHE_DIR=off checks every
# file): tools/lint.py says how, and how the g++ build's commands are adapted to clang-tidy.
# Exits 77 (CTest's "skipped") with one line when clang-tidy-14 is missing (tools/install-deps.sh
# installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
tidy=$(command -v clang-tidy-14 || true)
if [[ -z "$tidy" ]]; then
  echo "lint: skipped, clang-tidy-14 is missing (tools/install-deps.sh installs it)"
  exit 77
fi
exec python3 tools/lint.py "$tidy" "${1:-${BUILD_DIR:-build}}" "${2:-}"
