#!/usr/bin/env bash
# Fails when a tracked C++ file is not formatted as .clang-format says (Google style, 100
# columns). CTest runs it as format_check. Fix with: git ls-files '*.cc' '*.h' | xargs clang-format-14 -i
set -euo pipefail
cd "$(dirname "$0")/.."
format=$(command -v clang-format-14 || command -v clang-format || true)
if [[ -z "$format" ]]; then
  echo "format check: clang-format-14 missing (tools/install-deps.sh installs it)" >&2
  exit 1
fi
if git rev-parse --git-dir >/dev/null 2>&1; then
  files=$(git ls-files '*.cc' '*.h')
else
  files=$(find common wire query index storage server tools tests -name '*.cc' -o -name '*.h' | grep -v node_modules)
fi
# shellcheck disable=SC2086
"$format" --dry-run --Werror $files
echo "format check: ok"
