#!/usr/bin/env bash
# Builds the container images' Debian bases from the Debian mirror, for machines that cannot pull
# from a registry (the project's CI): `localhost/cairn-base:bookworm-slim`, a minbase Debian 12
# trimmed as debian:bookworm-slim is (no documentation, manual pages or translations) with the
# runtime libraries cairnd needs already installed, so the Dockerfile's runtime stage has nothing
# to fetch. Uses mmdebstrap (no root daemon, no registry), then `podman import`.
#
# The root filesystem tarball is cached in ${CAIRN_CACHE_DIR:-~/.cache/cairn}, named by a hash of
# what it contains: a second run, or a run after the podman storage was wiped, reuses it.
#   docker/base_image.sh            prints the image name when done
# Environment: PODMAN (default "podman"), DEBIAN_MIRROR (default the machine's apt source or
# http://deb.debian.org/debian).
set -euo pipefail
cd "$(dirname "$0")"

IMAGE=localhost/cairn-base:bookworm-slim
PODMAN=${PODMAN:-podman}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
CACHE_DIR=${CAIRN_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/cairn}

# What cairnd links dynamically (`ldd cairnd`; RocksDB, ICU and libcrypto are linked statically),
# the same list the Dockerfile's runtime stage installs on a registry's debian:bookworm-slim.
packages=$(sed -n 's/^ARG RUNTIME_PACKAGES="\(.*\)"$/\1/p' Dockerfile)
[[ -n "$packages" ]] || { echo "base_image.sh: no RUNTIME_PACKAGES in Dockerfile" >&2; exit 1; }

# (usrmerge, which merges /usr during the bootstrap, is purged after it with the perl it pulled
# in: mmdebstrap marks nothing auto-installed, so they are named.)
# debian:bookworm-slim's trimming (its dpkg.cfg.d excludes), kept inside the image too so later
# installs stay slim.
excludes=('/usr/share/doc/*' '/usr/share/man/*' '/usr/share/info/*' '/usr/share/locale/*'
  '/usr/share/groff/*' '/usr/share/lintian/*' '/usr/share/linda/*')
dpkg_opts=()
for pattern in "${excludes[@]}"; do dpkg_opts+=(--dpkgopt="path-exclude=$pattern"); done
dpkg_opts+=(--dpkgopt="path-include=/usr/share/doc/*/copyright")

key=$(printf '%s\n' "$MIRROR" "$packages" "${excludes[@]}" v2 | sha256sum | cut -c1-16)
tarball="$CACHE_DIR/bookworm-slim-$key.tar"

if "$PODMAN" image exists "$IMAGE" &&
  [[ "$("$PODMAN" image inspect --format '{{index .Labels "cairn.base.key"}}' "$IMAGE" 2>/dev/null)" == "$key" ]]; then
  echo "$IMAGE"
  exit 0
fi

if [[ ! -s "$tarball" ]]; then
  mkdir -p "$CACHE_DIR"
  # mmdebstrap picks its output format from the name: keep ".tar" at the end.
  partial="$CACHE_DIR/partial-$key.tar"
  echo "base_image.sh: building the Debian 12 root filesystem from $MIRROR" >&2
  # shellcheck disable=SC2086 # the package list is space-separated on purpose
  mmdebstrap ${MMDEBSTRAP_QUIET---quiet} --variant=minbase --include="${packages// /,}" "${dpkg_opts[@]}" \
    --customize-hook='chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get -y -qq purge usrmerge perl perl-modules-5.36 libperl5.36 libfile-find-rule-perl libnumber-compare-perl libtext-glob-perl >/dev/null' \
    --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*.bin' \
    bookworm "$partial" "$MIRROR" >&2
  mv "$partial" "$tarball"
  # Root filesystems of earlier package lists are not needed again.
  find "$CACHE_DIR" -maxdepth 1 -name 'bookworm-slim-*.tar' ! -name "${tarball##*/}" -delete
else
  echo "base_image.sh: using the cached root filesystem $tarball" >&2
fi
"$PODMAN" import --change "LABEL cairn.base.key=$key" --change 'CMD ["bash"]' \
  "$tarball" "$IMAGE" >/dev/null
echo "$IMAGE"
