#!/usr/bin/env bash
# `make dist`: the engine and SDK as a user installs them. Builds an sdist and a wheel of each
# (the wheel from the sdist, as `python -m build` does), checks their metadata with
# `twine check --strict`, installs the wheels (not editable) into fresh venvs outside the
# checkout and, from an empty folder, runs `hookproof --version` and `hookproof demo`; a second
# venv holds only the subscriber SDK wheel and imports it, a third only the sender SDK's
# (hookproof-client, clients/python). The TypeScript sender SDK (clients/typescript) is packed
# with `npm pack`, installed from the tarball with its dependency into a fresh folder, imported
# by a small script and type-checked as a user's TypeScript would be.
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
echo "== TypeScript client: npm pack, the tarball installed into a fresh folder"
TS="$ROOT/clients/typescript"
[ -d "$TS/node_modules" ] || (cd "$TS" && npm ci --no-audit --no-fund)
TGZ="$(cd "$TS" && npm pack --silent --pack-destination "$OUT" | tail -n 1)"
TGZ="$OUT/$TGZ"
ls -l "$TGZ"
tar -tzf "$TGZ" | sort >"$WORK/ts-files.txt"
for want in package/package.json package/dist/index.js package/dist/index.d.ts \
  package/dist/generated/openapi.d.ts package/README.md package/LICENSE; do
  grep -qx "$want" "$WORK/ts-files.txt" || { echo "missing from the tarball: $want"; exit 1; }
done
if grep -E "^package/(src|test|examples|node_modules)/" "$WORK/ts-files.txt"; then
  echo "the tarball holds sources or tests (above)"; exit 1
fi
mkdir "$WORK/ts-app"
cd "$WORK/ts-app"
printf '{"name": "ts-app", "version": "1.0.0", "private": true, "type": "module"}\n' >package.json
npm install --no-audit --no-fund --silent "$TGZ"
cat >check.mjs <<'JS'
import { HookproofClient, HookproofProblem, buildEvent } from "hookproof-client";
import { fileURLToPath } from "node:url";
const where = fileURLToPath(import.meta.resolve("hookproof-client"));
if (!where.includes("/node_modules/hookproof-client/")) throw new Error(`resolved to ${where}`);
const client = new HookproofClient({ baseUrl: "http://127.0.0.1:9", token: "t" });
if (typeof client.publish !== "function" || typeof client.api.GET !== "function") throw new Error("no client");
const p = new HookproofProblem(409, { code: "event_payload_conflict", title: "conflict" });
if (!(p instanceof Error) || p.code !== "event_payload_conflict") throw new Error("no problem");
const e = await buildEvent("invoice.paid", { amount: 1 }, { eventId: "evt-1" });
if (e.topic !== "invoice.paid" || e.eventId !== "evt-1") throw new Error("no event");
console.log("hookproof-client", where);
JS
node check.mjs
cat >check.ts <<'TSX'
import { HookproofClient, HookproofProblem, type EventAccepted, type paths } from "hookproof-client";
const client = new HookproofClient({ baseUrl: "http://127.0.0.1:9", token: "t" });
export async function first(): Promise<EventAccepted | string> {
  try {
    return await client.publish("invoice.paid", { amount: 1 });
  } catch (err) {
    if (err instanceof HookproofProblem) return err.code;
    throw err;
  }
}
export type Events = paths["/v1/events"]["post"];
TSX
node "$TS/node_modules/typescript/bin/tsc" --noEmit --strict --target es2022 --module nodenext \
  --moduleResolution nodenext --lib es2022,dom check.ts
echo "hookproof-client: the tarball's types check"
cd "$ROOT"
echo "== sender SDK venv (the hookproof-client wheel alone)"
cd "$WORK"   # not the checkout: its hookproof/ would be importable from the current folder
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
