#!/usr/bin/env bash
# Fails when an #include crosses the dependency rule (README "Layout"): wire and query know
# nothing of RocksDB, Asio, storage or server; index uses only common and query; storage is the
# only module that includes RocksDB; server is the only one that includes Asio; nothing includes
# server/ from outside it.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
check() {  # check MODULE PATTERN WHY
  local hits
  hits=$(grep -rnE "#include [<\"]($2)" "$1" --include='*.h' --include='*.cc' || true)
  if [[ -n "$hits" ]]; then
    echo "dependency rule broken ($3):"
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
[[ $status -eq 0 ]] && echo "dependency rule: ok"
exit $status
