#!/usr/bin/env bash
# Run by `./dev test`: the connection-pooling test (packages/server/test/system/pgbouncer.test.ts) runs Debian's
# PgBouncer in front of the test PostgreSQL, so a fresh machine gets the `pgbouncer` package here, from apt, as root or
# through sudo. Prints nothing when it is in place or PGBOUNCER_PATH names another build.
#   ENSURE_PGBOUNCER_PATH=/nonexistent   the path checked instead of /usr/sbin/pgbouncer
#   ENSURE_PGBOUNCER_DRY_RUN=1           print the install commands instead of running them
set -euo pipefail

pgbouncer=${ENSURE_PGBOUNCER_PATH:-/usr/sbin/pgbouncer}
dry_run=${ENSURE_PGBOUNCER_DRY_RUN:-}

fail() {
  echo "error: $1" >&2
  exit 1
}

if [ -n "${PGBOUNCER_PATH:-}" ]; then
  [ -x "$PGBOUNCER_PATH" ] || fail "PGBOUNCER_PATH=$PGBOUNCER_PATH is not an executable; unset it to use Debian's pgbouncer"
  exit 0
fi
[ -x "$pgbouncer" ] && exit 0

cannot="the pooling test needs Debian's pgbouncer package at $pgbouncer and it could not be installed"
command -v apt-get >/dev/null 2>&1 || fail "$cannot (no apt-get): install pgbouncer or set PGBOUNCER_PATH"
if [ "$(id -u)" = 0 ]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || [ -t 0 ]; }; then
  as_root=(sudo) # asks for a password only on a terminal
else
  fail "$cannot (not root, no sudo): run 'sudo apt-get install -y pgbouncer' as an administrator or set PGBOUNCER_PATH"
fi

apt=("${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
echo "==> installing Debian's pgbouncer for the pooling test (${as_root[*]:-as root} apt-get install pgbouncer)" >&2
if [ -n "$dry_run" ]; then
  echo "dry run: ${apt[*]} update -q" >&2
  echo "dry run: ${apt[*]} install -y -q pgbouncer" >&2
  exit 0
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { "${apt[@]}" update -q && "${apt[@]}" install -y -q pgbouncer; } >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  fail "$cannot (apt-get failed, its last lines are above): install pgbouncer or set PGBOUNCER_PATH"
fi
[ -x "$pgbouncer" ] || fail "apt-get installed pgbouncer but $pgbouncer is still missing; set PGBOUNCER_PATH to its binary"
