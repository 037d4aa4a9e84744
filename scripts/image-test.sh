#!/usr/bin/env bash
# Tests the built image (scripts/image.sh) on a machine whose podman builds but cannot run containers: mounts the
# image read-only, with a tmpfs on /tmp as Kubernetes' readOnlyRootFilesystem gives, and runs its entrypoint in a
# chroot of it on the host's network, as the image's user, with the image's environment and working directory.
# Checks that its runtime holds no development dependency; runs `migrate` on a fresh database of the machine's
# PostgreSQL, puts EAS on a throwaway anvil with the image's dev-chain-eas script, then `serve --api` (/healthz,
# /readyz, /dashboard/), `serve --worker` (its /healthz and /readyz), `serve --verify` and a CLI command; stops
# each with SIGTERM and expects exit 0. Run as root.
#   IMAGE       the image (default attestation-service:dev)
#   PGHOST/PGPORT/PGUSER   the PostgreSQL it makes the database in (default 127.0.0.1:5432, postgres)
#   ANVIL       the anvil binary (default: this checkout's, which ./dev setup installs)
set -euo pipefail
cd "$(dirname "$0")/.."

image=${IMAGE:-attestation-service:dev}
pg_host=${PGHOST:-127.0.0.1}
pg_port=${PGPORT:-5432}
pg_user=${PGUSER:-postgres}

fail() {
  echo "image-test: FAIL: $*" >&2
  exit 1
}
[ "$(id -u)" = 0 ] || fail "run as root (podman image mount and chroot need it)"
for tool in podman chroot createdb dropdb curl node; do command -v "$tool" >/dev/null || fail "$tool is missing"; done
podman image exists "$image" || fail "no image $image: build it with scripts/image.sh"

database="image_test_$$"
work=$(mktemp -d)
pids=()
mounted=()
mnt=
cleanup() {
  set +e
  for pid in "${pids[@]}"; do { kill -KILL "$pid" && wait "$pid"; } 2>/dev/null; done
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}"; done
  [ -n "$mnt" ] && podman image unmount "$image" >/dev/null
  dropdb -h "$pg_host" -p "$pg_port" -U "$pg_user" --if-exists "$database"
  rm -rf "$work"
}
trap cleanup EXIT

mnt=$(podman image mount "$image")
for dir in proc dev; do
  mount --bind "/$dir" "$mnt/$dir"
  mounted+=("$mnt/$dir")
done
mount -t tmpfs -o mode=1777 tmpfs "$mnt/tmp"
mounted+=("$mnt/tmp")
if [ -e "$mnt/etc/resolv.conf" ]; then
  mount --bind /etc/resolv.conf "$mnt/etc/resolv.conf"
  mounted+=("$mnt/etc/resolv.conf")
fi

# --- what the runtime holds -------------------------------------------------------------------------------------
app=$(podman image inspect --format '{{.Config.WorkingDir}}' "$image")
[ -n "$app" ] && [ -d "$mnt$app" ] || fail "the image names no working directory"
development=(typescript vite vitest react react-dom prisma embedded-postgres @embedded-postgres @foundry-rs hardhat maildev @maildev
  esbuild tsup @vitejs msw eslint prettier)
found=()
for name in "${development[@]}"; do
  while IFS= read -r hit; do found+=("${hit#"$mnt"}"); done < <(find "$mnt$app" -path "*/node_modules/$name" 2>/dev/null)
  while IFS= read -r hit; do found+=("${hit#"$mnt"}"); done < <(find "$mnt$app/node_modules/.pnpm" -maxdepth 1 -name "${name//\//+}@*" 2>/dev/null)
