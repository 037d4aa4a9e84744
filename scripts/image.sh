#!/usr/bin/env bash
# Builds the service's image with podman (the Dockerfile at the root) and prints its size. Where Docker Hub is out
# of reach, its base node:24-bookworm-slim is made first by scripts/base-image.sh when podman does not have it.
# Runs as root on these machines: podman builds with --isolation chroot (its containers cannot run here).
#   IMAGE   the tag (default attestation-service:dev)
set -euo pipefail
cd "$(dirname "$0")/.."

image=${IMAGE:-attestation-service:dev}
base=docker.io/library/node:24-bookworm-slim

podman image exists "$base" || scripts/base-image.sh

# a CA the machine's npm trusts (a TLS-inspecting proxy) goes to the build as a secret, never into a layer
secret=()
cafile=${npm_config_cafile:-$(sed -n 's/^[[:space:]]*cafile[[:space:]]*=[[:space:]]*//p' /etc/npmrc /usr/etc/npmrc ~/.npmrc 2>/dev/null | tail -n 1)}
if [ -n "$cafile" ] && [ -f "$cafile" ]; then secret=(--secret "id=npm-ca,src=$cafile"); fi

podman build --isolation chroot --network host "${secret[@]}" -t "$image" .

podman image inspect --format '{{.Size}}' "$image" | awk -v name="$image" '{ printf "%s: %.0f MB\n", name, $1 / 1000000 }'
podman image inspect --format '{{.Size}}' "$base" | awk -v name="$base" '{ printf "  of which its base %s: %.0f MB\n", name, $1 / 1000000 }'
