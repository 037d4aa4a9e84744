#!/usr/bin/env bash
# Run by `./dev test` after the test suite: builds the image (scripts/image.sh: its stand-in base first, where podman
# does not have it) and tests it (scripts/image-test.sh: the runtime holds no development dependency, every role
# starts from the mounted image and answers its probes). Installs podman and debootstrap from Debian when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-debian-package.sh podman /usr/bin/podman PODMAN_PATH 'the image build'
scripts/ensure-debian-package.sh debootstrap /usr/sbin/debootstrap DEBOOTSTRAP_PATH 'the stand-in base image'
started=$SECONDS
scripts/image.sh
scripts/image-test.sh
echo "image checks: built and tested in $((SECONDS - started)) s"
