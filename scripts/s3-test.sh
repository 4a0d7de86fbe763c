#!/usr/bin/env bash
# Run the S3 test files (test/storage/s3*) against a real radosgw that honours conditional PUT, and the
# many-instance suite (two `toolwarden serve` on one bucket, observations in one redis-server).
# Installs radosgw and redis-server if missing (apt, root), starts radosgw in a private folder on ports of
# its own (RGW_PORT, MON_PORT_V2, MON_PORT_V1 may be set; otherwise free ones are picked), runs the
# suites, stops it on exit. The test files start their own redis-server on a free loopback port.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
rgw="$repo/scripts/rgw.sh"

free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
export RGW_PORT=${RGW_PORT:-$(free_port)} MON_PORT_V2=${MON_PORT_V2:-$(free_port)} MON_PORT_V1=${MON_PORT_V1:-$(free_port)}

export RGW_BASE=${RGW_BASE:-$(mktemp -d "${TMPDIR:-/tmp}/toolwarden-rgw-XXXXXX")}
bash "$rgw" install
bash "$repo/scripts/redis-install.sh"
trap 'bash "$rgw" stop >/dev/null 2>&1 || true' EXIT
exports=$(bash "$rgw" start | tee /dev/stderr | grep "^export ")
eval "$exports"
echo "s3-test: radosgw at $S3_ENDPOINT (data in $RGW_BASE)"

cd "$repo"
status=0
npx bun test --timeout 60000 test/storage/s3 test/reliability/instances.test.ts test/hosting/s3 || status=$?
exit "$status"
