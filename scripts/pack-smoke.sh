#!/usr/bin/env bash
# The published package as a user gets it: `npm pack` (prepack builds dist/bin/toolwarden.js), install
# the tarball into an empty folder, then with Node alone on PATH (no bun, no deno) run the installed
# `toolwarden` through scripts/pack-smoke.mjs: --version, serve over REST, mcp over stdio with the
# official client. The same installed file is then run by Bun and by Deno (what `bunx toolwarden`
# and `deno run -A npm:toolwarden` execute).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

npm pack --silent --pack-destination "$work" > "$work/name"
tarball="$work/$(tail -n1 "$work/name")"
echo "packed $(basename "$tarball") ($(du -k "$tarball" | cut -f1) KiB): $(tar -tzf "$tarball" | tr '\n' ' ')"

# A PATH with node, npm and npx and nothing else (sh for npm's own spawns).
nodeonly="$work/node-only-bin"
mkdir -p "$nodeonly"
for tool in node npm npx sh; do ln -s "$(command -v "$tool")" "$nodeonly/$tool"; done
app="$work/app"
mkdir -p "$app"
(
  export PATH="$nodeonly"
  cd "$app"
  if command -v bun >/dev/null || command -v deno >/dev/null; then echo "bun or deno is on the node-only PATH" >&2; exit 1; fi
  echo '{"name": "smoke-app", "private": true}' > package.json
  npm install --silent --no-audit --no-fund "$tarball"
  echo "node $(node --version), npx --no-install toolwarden --version: $(npx --no-install toolwarden --version)"
  node "$repo/scripts/pack-smoke.mjs" "$app/node_modules/.bin/toolwarden"
)

bin="$app/node_modules/toolwarden/dist/bin/toolwarden.js"
node scripts/pack-smoke.mjs "$repo/node_modules/.bin/bun" "$bin"
node scripts/pack-smoke.mjs "$repo/node_modules/.bin/deno" run -A "$bin"
echo "pack smoke: node, bun and deno passed"
