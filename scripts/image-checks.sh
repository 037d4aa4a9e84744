#!/usr/bin/env bash
# Run by `./dev test` after the test suite: builds the image (scripts/image.sh: its stand-in base first, where podman
# does not have it), tests it (scripts/image-test.sh: the runtime holds no development dependency, every role starts
# from the mounted image and answers its probes), then runs the topology under faults from it
# (scripts/topology-test.sh: nginx, two API replicas, two workers, PgBouncer, kill -9 and a PostgreSQL restart under
# load; docs/operations.md, "Topology test"). Installs podman and debootstrap from Debian when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-debian-package.sh podman /usr/bin/podman PODMAN_PATH 'the image build'
scripts/ensure-debian-package.sh debootstrap /usr/sbin/debootstrap DEBOOTSTRAP_PATH 'the stand-in base image'
started=$SECONDS
scripts/image.sh
scripts/image-test.sh
scripts/topology-test.sh
echo "image checks: built, tested and run as a topology under faults in $((SECONDS - started)) s"
