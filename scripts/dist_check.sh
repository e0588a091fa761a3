#!/usr/bin/env bash
# `make dist`: the engine and SDK as a user installs them. Builds an sdist and a wheel of each
# (the wheel from the sdist, as `python -m build` does), checks their metadata with
# `twine check --strict`, installs the wheels (not editable) into fresh venvs outside the
# checkout and, from an empty folder, runs `hookproof --version` and `hookproof demo`; a second
# venv holds only the subscriber SDK wheel and imports it, a third only the sender SDK's
# (hookproof-client, clients/python).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
TOOLS="$ROOT/.venv/bin/python"     # has build and twine (the test extra)
OUT="$ROOT/dist"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/hookproof-dist.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

rm -rf "$OUT" && mkdir -p "$OUT"
echo "== build (sdist, then the wheel from it)"
"$TOOLS" -m build --outdir "$OUT" "$ROOT" >"$WORK/build-engine.log" 2>&1 \
  || { cat "$WORK/build-engine.log"; exit 1; }
"$TOOLS" -m build --outdir "$OUT" "$ROOT/subscriber" >"$WORK/build-sdk.log" 2>&1 \
  || { cat "$WORK/build-sdk.log"; exit 1; }
"$TOOLS" -m build --outdir "$OUT" "$ROOT/clients/python" >"$WORK/build-client.log" 2>&1 \
  || { cat "$WORK/build-client.log"; exit 1; }
if grep -iE "warning|would be ignored" "$WORK"/build-*.log | grep -v "byte-compiling is disabled"; then
  echo "== the build printed warnings (above)"; exit 1
fi
ls -l "$OUT"
echo "== twine check"
"$TOOLS" -m twine check --strict "$OUT"/*

echo "== engine venv (wheels only, not editable)"
"$PYTHON" -m venv "$WORK/engine"
"$WORK/engine/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
"$WORK/engine/bin/python" -m pip install -q --disable-pip-version-check \
  --find-links "$OUT" "$OUT"/hookproof-*.whl
mkdir "$WORK/empty"
cd "$WORK/empty"
"$WORK/engine/bin/hookproof" --version
"$WORK/engine/bin/python" -c "import hookproof, sys; assert '$ROOT' not in hookproof.__file__, hookproof.__file__; print(hookproof.__file__)"
env -u HOOKPROOF_DATABASE_URL -u HOOKPROOF_DATA_DIR "$WORK/engine/bin/hookproof" demo

echo "== SDK venv (the SDK wheel alone)"
"$PYTHON" -m venv "$WORK/sdk"
"$WORK/sdk/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
"$WORK/sdk/bin/python" -m pip install -q --disable-pip-version-check "$OUT"/hookproof_subscriber-*.whl
"$WORK/sdk/bin/python" -c "import hookproof_subscriber, importlib.util as u; assert u.find_spec('hookproof') is None; print('hookproof_subscriber', hookproof_subscriber.__file__)"
echo "== sender SDK venv (the hookproof-client wheel alone)"
"$PYTHON" -m venv "$WORK/client"
"$WORK/client/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
"$WORK/client/bin/python" -m pip install -q --disable-pip-version-check "$OUT"/hookproof_client-*.whl
"$WORK/client/bin/python" -c "
import importlib.util as u, hookproof_client as c
from hookproof_client.generated.api.events import post_v1_events
assert u.find_spec('hookproof') is None and '$ROOT' not in c.__file__, c.__file__
assert c.Client and c.AsyncClient and post_v1_events.sync_detailed
print('hookproof_client', c.__version__, c.__file__)"
echo "== dist check passed"
