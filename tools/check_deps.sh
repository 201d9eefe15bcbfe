#!/usr/bin/env bash
# Fails when an #include crosses the dependency rule (README "Layout"): wire and query know
# nothing of RocksDB, Asio, storage or server; index uses only common and query; storage is the
# only module that includes RocksDB; server is the only one that includes Asio; nothing includes
# server/ from outside it. Inside server/ (server/README.md): only net/ includes Asio; exec/,
# cursor/ and changes/ never include net/ or commands/; ttl/ includes neither, nor the
# ServerState that owns it; nothing outside commands/ includes commands/ except net/dispatcher
# (and embedded/direct_call, for the error reply builder).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
check() {  # check PATH PATTERN WHY [EXCLUDED-PATH...]
  local path=$1 pattern=$2 why=$3 hits
  shift 3
  hits=$(grep -rnE "#include [<\"]($pattern)" "$path" --include='*.h' --include='*.cc' || true)
  for excluded in "$@"; do hits=$(grep -v "^$excluded" <<<"$hits" || true); done
  if [[ -n "$hits" ]]; then
    echo "dependency rule broken ($why):"
    echo "$hits"
    status=1
  fi
}
check common   'wire/|query/|index/|storage/|server/|rocksdb/|boost/' "common is the leaf"
check wire     'query/|index/|storage/|server/|rocksdb/|boost/'        "wire uses only common"
check query    'wire/|index/|storage/|server/|rocksdb/|boost/'         "query uses only common"
check index    'wire/|storage/|server/|rocksdb/|boost/'                "index uses common and query"
check storage  'wire/|query/|index/|server/|boost/'                    "storage uses common and RocksDB"
check server   'rocksdb/'                                              "only storage includes RocksDB"
check tools    'server/'                                               "nothing includes server"
check server   'boost/asio'              "only server/net includes Asio"            server/net/
check server/exec   'server/(net|commands)/' "exec never includes net or commands"
check server/cursor 'server/(net|commands)/' "cursor never includes net or commands"
check server/changes 'server/(net|commands)/' "changes never includes net or commands"
check server/ttl    'server/(net|commands)/|server/server_state.h' \
  "ttl includes neither net nor commands nor the ServerState that owns it"
check server/repl   'server/(net|commands)/|server/server_state.h' \
  "repl includes neither net nor commands nor the ServerState that owns it"
check server/write  'server/repl/'       "write never includes repl (it logs through OplogSink)"
check server   'server/commands/'        "only net/dispatcher (and libcairn's direct call, for the error reply) includes commands" \
  server/commands/ server/net/dispatcher.cc server/embedded/direct_call.cc
[[ $status -eq 0 ]] && echo "dependency rule: ok"
exit $status
