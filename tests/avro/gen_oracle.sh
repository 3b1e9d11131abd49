#!/usr/bin/env bash
# Regenerates oracle_dumps.jsonl.gz: avro-dump (independent avsc-based reader)
# output of every Avro object container file under shared/fixtures.
# Format: "#FILE <path relative to shared/>" then avro-dump's lines for it.
set -euo pipefail
shared=${1:-$(cd "$(dirname "$0")/../../../shared" && pwd)}
out=$(cd "$(dirname "$0")" && pwd)/oracle_dumps.jsonl.gz
cd "$shared"
find fixtures -type f -size +3c | sort | while read -r f; do
  [ "$(head -c4 "$f" | od -An -c | tr -d ' ')" = 'Obj001' ] || continue
  echo "#FILE $f"
  tools/avro-dump "$f"
done | gzip -9n > "$out"
echo "wrote $out"
