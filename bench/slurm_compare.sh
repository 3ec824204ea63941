#!/usr/bin/env bash
# gpusched against Slurm, side by side on this host: one submission's wall
# and CPU time through each CLI, the rate of 16 parallel submit loops, and
# submit → running of a 1-GPU job on free GPUs. Needs a running Slurm
# (Debian's slurm-wlm: slurmctld and slurmd with munge, a node with
# Gres=gpu:16) and skips cleanly without one; starts its own
# `gpusched serve --dev` (2 simulated nodes of 8 GPUs) on a fresh database of
# the local PostgreSQL (PGHOST/PGPORT/PGUSER, default 127.0.0.1 as postgres).
# Usage: bench/slurm_compare.sh [path/to/gpusched]   (N=100 calls, LOOP_S=10; needs go for bench/percall)
set -euo pipefail
bin=$(realpath "${1:-bin/gpusched}")
N=${N:-100}
LOOP_S=${LOOP_S:-10}
if ! command -v sbatch >/dev/null || ! sinfo -h >/dev/null 2>&1; then
	echo "slurm_compare: no running Slurm (install slurm-wlm, start munged, slurmctld, slurmd); skipping"
	exit 0
fi
[ -x "$bin" ] || { echo "build it first: make build" >&2; exit 1; }
command -v psql >/dev/null || { echo "slurm_compare: psql not found; skipping"; exit 0; }
export PGHOST=${PGHOST:-127.0.0.1} PGPORT=${PGPORT:-5432} PGUSER=${PGUSER:-postgres}
db=gpusched_slurm_$$
port=$((20000 + $$ % 10000))
work=$(mktemp -d)
jobname=gsc$$
export DATABASE_URL="postgres://$PGUSER@$PGHOST:$PGPORT/$db?sslmode=disable"
export GPUSCHED_SERVER="http://127.0.0.1:$port"
psql -q -c "CREATE DATABASE $db" >/dev/null
pid=
cleanup() {
	[ -s "$work/slurm_ids" ] && xargs -r scancel <"$work/slurm_ids" 2>/dev/null || true
	scancel -n "$jobname" 2>/dev/null || true
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null || true
	psql -q -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
GPUSCHED_SESSION_KEY=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n') GPUSCHED_LOG_LEVEL=warn \
	"$bin" serve --dev --listen "127.0.0.1:$port" >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 150); do curl -fs "$GPUSCHED_SERVER/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
"$bin" user create --email bench@example.com >/dev/null
GPUSCHED_TOKEN=$("$bin" token create --user bench@example.com)
export GPUSCHED_TOKEN
(cd "$(dirname "$0")/percall" && go build -o "$work/percall" .)
cd "$work"

gs_submit() { "$bin" submit -g 1 "$@"; }
sb_submit() { sbatch --parsable --gres=gpu:1 -o /dev/null "$@"; }

median() { sort -n | awk '{ a[NR] = $1 } END { printf "%.2f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# percall: N submissions through each CLI, interleaved (one of each in turn,
# so that both see the same machine), timed by bench/percall: prints
# "gs-wall gs-cpu sb-wall sb-cpu", medians in ms, the CPU of the call's
# process alone (its rusage; no shell).
percall() {
	"$work/percall" -n "$N" "$bin submit -g 1 --executor lease -- true" \
		"sbatch --parsable --gres=gpu:1 -o /dev/null -J $jobname --wrap true" | awk '{ printf "%s %s ", $1, $2 }'
}

# loops NAME CMD…: 16 loops submitting for LOOP_S seconds; prints submissions/s.
loops() {
	local name=$1; shift
	local end=$((SECONDS + LOOP_S))
	for i in $(seq 16); do
		( n=0; while [ $SECONDS -lt $end ]; do
			out=$("$@") && n=$((n + 1)); [ "$name" = sbatch ] && echo "$out" >>"$work/slurm_ids.$i"
		done; echo $n >"$work/$name.loop.$i" ) &
	done
	wait
	cat "$work"/slurm_ids.* >>"$work/slurm_ids" 2>/dev/null || true
	cat "$work/$name".loop.* | awk -v s="$LOOP_S" '{ n += $1 } END { printf "%.0f", n / s }'
}

# to_running NAME: submit a 1-GPU job on free GPUs, ms until it runs (median of 5).
to_running() {
	local name=$1 id t0 state
	: >"$work/$name.run"
	for _ in 1 2 3 4 5; do
		t0=$EPOCHREALTIME
		if [ "$name" = gpusched ]; then
			id=$(gs_submit --json -- sleep 30 | sed -n 's/^{"id":\([0-9]*\).*/\1/p')
			until state=$(curl -fs -H "Authorization: Bearer $GPUSCHED_TOKEN" "$GPUSCHED_SERVER/api/v1/jobs/$id" | sed -n 's/.*"state":"\([a-z]*\)".*/\1/p'); [ "$state" = running ]; do :; done
			awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }' >>"$work/$name.run"
			"$bin" cancel "$id" >/dev/null
		else
			id=$(sb_submit --wrap "sleep 30")
			echo "$id" >>"$work/slurm_ids"
			until [ "$(squeue -h -j "$id" -o %T 2>/dev/null)" = RUNNING ]; do :; done
			awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f\n", (b - a) * 1000 }' >>"$work/$name.run"
			scancel "$id"
		fi
		sleep 1
	done
	median <"$work/$name.run"
}

echo "gpusched $("$bin" version --short) against $(sbatch --version) on $(nproc) CPUs"
gr=$(to_running gpusched); sr=$(to_running sbatch)
read -r gw gc sw sc <<<"$(percall)"
gl=$(loops gpusched gs_submit --executor lease -- true)
sl=$(loops sbatch sb_submit --wrap true)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
printf '%-34s %12s %12s %10s\n' "" gpusched sbatch ratio
printf '%-34s %12s %12s %10s\n' "one submission, median wall (ms)" "$gw" "$sw" "$(ratio "$gw" "$sw")"
printf '%-34s %12s %12s %10s\n' "one submission, median CPU (ms)" "$gc" "$sc" "$(ratio "$gc" "$sc")"
printf '%-34s %12s %12s %10s\n' "16 submit loops (jobs/s)" "$gl" "$sl" "$(ratio "$gl" "$sl")"
printf '%-34s %12s %12s %10s\n' "submit -> running, 1 GPU (ms)" "$gr" "$sr" "$(ratio "$gr" "$sr")"
