#!/usr/bin/env bash
# The API document through its two linters, pinned in package.json: Redocly's recommended
# ruleset and Spectral's spectral:oas. Both must be clean (0 errors, 0 warnings) but for the
# waivers, each named with why in this folder: .redocly.lint-ignore.yaml (Redocly) and
# .spectral.yaml's overrides (Spectral).
#   tests/api/lint/run.sh          npm ci once, then lint (CI: .ci/run)
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
cd "$HERE"
[ -d node_modules ] || npm ci --no-audit --no-fund
"$ROOT/.venv/bin/python" "$ROOT/scripts/openapi_dump.py" "$HERE/openapi.json"
npx --no-install redocly lint --extends recommended --max-problems 1000 openapi.json
npx --no-install spectral lint --ruleset .spectral.yaml --fail-severity hint openapi.json
echo "== the API document: Redocly (recommended) and Spectral (spectral:oas) clean"
