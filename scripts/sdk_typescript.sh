#!/usr/bin/env bash
# The TypeScript sender SDK's generated types (clients/typescript/src/generated/openapi.ts) from
# the API document: scripts/openapi_dump.py writes it to a temp file, the pinned openapi-typescript
# of clients/typescript/node_modules (package-lock.json; `npm ci` there when missing) turns it
# into types. `generate` (make sdk-typescript) writes the file; `check` (make
# sdk-check-typescript) generates into a temp file and fails when the checked-in one differs.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PY="${PY:-$ROOT/.venv/bin/python}"
PKG="$ROOT/clients/typescript"
OUT="$PKG/src/generated/openapi.ts"
GEN="$PKG/node_modules/openapi-typescript/bin/cli.js"
MODE="${1:-generate}"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/hookproof-sdk-ts.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

if [ ! -f "$GEN" ]; then
  (cd "$PKG" && npm ci --no-audit --no-fund)
fi
"$PY" "$ROOT/scripts/openapi_dump.py" "$WORK/openapi.json"
node "$GEN" "$WORK/openapi.json" -o "$WORK/openapi.ts" --default-non-nullable false >"$WORK/gen.log" 2>&1 \
  || { cat "$WORK/gen.log"; exit 1; }

case "$MODE" in
  generate)
    mkdir -p "$(dirname "$OUT")"
    cp "$WORK/openapi.ts" "$OUT"
    echo "wrote ${OUT#"$ROOT"/}"
    ;;
  check)
    if ! diff -u "$OUT" "$WORK/openapi.ts" >"$WORK/diff.txt"; then
      head -n 60 "$WORK/diff.txt"
      echo "clients/typescript/src/generated/openapi.ts is not the API document's: run make sdk-typescript"
      exit 1
    fi
    echo "clients/typescript/src/generated/openapi.ts is current"
    ;;
  *)
    echo "usage: $0 [generate|check]" >&2
    exit 2
    ;;
esac
