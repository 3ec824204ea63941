#!/usr/bin/env bash
# Resident memory of `gpusched serve`: idle, then with 128 nodes of 8 GPUs
# and 10,000 pending jobs after a few scheduling passes. Needs a PostgreSQL
# it may create a database on (PGHOST/PGPORT/PGUSER, default the local
# server as postgres) and psql. Usage: bench/memory.sh [path/to/gpusched]
set -euo pipefail
bin=${1:-bin/gpusched}
[ -x "$bin" ] || { echo "build it first: make build" >&2; exit 1; }
command -v psql >/dev/null || { echo "memory.sh: psql not found; skipping" >&2; exit 0; }
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
db=gpusched_mem_$$
port=$((20000 + $$ % 10000))
psql -q -c "CREATE DATABASE $db" >/dev/null
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	psql -q -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null || true
}
trap cleanup EXIT
rss() { awk '/VmRSS/ {printf "%.1f", $2 / 1024}' "/proc/$pid/status"; }
DATABASE_URL="postgres://$PGUSER@$PGHOST:$PGPORT/$db?sslmode=disable" \
GPUSCHED_SESSION_KEY=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n') \
GPUSCHED_LOG_LEVEL=warn "$bin" serve --listen "127.0.0.1:$port" >/dev/null 2>&1 &
pid=$!
for _ in $(seq 100); do curl -fs "127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
sleep 10
echo "idle:                          RSS $(rss) MB"
psql -q -d "$db" >/dev/null <<'SQL'
INSERT INTO users (email, name, role) SELECT 'user' || i || '@example.com', 'User ' || i, 'member' FROM generate_series(1, 16) i;
INSERT INTO nodes (name, hostname, status, registered_at, last_heartbeat_at)
SELECT 'node-' || i, 'node-' || i || '.lab', 'up', now(), now() + interval '1 day' FROM generate_series(1, 128) i;
INSERT INTO gpus (node_id, idx, uuid, model, memory_mib)
SELECT n.id, g, 'GPU-' || n.id || '-' || g, 'NVIDIA H100 80GB HBM3', 81559 FROM nodes n, generate_series(0, 7) g;
INSERT INTO jobs (name, owner_id, command, gpu_count, priority, estimated_duration_s, executor, submitted_at)
SELECT 'mem-' || i, (SELECT id FROM users ORDER BY id LIMIT 1 OFFSET i % 16), 'python train.py',
       1 + (i * 7919) % 8, 1 + (i * 31) % 4, 600 + (i * 13) % 7200, 'lease', now() - interval '1 day' + i * interval '1 second'
FROM generate_series(1, 11024) i;
SELECT pg_notify('gpusched_scheduler', 'memory bench');
SQL
sleep 20
echo "10,000 pending, 128 nodes:     RSS $(rss) MB ($(psql -Atq -d "$db" -c "SELECT count(*) FROM jobs WHERE state = 'queued'") queued, $(psql -Atq -d "$db" -c "SELECT count(*) FROM jobs WHERE state = 'running'") running)"
