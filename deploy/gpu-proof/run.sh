#!/usr/bin/env bash
# The real-GPU proof. `make gpu-proof` builds its folder on a development
# machine: gpusched-server (with cgo, so NVML is in), gpu.test (the test
# binary of internal/gpu), this script and the CUDA programs. Copy the folder
# to a GPU host and run ./run.sh there: no PostgreSQL and no server needed.
#
# It prints one line per check (PASS, FAIL or SKIP, the check, a detail) and
# writes report.md beside itself, with nvidia-smi, node doctor, the test
# output and telemetry.csv (every device once a second while a CUDA program
# holds memory and computes). Exit status 1 when a check fails: on a host
# without a GPU every check that needs one says so and fails.
#
#   GPUSCHED_PROOF_SECONDS     telemetry sampling, seconds (default 30)
#   GPUSCHED_PROOF_MIB         memory the CUDA program holds, MiB (default 2048)
#   GPUSCHED_PROOF_GPU         CUDA_VISIBLE_DEVICES for the CUDA program (default: CUDA's choice)
#   GPUSCHED_PROOF_MIG_LAYOUT  a MIG layout to apply and undo, e.g. "gpu 0: 7x1g.10gb"
#                              (needs root and free GPUs; unset: that check is skipped)
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cd "$here" || exit 2
seconds=${GPUSCHED_PROOF_SECONDS:-30}
mib=${GPUSCHED_PROOF_MIB:-2048}
tmp=$(mktemp -d)
holder_pid=""
# shellcheck disable=SC2317 # run by the EXIT trap
cleanup() {
  if [ -n "$holder_pid" ]; then kill "$holder_pid" 2>/dev/null; wait "$holder_pid" 2>/dev/null; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
rm -f results.tsv telemetry.csv doctor.txt gpu-tests.txt cuda-program.txt version.txt nvidia-smi.txt report.md

failed=0
rows=()
# check STATUS NAME DETAIL: one line on the terminal, one row in the report.
check() {
  local status=$1 name=$2 detail=$3
  printf '%-4s  %-20s %s\n' "$status" "$name" "$detail"
  rows+=("| $status | $name | ${detail//|/\\|} |")
  [ "$status" = FAIL ] && failed=1
  return 0
}
# firstline FILE: the first non-empty line of FILE, for details.
firstline() { grep -m1 . "$1" 2>/dev/null || true; }

# 1. The binaries make gpu-proof built.
for bin in gpusched-server gpu.test; do
  if [ ! -x "$bin" ]; then
    check FAIL binaries "$here/$bin is missing: run make gpu-proof and copy its whole folder"
  fi
done

# 2. gpusched-server version: NVML compiled in.
if [ -x gpusched-server ] && ./gpusched-server version >version.txt 2>&1; then
  if grep -q 'nvml: yes' version.txt; then
    check PASS version "$(firstline version.txt); nvml: yes"
  else
    check FAIL version "built without NVML: $(grep -m1 nvml version.txt)"
  fi
elif [ -x gpusched-server ]; then
  check FAIL version "gpusched-server does not start here: $(firstline version.txt)"
fi

# 3. The driver, as nvidia-smi sees it.
if ! command -v nvidia-smi >/dev/null 2>&1; then
  check FAIL driver "nvidia-smi not found: no NVIDIA driver on this host"
elif nvidia-smi >nvidia-smi.txt 2>&1; then
  gpus=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | sed 's/^ *//' | paste -sd, -)
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -1)
  check PASS driver "NVIDIA driver $driver: $gpus"
else
  check FAIL driver "nvidia-smi fails: $(firstline nvidia-smi.txt)"
fi

# 4. node doctor on the real GPUs (no server: those checks only warn).
if [ -x gpusched-server ]; then
  if ./gpusched-server node doctor --port -1 --state-dir "$tmp/state" >doctor.txt 2>&1; then
    check PASS node-doctor "$(grep -c '^OK' doctor.txt) OK, $(grep -c '^WARN' doctor.txt) WARN ($(grep '^WARN' doctor.txt | awk '{print $2}' | paste -sd, -))"
  else
    check FAIL node-doctor "$(grep '^FAIL' doctor.txt | sed 's/  */ /g' | paste -sd';' - | cut -c1-300)"
  fi
fi

