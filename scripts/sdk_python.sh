#!/usr/bin/env bash
# The Python sender SDK's generated code (clients/python/hookproof_client/generated): the API's
# OpenAPI document (scripts/openapi_dump.py) through the pinned openapi-python-client.
#   scripts/sdk_python.sh          regenerate it in place (`make sdk-python`)
#   scripts/sdk_python.sh --check  regenerate into a temporary folder; fail if the checked-in
#                                  code differs (`make sdk-check`)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="$ROOT/.venv/bin"
DEST="$ROOT/clients/python/hookproof_client/generated"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/hookproof-sdk-python.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

"$BIN/python" "$ROOT/scripts/openapi_dump.py" "$WORK/openapi.json"
"$BIN/openapi-python-client" generate --path "$WORK/openapi.json" \
  --config "$ROOT/clients/python/generator.yaml" --meta none \
  --output-path "$WORK/generated" >"$WORK/generate.log" 2>&1 \
  || { cat "$WORK/generate.log"; exit 1; }
if grep -iE "warning|unable|error" "$WORK/generate.log"; then
  echo "== openapi-python-client warned (above): every operation must generate"; exit 1
fi
find "$WORK/generated" -name __pycache__ -prune -exec rm -rf {} +

if [ "${1:-}" = "--check" ]; then
  if ! diff -r -x __pycache__ "$WORK/generated" "$DEST" >"$WORK/diff.txt"; then
    head -50 "$WORK/diff.txt"
    echo "== $DEST is not what the document generates: run make sdk-python and commit it"
    exit 1
  fi
  echo "== python SDK: generated code is current"
else
  rm -rf "$DEST"
  cp -r "$WORK/generated" "$DEST"
  echo "== python SDK: regenerated $DEST"
fi
