#!/usr/bin/env bash
# Run by `./dev test`: the verification app's browser tests drive Debian's Chromium through playwright-core (which
# downloads no browser), so a fresh machine gets the `chromium` package here, from apt, as root or through sudo.
# Prints nothing when Chromium is in place or CHROMIUM_PATH names another build.
# For testing this script without removing the machine's browser:
#   ENSURE_CHROMIUM_PATH=/nonexistent   the path checked instead of /usr/bin/chromium
#   ENSURE_CHROMIUM_DRY_RUN=1           print the install commands instead of running them
set -euo pipefail

chromium=${ENSURE_CHROMIUM_PATH:-/usr/bin/chromium}
dry_run=${ENSURE_CHROMIUM_DRY_RUN:-}

fail() {
  echo "error: $1" >&2
  exit 1
}

if [ -n "${CHROMIUM_PATH:-}" ]; then
  [ -x "$CHROMIUM_PATH" ] || fail "CHROMIUM_PATH=$CHROMIUM_PATH is not an executable; unset it to use Debian's chromium"
  exit 0
fi
[ -x "$chromium" ] && exit 0

# the one line a machine we cannot install on gets: what is missing and what to run
cannot="the browser tests need Debian's chromium package at $chromium and it could not be installed"
command -v apt-get >/dev/null 2>&1 || fail "$cannot (no apt-get): install chromium or set CHROMIUM_PATH to a Chromium"
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
  as_root=(sudo) # asks for a password only on a terminal
else
  fail "$cannot (not root, no sudo): run 'sudo apt-get install -y chromium' as an administrator or set CHROMIUM_PATH"
fi

apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
echo "==> installing Debian's chromium for the browser tests (${as_root[*]:-as root} apt-get install chromium)" >&2
if [ -n "$dry_run" ]; then
  echo "dry run: ${apt[*]} update -q" >&2
  echo "dry run: ${apt[*]} install -y -q chromium" >&2
  exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${apt[@]}" update -q && "${apt[@]}" install -y -q chromium; } >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  fail "$cannot (apt-get failed, its last lines are above): install chromium or set CHROMIUM_PATH"
fi
[ -x "$chromium" ] || fail "apt-get installed chromium but $chromium is still missing; set CHROMIUM_PATH to its binary"
