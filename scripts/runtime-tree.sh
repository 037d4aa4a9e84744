#!/usr/bin/env bash
# Lays out the service's runtime in DEST from a built checkout (after `pnpm install` and the SDK's and dashboard's
# builds): the workspace's shape (the server finds prisma/migrations from its own folder), the sources Node runs, the
# built dashboard and SDK, and a production install of what they import,
# without development tools (scripts/prune-runtime.mjs), with the compile cache filled. The Dockerfile's build stage
# runs it; it can be run on a machine too, to try a runtime tree without an image.
#   scripts/runtime-tree.sh DEST
set -euo pipefail
cd "$(dirname "$0")/.."

dest=$(realpath -m "${1:?usage: scripts/runtime-tree.sh DEST}")
for built in packages/dashboard/dist/index.html packages/client/dist/index.js; do
  [ -e "$built" ] || { echo "error: $built is missing: build the SDK and dashboard first" >&2; exit 1; }
done
rm -rf "$dest"
mkdir -p "$dest/packages"

# what each package runs from; tests, benchmarks and the dashboard's and SDK's sources stay behind
copy() {
  local package=$1
  shift
  mkdir -p "$dest/packages/$package"
  (cd "packages/$package" && cp -a package.json "$@" "$dest/packages/$package/")
}
cp -a package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc LICENSE patches prisma "$dest/"
copy protocol src
copy server src
copy service bin src scripts
copy verify-web src
copy dashboard serve.ts dist
copy client dist LICENSE README.md
# the workspace's other projects (the examples) are not part of the runtime: only their manifests, for the lockfile
mkdir -p "$dest/examples" && cp -a examples/package.json "$dest/examples/"

(cd "$dest" && pnpm install --prod --frozen-lockfile --offline --filter '@attestation-service/service...' \
  --config.confirm-modules-purge=false --reporter=append-only | grep -v '^Progress' || true)
[ -e "$dest/packages/service/node_modules/@attestation-service/server" ] ||
  { echo "error: the production install in $dest failed" >&2; exit 1; }
rm -rf "$dest/examples"
node scripts/prune-runtime.mjs "$dest" packages/service

# the compile cache, filled where the sources will run (its entries are keyed by path and content)
(cd "$dest" && node packages/service/scripts/warm-compile-cache.mjs >/dev/null)
