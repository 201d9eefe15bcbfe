#!/usr/bin/env bash
# CI's container check (a phase of tools/test.sh): builds the image with podman from
# docker/Dockerfile, with the runtime base docker/base_image.sh makes from the Debian mirror and
# the cairnd this checkout has just built (CAIRND_FROM=context: the full source build is the
# documented `podman build -f docker/Dockerfile .`, too slow to repeat in every CI run), prints
# the image's size, then runs tests/container/test_image.py against it: mongosh and pymongo
# connect, data survives a restart on a volume, `podman stop` is clean, the health check turns
# healthy, the MONGO_INITDB_* conventions and /docker-entrypoint-initdb.d.
#
# podman on these machines needs runc (crun cannot run under the host's hybrid cgroups) and
# explicit ulimits (root lacks CAP_SYS_RESOURCE): both come from a containers.conf made here.
# Needs root (rootful podman: rootless has no network here); skipped with a message otherwise.
#   docker/test_image.sh [BUILD_DIR]       (default build/)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-${BUILD_DIR:-build}}
IMAGE=${CAIRN_TEST_IMAGE:-localhost/cairn:ci}

if [[ $(id -u) -ne 0 ]]; then
  echo "container check skipped: rootful podman needs root (run tools/test.sh as root, as CI does)"
  exit 0
fi
for tool in podman runc mmdebstrap; do
  command -v "$tool" >/dev/null || { echo "test_image.sh: $tool is missing (tools/install-deps.sh installs it)" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/cairn-image.XXXXXX")
trap 'rm -rf "$work"' EXIT
cat >"$work/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
[engine]
runtime = "runc"
EOF
export CONTAINERS_CONF="$work/containers.conf"

start=$SECONDS
base=$(docker/base_image.sh)
echo "base image: $base ($((SECONDS - start)) s)"

# The build context: the Dockerfile's COPY sources only.
mkdir -p "$work/context/docker" "$work/context/prebuilt"
cp docker/entrypoint.sh "$work/context/docker/"
strip -o "$work/context/prebuilt/cairnd" "$BUILD_DIR/server/cairnd"
start=$SECONDS
podman build --quiet --format docker -f docker/Dockerfile --build-arg CAIRND_FROM=context \
  --build-arg BUILD_BASE="$base" --build-arg RUNTIME_BASE="$base" -t "$IMAGE" "$work/context" >/dev/null
size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
echo "image $IMAGE: built in $((SECONDS - start)) s, $((size / 1000000)) MB ($size bytes)"

CAIRN_IMAGE="$IMAGE" MONGOSH="$PWD/tests/node_modules/.bin/mongosh" \
  /usr/bin/python3 -m unittest -v tests/container/test_image.py
