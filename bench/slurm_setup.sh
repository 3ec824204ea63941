#!/usr/bin/env bash
# Start a one-host Slurm for bench/slurm_compare.sh: Debian's slurm-wlm
# (22.05) with munge, slurmctld and slurmd on this host, one node with
# Gres=gpu:16 backed by placeholder device files (no GPUs needed),
# select/cons_tres, proctrack/linuxproc, no cgroups. Run as root on a test
# machine (it writes /etc/slurm/slurm.conf and gres.conf): once
# `apt-get install -y slurm-wlm munge` is done. Idempotent: restarts the
# daemons with the same configuration.
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "slurm_setup: run as root" >&2; exit 1; }
command -v slurmctld >/dev/null || { echo "slurm_setup: apt-get install -y slurm-wlm munge" >&2; exit 1; }
host=$(hostname -s)
gpudir=${GPU_DIR:-/var/lib/slurm/fake-gpus}

# munge: a key (the package makes one), then the daemon.
[ -s /etc/munge/munge.key ] || { mungekey --create 2>/dev/null || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1; }
chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
install -d -o munge -g munge -m 0755 /run/munge /var/log/munge /var/lib/munge
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged

# 16 placeholder GPU device files for gres.conf.
install -d "$gpudir"
for i in $(seq 0 15); do [ -e "$gpudir/nvidia$i" ] || touch "$gpudir/nvidia$i"; done

install -d -o slurm -g slurm /var/lib/slurm/slurmctld /var/lib/slurm/slurmd /var/log/slurm
cat >/etc/slurm/slurm.conf <<CONF
ClusterName=bench
SlurmctldHost=$host
AuthType=auth/munge
SlurmUser=slurm
StateSaveLocation=/var/lib/slurm/slurmctld
SlurmdSpoolDir=/var/lib/slurm/slurmd
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
# A benchmark submits thousands of short jobs a minute: room for them, and
# finished ones forgotten after 30 s (defaults: 10,000 and 300 s).
MaxJobCount=200000
MinJobAge=30
GresTypes=gpu
# 64 CPUs on paper so that 16 GPUs' jobs fit whatever this host has.
SlurmdParameters=config_overrides
NodeName=$host CPUs=64 RealMemory=64000 Gres=gpu:16 State=UNKNOWN
PartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
echo "NodeName=$host Name=gpu File=$gpudir/nvidia[0-15]" >/etc/slurm/gres.conf

for d in slurmd slurmctld; do
	pid=$(cat /run/$d.pid 2>/dev/null || true)
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && sleep 1 || true
done
slurmctld
slurmd
for _ in $(seq 30); do sinfo -h -o %t 2>/dev/null | grep -qx idle && break; sleep 1; done
scontrol update NodeName="$host" State=RESUME 2>/dev/null || true
sinfo -N -o '%N %t %G %c'
