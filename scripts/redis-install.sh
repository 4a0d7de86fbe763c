#!/usr/bin/env bash
# Install redis-server (and redis-cli) from Debian when missing; the tests start their own servers on
# free loopback ports (test/helpers/redis-server.ts). Needs root and apt when it has to install.
set -euo pipefail
command -v redis-server >/dev/null && command -v redis-cli >/dev/null && exit 0
apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server redis-tools >/dev/null
