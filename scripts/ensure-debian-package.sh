#!/usr/bin/env bash
# Run by `./dev test` for each Debian package a test drives (Chromium for the browser tests, PgBouncer for the
# connection-pooling test): a fresh machine gets it here, from apt, as root or through sudo. Prints nothing when the
# binary is in place or its override variable names another build.
#   usage: ensure-debian-package.sh PACKAGE BINARY OVERRIDE_VARIABLE "WHAT NEEDS IT"
# For testing this script without removing the machine's package:
#   ENSURE_PACKAGE_PATH=/nonexistent   the path checked instead of BINARY
#   ENSURE_PACKAGE_DRY_RUN=1           print the install commands instead of running them
set -euo pipefail

package=$1
binary=${ENSURE_PACKAGE_PATH:-$2}
override=$3
purpose=$4
dry_run=${ENSURE_PACKAGE_DRY_RUN:-}

fail() {
  echo "error: $1" >&2
  exit 1
}

if [ -n "${!override:-}" ]; then
  [ -x "${!override}" ] || fail "$override=${!override} is not an executable; unset it to use Debian's $package"
  exit 0
fi
[ -x "$binary" ] && exit 0

# the one line a machine we cannot install on gets: what is missing and what to run
cannot="$purpose needs Debian's $package package at $binary and it could not be installed"
command -v apt-get >/dev/null 2>&1 || fail "$cannot (no apt-get): install $package or set $override"
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
  as_root=(sudo) # asks for a password only on a terminal
else
  fail "$cannot (not root, no sudo): run 'sudo apt-get install -y $package' as an administrator or set $override"
fi

# another install in progress (an unattended upgrade, a second checkout) holds dpkg's lock: wait for it
apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600)
echo "==> installing Debian's $package for $purpose (${as_root[*]:-as root} apt-get install $package)" >&2
if [ -n "$dry_run" ]; then
  echo "dry run: ${apt[*]} update -q" >&2
  echo "dry run: ${apt[*]} install -y -q $package" >&2
  exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${apt[@]}" update -q && "${apt[@]}" install -y -q "$package"; } >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  fail "$cannot (apt-get failed, its last lines are above): install $package or set $override"
fi
[ -x "$binary" ] || fail "apt-get installed $package but $binary is still missing; set $override to its binary"
