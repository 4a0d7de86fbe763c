#!/usr/bin/env bash
# The Debian packages the suite drives for real, checked before `npm test` (its pretest):
# chromium-headless-shell (the inspector's browser tests, through playwright-core), redis-server and
# redis-cli (observations in Redis; each test starts its own server) and python3 (the directory-swap
# race). Installed when missing and this is root with apt-get (a fresh machine, CI); otherwise the
# missing ones are named with the command that installs them.
set -euo pipefail
missing=()
[ -x "${TW_CHROMIUM:-/usr/bin/chromium-headless-shell}" ] || missing+=(chromium-headless-shell)
{ command -v redis-server && command -v redis-cli; } >/dev/null || missing+=(redis-server redis-tools)
command -v python3 >/dev/null || missing+=(python3)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "test-deps: installing ${missing[*]} (apt-get)" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "test-deps: the suite needs ${missing[*]}: sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
  exit 1
fi
