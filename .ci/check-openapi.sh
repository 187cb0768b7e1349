#!/usr/bin/env bash
# The OpenAPI document the app serves at /openapi.json, built in-process (the
# app on a throw-away SQLite database, client/openapi-document.ts) and linted
# with Redocly's recommended ruleset (redocly.yaml). Fails on any error;
# warnings are printed but pass. Usage: .ci/check-openapi.sh [output.json]
# (keeps the document there; default a temporary file).
set -euo pipefail
cd "$(dirname "$0")/.."

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
doc="${1:-$tmp/openapi.json}"

echo "== OpenAPI document → $doc"
node --import tsx --input-type=module -e '
  import { writeFileSync } from "node:fs";
  import { buildOpenApiDocument } from "./client/openapi-document.ts";
  writeFileSync(process.argv[1], JSON.stringify(await buildOpenApiDocument(), null, 2) + "\n");
' "$doc"

echo "== redocly lint"
# No usage telemetry, no update check: CI runs offline-friendly and quietly.
REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true npx --no-install redocly lint --config redocly.yaml "$doc"
