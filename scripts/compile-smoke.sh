#!/usr/bin/env bash
# The single executable: `bun build --compile` for linux-x64 (scripts/build.ts --compile), copied alone
# into an empty folder (nothing beside it: the WASM module must come from inside it), then driven by
# scripts/pack-smoke.mjs: --version, serve over REST, mcp over stdio, WASM hasher loaded.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
npx bun scripts/build.ts --compile bun-linux-x64
cp dist/toolwarden-linux-x64 "$work/toolwarden"
echo "executable: $(du -m "$work/toolwarden" | cut -f1) MB"
node scripts/pack-smoke.mjs "$work/toolwarden"
echo "compile smoke: linux-x64 passed"
