#!/usr/bin/env bash
# Installs dependencies, builds, then runs cairnd in the foreground on 127.0.0.1:27017.
# Data goes to $CAIRN_DBPATH (default /data/db); extra arguments go to cairnd,
# e.g. tools/start.sh --quiet --logpath /tmp/cairnd.log
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
dbpath=${CAIRN_DBPATH:-/data/db}

tools/install-deps.sh
tools/build.sh
mkdir -p "$dbpath"
exec "$BUILD_DIR/server/cairnd" --dbpath "$dbpath" --port 27017 --bind_ip 127.0.0.1 "$@"
