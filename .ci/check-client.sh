#!/usr/bin/env bash
# CI: the typed client works as a package in a plain Node project.
#
# Builds client/ (JavaScript + declarations), packs it (`npm pack`), installs
# the tarball into an empty temporary project, type-checks the example of
# docs/client.md (client/examples/live-group.mjs) against the installed
# declarations (tsc --checkJs) and runs it against a live server (`node
# bin/callcenter.js serve`, demo tenant, fresh DATA_DIR, free port). Fails
# when the example throws or prints something else than expected.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"

WORK="$(mktemp -d)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

echo "== npm pack client/ (prepack builds dist/)"
(cd client && npm pack --pack-destination "$WORK" --silent) >"$WORK/pack.out"
TARBALL="$WORK/$(tail -n 1 "$WORK/pack.out")"
# Listed to a file: `tar | grep -q` under pipefail fails when grep stops reading early (tar gets SIGPIPE).
tar -tzf "$TARBALL" | sort >"$WORK/files"
cat "$WORK/files"
for f in package/dist/index.js package/dist/index.d.ts package/dist/generated/schema.d.ts; do
  grep -qx "$f" "$WORK/files" || { echo "missing from the package: $f" >&2; exit 1; }
done

echo "== install into an empty project"
mkdir -p "$WORK/app"
cd "$WORK/app"
printf '{"name":"client-consumer","version":"1.0.0","private":true,"type":"module"}\n' >package.json
npm install --no-audit --no-fund --silent "$TARBALL"
cp "$ROOT/client/examples/live-group.mjs" example.mjs
# CommonJS consumers on Node 20 load it with import() too.
node -e 'import("@callcenter/client").then((m) => { if (typeof m.createClient !== "function") process.exit(1); })'

echo "== type-check the example against the installed declarations"
node "$ROOT/node_modules/typescript/bin/tsc" --noEmit --allowJs --checkJs --strict --skipLibCheck false \
  --module nodenext --moduleResolution nodenext --target es2022 --types node --typeRoots "$ROOT/node_modules/@types" example.mjs

echo "== run the example against a live server"
cd "$ROOT"
# Compile now if src/ changed since the last build, so the wait below is only the start.
node bin/build.js --if-possible
PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
BASE="http://127.0.0.1:$PORT"
env -u DATABASE_URL HOST=127.0.0.1 PORT="$PORT" DATA_DIR="$WORK/data" LOG_LEVEL=warn CALLCENTER_DEMO=1 \
  CALLCENTER_ADMIN_USERNAME=admin CALLCENTER_ADMIN_PASSWORD=check-client-password \
  node bin/callcenter.js serve >"$WORK/server.log" 2>&1 &
SERVER=$!
PIDS+=("$SERVER")
for _ in $(seq 1 120); do
  curl -sf "$BASE/healthz" >/dev/null 2>&1 && break
  kill -0 "$SERVER" 2>/dev/null || { echo "the service exited:" >&2; cat "$WORK/server.log" >&2; exit 1; }
  sleep 0.5
done
curl -sf "$BASE/healthz" >/dev/null || { echo "the service did not start within 60 s:" >&2; cat "$WORK/server.log" >&2; exit 1; }

cd "$WORK/app"
OUT="$(CALLCENTER_URL="$BASE" node example.mjs)"
echo "$OUT"
echo "$OUT" | grep -Eq '^group 55: [0-9]+ agents logged in, [0-9]+ on a call$' || { echo "unexpected output of the example" >&2; exit 1; }
echo "$OUT" | grep -Eq '^first agent: .+ · .+$' || { echo "Agent/list did not answer full records" >&2; exit 1; }
echo "$OUT" | grep -qx 'group 999: no such group (1006)' || { echo "the unknown group did not answer 1006" >&2; exit 1; }
echo "== client: packed, installed, type-checked and run"
