#!/usr/bin/env bash
# The production topology on one machine, from the image (docs/operations.md, "Topology test"): mounts the image
# (scripts/image.sh builds it when missing) and runs its roles as separate processes in a chroot of the mount as its
# user, like scripts/image-test.sh: two API replicas (through PgBouncer in transaction mode, Redis for shared limits)
# behind Debian's nginx, two workers (PostgreSQL directly), the verification app (without the service's Secret, as
# deploy/kubernetes runs it); a PostgreSQL, PgBouncer, Redis and anvil (1 s blocks) of its own.
# packages/server/test/topology/load.ts drives mixed load through nginx with the SDK
# while this script kills an API replica and a worker with SIGKILL and restarts PostgreSQL, restarting what dies as
# Kubernetes would (restartPolicy and the liveness probe); then load.ts checks the outcome (no create lost or
# duplicated on chain, exact quotas, every event delivered) and probes.ts that deploy/kubernetes' probes answer.
# Run as root. Tears everything down on exit.
#   IMAGE            the image (default attestation-service:dev)
#   LOAD_SECONDS     how long the load runs (default 75)
#   ANVIL            the anvil binary (default: this checkout's, which ./dev setup installs)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

image=${IMAGE:-attestation-service:dev}
load_seconds=${LOAD_SECONDS:-75}
started_at=$SECONDS

say() { echo "topology: $*"; }
fail() {
  echo "topology: FAIL: $*" >&2
  exit 1
}
[ "$(id -u)" = 0 ] || fail "run as root (podman image mount, chroot and the database's own user need it)"
# shellcheck source=toolchain.sh
source scripts/toolchain.sh
./dev setup
scripts/ensure-debian-package.sh nginx /usr/sbin/nginx NGINX_PATH "the topology test"
scripts/ensure-debian-package.sh pgbouncer /usr/sbin/pgbouncer PGBOUNCER_PATH "the topology test"
scripts/ensure-debian-package.sh redis-server /usr/bin/redis-server REDIS_SERVER_PATH "the topology test"
nginx=${NGINX_PATH:-/usr/sbin/nginx}
pgbouncer=${PGBOUNCER_PATH:-/usr/sbin/pgbouncer}
redis=${REDIS_SERVER_PATH:-/usr/bin/redis-server}
pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -x "$pg_bin/initdb" ] || fail "no PostgreSQL server binaries under /usr/lib/postgresql/*/bin"
for tool in podman chroot curl runuser kubectl; do command -v "$tool" >/dev/null || fail "$tool is missing"; done
anvil=${ANVIL:-$(ls node_modules/.pnpm/@foundry-rs+anvil-linux-*/node_modules/@foundry-rs/anvil-linux-*/bin/anvil 2>/dev/null | head -n 1 || true)}
[ -n "$anvil" ] && [ -x "$anvil" ] || fail "no anvil in this checkout's node_modules (run ./dev setup, or set ANVIL)"
if ! podman image exists "$image"; then
  say "no image $image: building it (scripts/image.sh)"
  IMAGE=$image nice -n 10 scripts/image.sh
fi