# 5. A CUDA program that holds memory and computes: torch, else nvcc.
program=()
if python3 -c 'import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)' >/dev/null 2>&1; then
  program=(python3 "$here/holder.py")
elif command -v nvcc >/dev/null 2>&1 && nvcc -O2 -o "$tmp/holder" "$here/holder.cu" >"$tmp/nvcc.txt" 2>&1; then
  program=("$tmp/holder")
elif command -v nvcc >/dev/null 2>&1; then
  check FAIL cuda-program "nvcc cannot build holder.cu: $(firstline "$tmp/nvcc.txt")"
else
  why="python3 has no torch"
  python3 -c 'import torch' >/dev/null 2>&1 && why="torch sees no CUDA device"
  command -v python3 >/dev/null 2>&1 || why="no python3"
  check SKIP cuda-program "$why and there is no nvcc: no CUDA program to attribute or to load the GPU"
fi
if [ ${#program[@]} -gt 0 ]; then
  [ -n "${GPUSCHED_PROOF_GPU:-}" ] && export CUDA_VISIBLE_DEVICES=$GPUSCHED_PROOF_GPU
  "${program[@]}" "$mib" "$((seconds + 120))" "$tmp/ready" >cuda-program.txt 2>&1 &
  holder_pid=$!
  for _ in $(seq 120); do
    [ -s "$tmp/ready" ] && break
    kill -0 "$holder_pid" 2>/dev/null || break
    sleep 0.5
  done
  if [ -s "$tmp/ready" ]; then
    check PASS cuda-program "$(firstline "$tmp/ready"), pid $holder_pid holds $mib MiB and computes"
  else
    check FAIL cuda-program "it did not get ready in 60 s: $(tail -1 cuda-program.txt)"
    kill "$holder_pid" 2>/dev/null
    holder_pid=""
  fi
fi

# 6. The NVML checks of internal/gpu against the real GPUs.
expected=(enumeration uuids memory utilization power temperature ecc mig-mode mig-layout process-attribution telemetry)
if [ -x gpu.test ]; then
  GPUSCHED_REAL_GPU=1 GPUSCHED_PROOF_RESULTS="$here/results.tsv" GPUSCHED_PROOF_CSV="$here/telemetry.csv" \
    GPUSCHED_PROOF_PID="$holder_pid" GPUSCHED_PROOF_MIB="$mib" GPUSCHED_PROOF_SECONDS="$seconds" \
    ./gpu.test -test.run '^TestRealGPU$' -test.v -test.timeout 10m >gpu-tests.txt 2>&1
  rc=$?
  for name in "${expected[@]}"; do
    line=$(awk -F'\t' -v n="$name" '$2 == n' results.tsv 2>/dev/null | tail -1)
    if [ -n "$line" ]; then
      IFS=$'\t' read -r status _ detail <<<"$line"
      check "$status" "$name" "$detail"
    else
      check FAIL "$name" "no result: the test binary stopped first (exit $rc): $(tail -1 gpu-tests.txt)"
    fi
  done
fi
if [ -n "$holder_pid" ]; then kill "$holder_pid" 2>/dev/null; wait "$holder_pid" 2>/dev/null; holder_pid=""; fi

# The report.
{
  echo "# GPU proof: $(hostname)"
  echo
  echo "$(date -u +%Y-%m-%dT%H:%M:%SZ), $(uname -sr), $(firstline version.txt)"
  echo
  echo "| status | check | detail |"
  echo "| --- | --- | --- |"
  printf '%s\n' "${rows[@]}"
  for section in "nvidia-smi:nvidia-smi.txt" "node doctor:doctor.txt" "gpusched-server version:version.txt" \
    "the CUDA program:cuda-program.txt" "the NVML tests (gpu.test -test.v):gpu-tests.txt"; do
    title=${section%%:*} file=${section#*:}
    [ -s "$file" ] || continue
    echo
    echo "## $title"
    echo
    echo '```'
    tail -n 200 "$file"
    echo '```'
  done
  if [ -s telemetry.csv ]; then
    echo
    echo "## Telemetry"
    echo
    echo "telemetry.csv: $(($(wc -l <telemetry.csv) - 1)) samples, every device once a second for $seconds s."
  fi
} >report.md
echo
if [ "$failed" = 0 ]; then echo "all checks passed: $here/report.md"; else echo "some checks failed: $here/report.md"; fi
exit "$failed"