done
[ ${#found[@]} -eq 0 ] || fail "development dependencies in the runtime: ${found[*]}"
for needed in packages/dashboard/dist/index.html \
  packages/client/dist/index.js prisma/migrations packages/service/node_modules/.cache/node-compile; do
  [ -e "$mnt$app/$needed" ] || fail "$app/$needed is missing"
done
echo "image-test: runtime holds no development dependency (${development[*]}), and the built parts"

# --- running it -------------------------------------------------------------------------------------------------
user=$(podman image inspect --format '{{.Config.User}}' "$image")
[ -n "$user" ] && [ "$user" != root ] && [ "$user" != 0 ] || fail "the image runs as root"
uid=$(awk -F: -v u="$user" '$1 == u || $3 == u { print $3 ":" $4 }' "$mnt/etc/passwd")
[ -n "$uid" ] || fail "user $user is not in the image's /etc/passwd"
mapfile -t image_env < <(podman image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$image" | sed '/^$/d')
entrypoint=$(podman image inspect --format '{{join .Config.Entrypoint " "}}' "$image")

free_port() { node -e 's=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
api_port=$(free_port)
verify_port=$(free_port)
worker_port=$(free_port)
chain_port=$(free_port)

createdb -h "$pg_host" -p "$pg_port" -U "$pg_user" "$database"
# the chain: anvil from this checkout's development install, or ANVIL
anvil=${ANVIL:-$(ls node_modules/.pnpm/@foundry-rs+anvil-linux-*/node_modules/@foundry-rs/anvil-linux-*/bin/anvil 2>/dev/null | head -n 1 || true)}
[ -n "$anvil" ] && [ -x "$anvil" ] || fail "no anvil in this checkout's node_modules (run ./dev setup, or set ANVIL)"
"$anvil" --host 127.0.0.1 --port "$chain_port" --silent &
pids+=($!)

settings=(
  "HOST=127.0.0.1" "PORT=$api_port" "VERIFY_PORT=$verify_port" "WORKER_HEALTH_PORT=$worker_port"
  "DATABASE_URL=postgresql://$pg_user@$pg_host:$pg_port/$database"
  "CHAIN_RPC_URL=http://127.0.0.1:$chain_port"
  "SERVICE_SECRET=image-test-secret-0123456789abcdefghijklmnop"
  "API_URL=http://127.0.0.1:$api_port" "LOG_LEVEL=warn"
  # serve --verify on its own trusts no development key's address in a deployment: the dev relayer's, named
  "ATTESTER_ADDRESS=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
)

# Runs COMMAND... in the image as its user, from its working directory, with its environment and `settings`.
in_image() {
  env -i "${image_env[@]}" HOME="/home/$user" "${settings[@]}" \
    chroot --userspec="$uid" "$mnt" /bin/sh -c 'cd "$0" && exec "$@"' "$app" "$@"
}

# Starts COMMAND... as in_image does, in the background with its output in LOG; $! is the process itself (each step
# execs the next), so a signal sent to it reaches the service.
start_in_image() {
  local log=$1
  shift
  (exec env -i "${image_env[@]}" HOME="/home/$user" "${settings[@]}" \
    chroot --userspec="$uid" "$mnt" /bin/sh -c 'cd "$0" && exec "$@"' "$app" "$@") >"$log" 2>&1 &
  pids+=($!)
}

# Waits for URL to answer 200 (and to contain TEXT, when given); fails after 60 s or when PID exits.
wait_for() {
  local url=$1 pid=$2 text=${3:-} body
  for _ in $(seq 1 120); do
    if body=$(curl -fsS --max-time 2 "$url" 2>/dev/null) && [[ "$body" == *"$text"* ]]; then return 0; fi
    kill -0 "$pid" 2>/dev/null || fail "the process serving $url exited"
    sleep 0.5
  done
  fail "$url did not answer 200${text:+ with \"$text\"}: $body"
}

# Stops PID with SIGTERM and expects exit 0 within 45 s (the Kubernetes manifests' grace period).
stop_cleanly() {
  local pid=$1 what=$2 code=0
  kill -TERM "$pid"
  for _ in $(seq 1 90); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -0 "$pid" 2>/dev/null && fail "$what did not stop within 45 s of SIGTERM"
  wait "$pid" || code=$?
  [ "$code" = 0 ] || fail "$what exited $code on SIGTERM (log: $work/$what.log)"
}

in_image $entrypoint migrate >"$work/migrate.log" 2>&1 || { cat "$work/migrate.log" >&2; fail "migrate failed"; }
grep -q '^applied ' "$work/migrate.log" || fail "migrate applied nothing: $(cat "$work/migrate.log")"
echo "image-test: migrate: $(head -c 120 "$work/migrate.log")…"

in_image node packages/service/scripts/dev-chain-eas.ts >"$work/eas.log" 2>&1 || { cat "$work/eas.log" >&2; fail "dev-chain-eas failed"; }
while IFS='=' read -r key value; do settings+=("$key=$value"); done < <(grep -E '^(EAS|SCHEMA_REGISTRY)_ADDRESS=' "$work/eas.log")
echo "image-test: dev-chain-eas: $(tr '\n' ' ' <"$work/eas.log")"

start_in_image "$work/api.log" $entrypoint serve --api
api=$!
wait_for "http://127.0.0.1:$api_port/healthz" "$api"
wait_for "http://127.0.0.1:$api_port/readyz" "$api"
wait_for "http://127.0.0.1:$api_port/dashboard/" "$api" '<div id="root">'
echo "image-test: serve --api answers /healthz, /readyz and /dashboard/"

start_in_image "$work/worker.log" $entrypoint serve --worker
worker=$!
wait_for "http://127.0.0.1:$worker_port/healthz" "$worker"
wait_for "http://127.0.0.1:$worker_port/readyz" "$worker"
echo "image-test: serve --worker answers /healthz and /readyz on WORKER_HEALTH_PORT"

start_in_image "$work/verify.log" $entrypoint serve --verify
verify=$!
wait_for "http://127.0.0.1:$verify_port/healthz" "$verify"
echo "image-test: serve --verify answers /healthz"

key=$(in_image $entrypoint keys create --tier free --account image-test --json 2>"$work/cli.log") ||
  fail "the CLI failed: $(cat "$work/cli.log")"
[[ "$key" == *'"key":"svc_free_'* ]] || fail "keys create printed: $key"
echo "image-test: the CLI (keys create) works"

stop_cleanly "$verify" verify
stop_cleanly "$worker" worker
stop_cleanly "$api" api
echo "image-test: every role stopped with exit 0 on SIGTERM"
echo "image-test: OK ($image)"
