#!/usr/bin/env bash
# Run the S3 test files (test/storage/s3*) against a real radosgw that honours conditional PUT.
# Installs radosgw if missing (apt, root), starts it in a private folder, runs the suite, stops it on exit.
# rgw.sh lives in the shared/ folder beside the repository (CI lays a copy of it there too).
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
rgw="$repo/../shared/s3/rgw.sh"
[ -f "$rgw" ] || { echo "s3-test: $rgw not found (shared/ must sit beside the repository)" >&2; exit 1; }

export RGW_BASE=${RGW_BASE:-$(mktemp -d "${TMPDIR:-/tmp}/toolwarden-rgw-XXXXXX")}
bash "$rgw" install
trap 'bash "$rgw" stop >/dev/null 2>&1 || true' EXIT
exports=$(bash "$rgw" start | tee /dev/stderr | grep "^export ")
eval "$exports"
echo "s3-test: radosgw at $S3_ENDPOINT (data in $RGW_BASE)"

cd "$repo"
status=0
npx bun test test/storage/s3 test/hosting/s3 || status=$?
exit "$status"
