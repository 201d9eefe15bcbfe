#!/usr/bin/env bash
# Installs what building and testing Cairn needs on a fresh Debian 12 machine.
# Idempotent and quick when everything is present: apt runs only if a package is missing,
# `npm ci` only if tests/node_modules is missing or older than tests/package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  g++ cmake ninja-build pkg-config
  librocksdb-dev libbson-dev libmongoc-dev
  libboost-dev libboost-program-options-dev libspdlog-dev libyaml-cpp-dev libpcre2-dev libicu-dev libstemmer-dev
  libintelrdfpmath-dev libssl-dev
  libgtest-dev libgmock-dev
  # pytest: libcairn's Python package is tested with it (tests/embedded/python).
  python3 python3-pymongo python3-pytest
  # The fuzz targets and the sanitizer builds (tools/fuzz.sh, tools/sanitize.sh): clang with its
  # sanitizer and libFuzzer runtimes, llvm-symbolizer for the reports' stacks, and ccache so
  # rebuilds of the same sources in several build directories come from its cache.
  clang-14 libclang-rt-14-dev llvm-14 ccache
  # Formatting (tools/check_format.sh, a CTest test) and clang-tidy (.clang-tidy).
  clang-format-14 clang-tidy-14
  # The container image check (docker/test_image.sh): podman with runc (crun fails on these
  # hosts' hybrid cgroups), and mmdebstrap to make the Debian base image without a registry.
  podman runc mmdebstrap
)
# Node 20 may come from elsewhere than Debian (it does on the project's machines, with its own
# npm): install Debian's nodejs/npm only when there is no node at all, never replace it.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  packages+=(nodejs npm)
fi

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$pkg")
done

sudo_cmd=()
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo_cmd=(sudo)
  elif ((${#missing[@]})); then
    echo "install-deps: not root and no sudo; missing packages: ${missing[*]}" >&2
    exit 1
  fi
fi

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update
  "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all ${#packages[@]} Debian packages present"
fi

# The real clients the integration and conformance tests drive (mongodb driver, mongosh),
# pinned by tests/package-lock.json. npm writes node_modules/.package-lock.json on install.
if [[ ! -f tests/node_modules/.package-lock.json ||
      tests/package-lock.json -nt tests/node_modules/.package-lock.json ||
      ! -d tests/node_modules/mongodb || ! -e tests/node_modules/.bin/mongosh ]]; then
  echo "install-deps: npm ci in tests/"
  (cd tests && npm ci --no-audit --no-fund)
else
  echo "install-deps: tests/node_modules up to date"
fi
