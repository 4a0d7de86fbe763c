#!/usr/bin/env bash
# The official MCP conformance suite's active server scenarios against `toolwarden serve` (/mcp, no
# auth, a throwaway directory). Every scenario that applies must pass; the ones that need the suite's
# own fixture tools, resources or prompts are listed, each with why, in scripts/mcp-conformance-na.yaml.
# The suite runs on Bun: it needs fs.globSync, which Node 20 lacks.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
pid=""
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/ws"
printf 'hello\n' > "$work/ws/hello.txt"
# Bun itself, not through npx: $! must be the server, or the cleanup kills only npx and leaves the
# server holding CI's output pipe open (CI then waits on it forever).
node_modules/.bin/bun src/cli.ts serve "$work/ws" --no-auth --port 0 --quiet > "$work/banner" 2> "$work/stderr" < /dev/null &
pid=$!
url=""
for _ in $(seq 1 600); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/banner" | head -n1 || true)
  [ -n "$url" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/stderr" >&2; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "serve printed no URL" >&2; exit 1; }
npx bun node_modules/@modelcontextprotocol/conformance/dist/index.js server \
  --url "$url/mcp" --expected-failures scripts/mcp-conformance-na.yaml -o "$work/results" 2>&1 \
  | grep -v '^Results saved to\|^Running client scenario\|^=== Running scenario\|^$'
