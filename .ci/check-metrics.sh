#!/usr/bin/env bash
# CI: GET /metrics passes `promtool check metrics` with no complaint.
#
# Starts the service as a user does (`node bin/callcenter.js serve`) on a fresh
# embedded database in a temporary DATA_DIR and a free port, makes requests
# that create every kind of series (a success, application errors answered
# with HTTP 200, an unknown route, open streams, a stream reset), scrapes
# /metrics and fails on any complaint of promtool or on a missing series.
# Run from anywhere: `.ci/check-metrics.sh`. Installs promtool (Debian's
# `prometheus` package) when it is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

PROMTOOL="${PROMTOOL:-promtool}"
if ! command -v "$PROMTOOL" >/dev/null 2>&1; then
  echo "== installing promtool (Debian package prometheus)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus) >/dev/null
  PROMTOOL=/usr/bin/promtool
fi
"$PROMTOOL" --version 2>&1 | head -n 1

WORK="$(mktemp -d)"
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
BASE="http://127.0.0.1:$PORT"
ADMIN_PASSWORD="check-metrics-password"

echo "== starting the service on $BASE (DATA_DIR $WORK/data)"
# Compile now if src/ changed since the last build, so the wait below is only the start.
node bin/build.js --if-possible
env -u DATABASE_URL -u CALLCENTER_DEMO HOST=127.0.0.1 PORT="$PORT" DATA_DIR="$WORK/data" LOG_LEVEL=warn \
  CALLCENTER_ADMIN_USERNAME=admin CALLCENTER_ADMIN_PASSWORD="$ADMIN_PASSWORD" \
  node bin/callcenter.js serve >"$WORK/server.log" 2>&1 &
SERVER=$!
PIDS+=("$SERVER")
for _ in $(seq 1 120); do
  curl -sf "$BASE/healthz" >/dev/null 2>&1 && break
  kill -0 "$SERVER" 2>/dev/null || { echo "the service exited:" >&2; cat "$WORK/server.log" >&2; exit 1; }
  sleep 0.5
done
curl -sf "$BASE/healthz" >/dev/null || { echo "the service did not start within 60 s:" >&2; cat "$WORK/server.log" >&2; exit 1; }

post() { curl -s "$BASE/api/v2/$1" -H 'content-type: application/json' -d "$2"; }
SSID="$(post auth/login "{\"username\":\"admin\",\"password\":\"$ADMIN_PASSWORD\"}" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).ssid??""))')"
[ -n "$SSID" ] || { echo "login failed" >&2; exit 1; }
# Application errors: HTTP 200 with the error envelope.
post auth/login '{"username":"admin","password":"wrong-password"}' >/dev/null
post account/getSettings '{}' >/dev/null
post group/create "{\"ssid\":\"$SSID\"}" >/dev/null
# An unknown route (404) and a refused stream (401).
curl -s "$BASE/api/v2/no/such" -d '{}' >/dev/null
curl -s "$BASE/api/v2/stream?ssid=nope" >/dev/null
# Two open streams, one of them told to reset (a Last-Event-ID the server never issued).
curl -sN "$BASE/api/v2/stream?ssid=$SSID" >"$WORK/stream1" 2>/dev/null &
PIDS+=($!)
curl -sN "$BASE/api/v2/stream?ssid=$SSID" -H 'Last-Event-ID: 999999' >"$WORK/stream2" 2>/dev/null &
PIDS+=($!)
for _ in $(seq 1 50); do
  grep -q '^event: ready' "$WORK/stream1" 2>/dev/null && grep -q '^event: reset' "$WORK/stream2" 2>/dev/null && break
  sleep 0.1
done

curl -sf "$BASE/metrics" >"$WORK/metrics"
echo "== promtool check metrics ($(grep -c '^# TYPE' "$WORK/metrics") metrics)"
set +e
COMPLAINTS="$("$PROMTOOL" check metrics <"$WORK/metrics" 2>&1)"
RC=$?
set -e
if [ "$RC" -ne 0 ] || [ -n "$COMPLAINTS" ]; then
  echo "promtool check metrics exited $RC:" >&2
  echo "$COMPLAINTS" >&2
  exit 1
fi

# The requests above must have made these series (a check that passes on an empty page proves nothing).
missing=0
for series in \
  'callcenter_http_requests_total{route="/api/v2/auth/login",status="200"}' \
  'callcenter_api_errors_total{route="/api/v2/auth/login",code="1014"}' \
  'callcenter_api_errors_total{route="/api/v2/account/getSettings",code="1047"}' \
  'callcenter_api_errors_total{route="unmatched",code="404"}' \
  'callcenter_api_errors_total{route="/api/v2/stream",code="1014"}' \
  'callcenter_stream_connections_open 2' \
  'callcenter_stream_connections_total 2' \
  'callcenter_stream_resets_total{reason="future"} 1' \
  'callcenter_db_pool_connections{state="total"}' \
  'callcenter_swallowed_errors_total{site="auth.login_audit"} 0' \
  'callcenter_swallowed_errors_total{site="ambient.after_commit"} 0' \
  'process_cpu_seconds_total' \
  'nodejs_active_handles{'; do
  grep -qF "$series" "$WORK/metrics" || { echo "missing from /metrics: $series" >&2; missing=1; }
done
[ "$missing" -eq 0 ] || exit 1
echo "== /metrics: no complaint from promtool, every expected series present"
