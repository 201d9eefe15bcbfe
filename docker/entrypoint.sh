#!/usr/bin/env bash
# The image's entrypoint, after the official `mongo` image's docker-entrypoint.sh, so a compose
# file can switch images and change nothing else:
# - arguments that start with "-" are cairnd's (`docker run cairn --replSet rs0`); "mongod" or
#   "cairnd" as the first argument runs the server with the rest; anything else runs as given
#   (`docker run -it cairn bash`);
# - the server binds every address unless the arguments say otherwise (--bind_ip, --bind_ip_all,
#   a --config file), and keeps its data in /data/db;
# - on first start (an empty data directory) with files in /docker-entrypoint-initdb.d/, a
#   temporary server listens on 127.0.0.1:27017 only while, in name order, *.sh files run
#   (executable ones as programs, others sourced) and *.json / *.jsonl files (Extended JSON, as
#   mongoimport reads them) are loaded into the collection named after the file, in the
#   database MONGO_INITDB_DATABASE (default "test"); then it stops and the real server starts.
#   *.js needs a JavaScript shell the image does not ship: refused before anything starts.
# - MONGO_INITDB_ROOT_USERNAME/PASSWORD (and their _FILE forms) would create a root user and turn
#   on authentication, which Cairn does not have yet: refused, rather than starting open.
# cairnd becomes PID 1 (exec), so `docker stop`'s SIGTERM reaches it and it shuts down cleanly.
set -Eeuo pipefail

log() { echo "cairn-entrypoint: $*" >&2; }
die() {
  log "error: $*"
  exit 1
}

if [[ $# -eq 0 || "$1" == -* ]]; then
  set -- cairnd "$@"
fi
if [[ "$1" == mongod ]]; then
  shift
  set -- cairnd "$@"
fi
if [[ "$1" != cairnd ]]; then
  exec "$@"
fi
shift
args=("$@")

has_arg() {  # has_arg FLAG...: the arguments give one of these flags (FLAG or FLAG=...)
  local arg flag
  for arg in "${args[@]}"; do
    for flag in "$@"; do
      [[ "$arg" == "$flag" || "$arg" == "$flag="* ]] && return 0
    done
  done
  return 1
}
arg_value() {  # arg_value NAME DEFAULT: the value given for --NAME, else DEFAULT
  local i value=$2
  for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
      "--$1") ((i + 1 < ${#args[@]})) && value=${args[i + 1]} ;;
      "--$1="*) value=${args[i]#--$1=} ;;
    esac
  done
  printf '%s' "$value"
}

for var in MONGO_INITDB_ROOT_USERNAME MONGO_INITDB_ROOT_PASSWORD \
  MONGO_INITDB_ROOT_USERNAME_FILE MONGO_INITDB_ROOT_PASSWORD_FILE; do
  if [[ -n "${!var:-}" ]]; then
    die "$var is set: it asks for a root user with authentication, which this Cairn image" \
      "cannot provide yet (no SCRAM authentication). Refusing to start a server open to" \
      "everyone; unset MONGO_INITDB_ROOT_USERNAME/PASSWORD to run without authentication."
  fi
done

if ! has_arg --bind_ip --bind_ip_all --config -f; then
  args+=(--bind_ip_all)
fi
if ! has_arg --dbpath --config -f; then
  args+=(--dbpath /data/db)
fi
dbpath=$(arg_value dbpath /data/db)
initdb=/docker-entrypoint-initdb.d

# First start: the data directory is empty (or absent) and there is something to run.
init_files=()
if [[ -d "$initdb" ]] && [[ -z "$(ls -A "$dbpath" 2>/dev/null)" ]]; then
  shopt -s nullglob
  init_files=("$initdb"/*)
  shopt -u nullglob
fi
for f in "${init_files[@]}"; do
  if [[ "$f" == *.js ]]; then
    die "$f: JavaScript init scripts need a mongo shell, which this image does not ship." \
      "Use *.sh scripts, or *.json / *.jsonl files of Extended JSON documents."
  fi
done

if ((${#init_files[@]})); then
  # The user's options without the network ones (and without --replSet, as the official image
  # does), then a listener on 127.0.0.1:27017 only: nothing outside sees a half-built database.
  init_args=()
  for ((i = 0; i < ${#args[@]}; i++)); do
    case "${args[i]}" in
      --bind_ip | --port | --replSet | --unixSocketPrefix) ((i++)) || true ;;
      --bind_ip=* | --port=* | --replSet=* | --unixSocketPrefix=* | --bind_ip_all) ;;
      *) init_args+=("${args[i]}") ;;
    esac
  done
  init_args+=(--bind_ip 127.0.0.1 --port 27017)
  log "first start: running ${#init_files[@]} file(s) from $initdb"
  cairnd "${init_args[@]}" &
  init_pid=$!
  for ((tries = 0; ; tries++)); do
    cairnd --ping --port 27017 --bind_ip 127.0.0.1 2>/dev/null && break
    kill -0 "$init_pid" 2>/dev/null || die "the temporary server for $initdb did not start"
    ((tries < 300)) || die "the temporary server for $initdb did not answer within 30 s"
    sleep 0.1
  done
  export MONGO_INITDB_DATABASE=${MONGO_INITDB_DATABASE:-test}
  for f in "${init_files[@]}"; do
    case "$f" in
      *.sh)
        if [[ -x "$f" ]]; then
          log "running $f"
          "$f"
        else
          log "sourcing $f"
          # shellcheck disable=SC1090
          . "$f"
        fi
        ;;
      *.json | *.jsonl)
        collection=$(basename "$f")
        collection=${collection%.*}
        log "loading $f into $MONGO_INITDB_DATABASE.$collection"
        cairnd --load-json "$MONGO_INITDB_DATABASE.$collection" "$f" --port 27017 \
          --bind_ip 127.0.0.1 >&2
        ;;
      *) log "ignoring $f" ;;
    esac
  done
  kill -TERM "$init_pid"
  wait "$init_pid" || die "the temporary server exited with status $? when stopped"
  log "init process complete; ready for start up"
fi

exec cairnd "${args[@]}"