work=$(mktemp -d)
chmod 755 "$work"
pg_data=$work/postgres
declare -A pid=()
mounted=()
mnt=
cleanup() {
  set +e
  # nginx's master stops its worker (a SIGKILL would leave it listening); everything else has no children
  if [ -n "${pid[nginx]:-}" ] && kill -TERM "${pid[nginx]}" 2>/dev/null; then
    for _ in $(seq 1 50); do kill -0 "${pid[nginx]}" 2>/dev/null || break; sleep 0.1; done
  fi
  for name in "${!pid[@]}"; do kill -KILL "${pid[$name]}" 2>/dev/null; done
  for name in "${!pid[@]}"; do wait "${pid[$name]}" 2>/dev/null; done
  [ -f "$pg_data/postmaster.pid" ] && runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_data" stop -m immediate >/dev/null 2>&1
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount "${mounted[i]}"; done
  [ -n "$mnt" ] && podman image unmount "$image" >/dev/null
  if [ -n "${KEEP_WORK:-}" ]; then echo "topology: logs kept in $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# --- the image, mounted as scripts/image-test.sh mounts it --------------------------------------------------------
mnt=$(podman image mount "$image")
for dir in proc dev; do
  mount --bind "/$dir" "$mnt/$dir"
  mounted+=("$mnt/$dir")
done
mount -t tmpfs -o mode=1777 tmpfs "$mnt/tmp"
mounted+=("$mnt/tmp")
app=$(podman image inspect --format '{{.Config.WorkingDir}}' "$image")
user=$(podman image inspect --format '{{.Config.User}}' "$image")
uid=$(awk -F: -v u="$user" '$1 == u || $3 == u { print $3 ":" $4 }' "$mnt/etc/passwd")
[ -n "$uid" ] && [ "${uid%%:*}" != 0 ] || fail "the image's user ($user) is root or unknown"
mapfile -t image_env < <(podman image inspect --format '{{range .Config.Env}}{{println .}}{{end}}' "$image" | sed '/^$/d')
entrypoint=$(podman image inspect --format '{{join .Config.Entrypoint " "}}' "$image")

free_port() { node -e 's=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
declare -A port=()
for name in pg pgbouncer redis chain nginx api1 api2 worker1 worker2 verify; do port[$name]=$(free_port); done

# Waits for URL to answer 200; fails after 60 s or when the process NAME exits.
wait_for() {
  local url=$1 name=$2
  for _ in $(seq 1 120); do
    curl -fsS --max-time 2 "$url" >/dev/null 2>&1 && return 0
    kill -0 "${pid[$name]}" 2>/dev/null || fail "$name exited (log: $(tail -n 5 "$work/$name.log" 2>/dev/null))"
    sleep 0.5
  done
  fail "$url did not answer 200"
}

# --- infrastructure: PostgreSQL, PgBouncer, Redis, anvil ----------------------------------------------------------
mkdir -p "$pg_data"
chown postgres: "$pg_data"
runuser -u postgres -- "$pg_bin/initdb" -D "$pg_data" -U postgres -A trust >"$work/initdb.log" 2>&1 ||
  fail "initdb failed: $(tail -n 5 "$work/initdb.log")"
cat >>"$pg_data/postgresql.conf" <<EOF
port = ${port[pg]}
listen_addresses = '127.0.0.1'
unix_socket_directories = '$pg_data'
max_connections = 200
fsync = off
EOF
pg_ctl() { runuser -u postgres -- "$pg_bin/pg_ctl" -D "$pg_data" -l "$pg_data/server.log" -w "$@" >/dev/null; }
pg_ctl start || fail "PostgreSQL did not start: $(tail -n 5 "$pg_data/server.log")"
"$pg_bin/psql" -h 127.0.0.1 -p "${port[pg]}" -U postgres -qc 'CREATE DATABASE attestation' postgres
direct_url="postgresql://postgres@127.0.0.1:${port[pg]}/attestation"
pooled_url="postgresql://postgres@127.0.0.1:${port[pgbouncer]}/attestation"

mkdir -p "$work/pgbouncer"
echo '"postgres" ""' >"$work/pgbouncer/users.txt"
cat >"$work/pgbouncer/pgbouncer.ini" <<EOF
[databases]
* = host=127.0.0.1 port=${port[pg]}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port[pgbouncer]}
unix_socket_dir =
auth_type = trust
auth_file = $work/pgbouncer/users.txt
pool_mode = transaction
ignore_startup_parameters = statement_timeout
default_pool_size = 20
; the default 15 s of refusing every client after one failed login would outlast a restart of PostgreSQL
server_login_retry = 1
max_client_conn = 500
EOF
chmod -R a+rX "$work/pgbouncer"
"$pgbouncer" -u nobody "$work/pgbouncer/pgbouncer.ini" >"$work/pgbouncer.log" 2>&1 &
pid[pgbouncer]=$!
"$redis" --bind 127.0.0.1 --port "${port[redis]}" --save '' --appendonly no >"$work/redis.log" 2>&1 &
pid[redis]=$!
"$anvil" --host 127.0.0.1 --port "${port[chain]}" --block-time 1 --silent >"$work/chain.log" 2>&1 &
pid[chain]=$!

# as deploy/kubernetes splits them: `config` is the ConfigMap's (config.env), every role reads it; `secret` is the
# Secret that all but the verification app read; `verify_secret` is the verification app's own
# (verify-secret.example.env), without which, and with nothing of `secret`, it must start
config=(
  "HOST=127.0.0.1" "PUBLIC_BASE_URL=http://127.0.0.1:${port[nginx]}" "VERIFY_BASE_URL=http://127.0.0.1:${port[verify]}"
  "API_URL=http://127.0.0.1:${port[nginx]}" "TRUST_PROXY=1" "LOG_LEVEL=warn" "SHUTDOWN_DRAIN_TIMEOUT=5s"
  "WEBHOOK_ALLOW_PRIVATE_URLS=true" "WEBHOOK_RETRY_DELAYS=1s,2s,5s,10s" "ANCHOR_INTERVAL=20s"
)
secret=(
  "DATABASE_URL=$pooled_url" "REDIS_URL=redis://127.0.0.1:${port[redis]}"
  "CHAIN_RPC_URL=http://127.0.0.1:${port[chain]}" "SERVICE_SECRET=topology-test-secret-$(head -c 24 /dev/urandom | base64)"
)
# the attester: the address of the relayer's key, which the API defaults to on a development chain (anvil's first)
verify_secret=(
  "REDIS_URL=redis://127.0.0.1:${port[redis]}" "CHAIN_RPC_URL=http://127.0.0.1:${port[chain]}"
  "ATTESTER_ADDRESS=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"
)

# Runs COMMAND... in the image as its user, from its working directory, with its environment, `config`, `secret`
# (`verify_secret` instead after --verify-secret) and the VAR=value words before `--`. In the foreground, or
# (start_role NAME ...) in the background as pid[NAME].
in_image() {
  local secret_words=("${secret[@]}") extra=()
  if [ "$1" = --verify-secret ]; then
    secret_words=("${verify_secret[@]}")
    shift
  fi
  while [ "$1" != -- ]; do extra+=("$1"); shift; done
  shift
  exec env -i "${image_env[@]}" HOME="/home/$user" "${config[@]}" "${secret_words[@]}" "${extra[@]}" \
    chroot --userspec="$uid" "$mnt" /bin/sh -c 'cd "$0" && exec "$@"' "$app" "$@"
}
declare -A role=()
role[api1]="PORT=${port[api1]} -- $entrypoint serve --api"
role[api2]="PORT=${port[api2]} -- $entrypoint serve --api"
role[worker1]="WORKER_DATABASE_URL=$direct_url WORKER_HEALTH_PORT=${port[worker1]} -- $entrypoint serve --worker"
role[worker2]="WORKER_DATABASE_URL=$direct_url WORKER_HEALTH_PORT=${port[worker2]} -- $entrypoint serve --worker"
# nothing is in front of it here (an ingress controller is, on Kubernetes): its visitors' X-Forwarded-For is theirs
role[verify]="--verify-secret VERIFY_PORT=${port[verify]} TRUST_PROXY=0 -- $entrypoint serve --verify"
declare -A liveness=(
  [api1]="http://127.0.0.1:${port[api1]}/healthz" [api2]="http://127.0.0.1:${port[api2]}/healthz"
  [worker1]="http://127.0.0.1:${port[worker1]}/healthz" [worker2]="http://127.0.0.1:${port[worker2]}/healthz"
  [verify]="http://127.0.0.1:${port[verify]}/healthz"
)
declare -A starting_since=()
start_role() {
  local name=$1
  starting_since[$name]=$SECONDS
  # shellcheck disable=SC2086 # the role's words are split on purpose
  (in_image ${role[$name]}) >>"$work/$name.log" 2>&1 &
  pid[$name]=$!
}

(in_image DATABASE_URL="$direct_url" -- $entrypoint migrate) >"$work/migrate.log" 2>&1 ||
  fail "migrate failed: $(tail -n 5 "$work/migrate.log")"
(in_image -- node packages/service/scripts/dev-chain-eas.ts) >"$work/eas.log" 2>&1 ||
  fail "dev-chain-eas failed: $(tail -n 5 "$work/eas.log")"
while IFS='=' read -r key value; do config+=("$key=$value"); done < <(grep -E '^(EAS|SCHEMA_REGISTRY)_ADDRESS=' "$work/eas.log")
eas_address=$(sed -n 's/^EAS_ADDRESS=//p' "$work/eas.log")
say "infrastructure up: PostgreSQL :${port[pg]}, PgBouncer :${port[pgbouncer]} (transaction), Redis :${port[redis]}, anvil :${port[chain]} (1 s blocks), EAS $eas_address"

# the first replica registers the schema on chain; the rest start once it is ready
start_role api1
wait_for "http://127.0.0.1:${port[api1]}/readyz" api1
for name in api2 worker1 worker2; do start_role "$name"; done
wait_for "http://127.0.0.1:${port[api2]}/readyz" api2
wait_for "http://127.0.0.1:${port[worker1]}/readyz" worker1
wait_for "http://127.0.0.1:${port[worker2]}/readyz" worker2

mkdir -p "$work/nginx"
sed -e "s|@WORK@|$work/nginx|g" -e "s|@PORT@|${port[nginx]}|g" -e "s|@API_PORT_1@|${port[api1]}|g" \
  -e "s|@API_PORT_2@|${port[api2]}|g" packages/server/test/topology/nginx.conf >"$work/nginx/nginx.conf"
chown nobody "$work/nginx"
"$nginx" -p "$work/nginx" -c "$work/nginx/nginx.conf" >"$work/nginx.log" 2>&1 &
pid[nginx]=$!
wait_for "http://127.0.0.1:${port[nginx]}/readyz" nginx
start_role verify
wait_for "http://127.0.0.1:${port[verify]}/healthz" verify
say "roles up from $image as uid ${uid%%:*}: nginx :${port[nginx]} -> api :${port[api1]} :${port[api2]}; worker health :${port[worker1]} :${port[worker2]}; verify :${port[verify]}"

# --- keys from the image's CLI ------------------------------------------------------------------------------------
keys=()
for spec in pro:topology-a pro:topology-a pro:topology-b enterprise:topology-c; do
  key=$(in_image -- $entrypoint keys create --tier "${spec%%:*}" --account "${spec#*:}" --json 2>"$work/cli.log") ||
    fail "keys create failed: $(cat "$work/cli.log")"
  keys+=("$key")
done
keys_json="[$(IFS=,; echo "${keys[*]}")]"

# --- load, with faults --------------------------------------------------------------------------------------------
(TOPOLOGY_API_URL="http://127.0.0.1:${port[nginx]}" TOPOLOGY_KEYS="$keys_json" TOPOLOGY_DATABASE_URL="$direct_url" \
  TOPOLOGY_CHAIN_URL="http://127.0.0.1:${port[chain]}" TOPOLOGY_EAS_ADDRESS="$eas_address" \
  TOPOLOGY_LOAD_SECONDS="$load_seconds" TOPOLOGY_STARTED_FILE="$work/load-started" \
  exec node packages/server/test/topology/load.ts) &
load=$!

# The supervisor: restarts a role whose process exited, or whose /healthz failed 3 times running once it had answered
# (the manifests' startup and liveness probes), unless it is held down on purpose until held_until[NAME].
declare -A failures=() held_until=() restarts=()
supervise() {
  local now=$1 name
  for name in api1 api2 worker1 worker2 verify; do
    [ "${held_until[$name]:-0}" -gt "$now" ] && continue
    if ! kill -0 "${pid[$name]}" 2>/dev/null; then
      wait "${pid[$name]}" 2>/dev/null || true
      say "t=${now}s $name is not running: restarting it"
    elif curl -fsS --max-time 2 -o /dev/null "${liveness[$name]}" 2>/dev/null; then
      failures[$name]=0
      starting_since[$name]=
      continue
    elif [ -n "${starting_since[$name]:-}" ] && [ $((SECONDS - starting_since[$name])) -lt 120 ]; then
      continue # the startup probe: liveness counts once /healthz has answered, or after 2 minutes
    else
      failures[$name]=$((${failures[$name]:-0} + 1))
      [ "${failures[$name]}" -lt 3 ] && continue
      say "t=${now}s $name failed its liveness probe 3 times: restarting it"
      kill -KILL "${pid[$name]}" 2>/dev/null
      wait "${pid[$name]}" 2>/dev/null || true
    fi
    failures[$name]=0
    restarts[$name]=$((${restarts[$name]:-0} + 1))
    start_role "$name"
  done
}

for _ in $(seq 1 240); do [ -e "$work/load-started" ] || ! kill -0 "$load" 2>/dev/null && break; sleep 0.5; done
[ -e "$work/load-started" ] || fail "the load program did not start"
t0=$SECONDS
declare -A done_event=()
deadline=$((t0 + load_seconds + 240))
while kill -0 "$load" 2>/dev/null; do
  now=$((SECONDS - t0))
  [ "$SECONDS" -lt "$deadline" ] || { kill -TERM "$load"; fail "the load program ran past its bound"; }
  if [ "$now" -ge 15 ] && [ -z "${done_event[api]:-}" ]; then
    done_event[api]=1
    kill -KILL "${pid[api1]}"
    held_until[api1]=$((now + 10))
    say "t=${now}s kill -9 api1 (pid ${pid[api1]}); it restarts in 10 s"
  fi
  if [ "$now" -ge 30 ] && [ -z "${done_event[worker]:-}" ]; then
    done_event[worker]=1
    kill -KILL "${pid[worker1]}"
    held_until[worker1]=$((now + 5))
    say "t=${now}s kill -9 worker1 (pid ${pid[worker1]}); it restarts in 5 s"
  fi
  if [ "$now" -ge 45 ] && [ -z "${done_event[postgres]:-}" ]; then
    done_event[postgres]=1
    before=$SECONDS
    pg_ctl restart -m fast || fail "PostgreSQL did not restart: $(tail -n 5 "$pg_data/server.log")"
    say "t=${now}s PostgreSQL restarted (pg_ctl restart -m fast, $((SECONDS - before)) s)"
  fi
  supervise "$now"
  sleep 1
done
load_code=0
wait "$load" || load_code=$?
restarted=$(for name in "${!restarts[@]}"; do printf '%s×%s ' "$name" "${restarts[$name]}"; done)
say "restarts by the supervisor: ${restarted:-none}"
[ "$load_code" = 0 ] || fail "the load program's checks failed (exit $load_code)"

# --- every probe of deploy/kubernetes answers on the running roles ------------------------------------------------
kubectl kustomize deploy/kubernetes >"$work/kubernetes.yaml" || fail "kubectl kustomize deploy/kubernetes failed"
ports_json="{\"api\":{\"8080\":[${port[api1]},${port[api2]}]},\"worker\":{\"8082\":[${port[worker1]},${port[worker2]}]},\"verify\":{\"8081\":[${port[verify]}]}}"
node packages/server/test/topology/probes.ts "$work/kubernetes.yaml" "$ports_json" || fail "a probe of deploy/kubernetes did not answer"

say "OK in $((SECONDS - started_at)) s ($image; root $root)"
