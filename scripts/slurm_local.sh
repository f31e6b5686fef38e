#!/usr/bin/env bash
# A single-node Slurm cluster on this Debian machine, for testing the Slurm launcher end to end.
#
#   bash scripts/slurm_local.sh up      # install (if missing) and start munge, slurmctld, slurmd;
#                                       # prints the exports clients need, with
#                                       # PUBPRIV_SLURM_STARTED=1 when it started the cluster and
#                                       # 0 when one was already running in $PUBPRIV_SLURM_DIR
#   bash scripts/slurm_local.sh down    # stop them and remove the cluster's folder
#   bash scripts/slurm_local.sh env     # print the export line clients need (SLURM_CONF=...)
#
# Everything lives in $PUBPRIV_SLURM_DIR (default /tmp/pubpriv-slurm): slurm.conf, state, logs
# and pid files; clients find the cluster through SLURM_CONF. Settings: proctrack/linuxproc,
# task/none, no accounting storage (so `sacct` has nothing to report), one partition `debug` with
# this machine's CPUs and memory. Needs root (apt-get, munge, slurmd). Any failure prints one line
# `slurm_local: <why>` on stderr and exits 1.
set -euo pipefail

DIR="${PUBPRIV_SLURM_DIR:-/tmp/pubpriv-slurm}"
CONF="$DIR/slurm.conf"
HOST="$(hostname -s)"

die() { echo "slurm_local: $*" >&2; exit 1; }

install_packages() {
  command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null \
    && command -v sbatch >/dev/null && return 0
  [ "$(id -u)" = 0 ] || die "slurmctld/slurmd/munge are not installed and installing needs root"
  command -v apt-get >/dev/null || die "slurmctld/slurmd/munge are not installed and there is no apt-get"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      slurmctld slurmd slurm-client munge) >"/tmp/pubpriv-slurm-apt.log" 2>&1 \
    || die "apt-get install slurmctld slurmd slurm-client munge failed (see /tmp/pubpriv-slurm-apt.log)"
}

start_munge() {
  if munge -n >/dev/null 2>&1 </dev/null; then return 0; fi   # a munged already answers
  [ -s /etc/munge/munge.key ] || { mungekey --create >/dev/null 2>&1 \
    || dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 status=none; }
  chown munge:munge /etc/munge/munge.key && chmod 0400 /etc/munge/munge.key
  mkdir -p /run/munge /var/log/munge /var/lib/munge "$DIR/munge"
  chown munge:munge /run/munge /var/log/munge /var/lib/munge "$DIR/munge"
  runuser -u munge -- munged --pid-file="$DIR/munge/munged.pid" || die "munged did not start"
  for _ in $(seq 50); do munge -n >/dev/null 2>&1 </dev/null && return 0; sleep 0.1; done
  die "munged started but does not answer"
}

write_conf() {
  local cpus mem
  cpus="$(nproc)"
  mem="$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)"
  mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log"
  cat >"$CONF" <<EOF
ClusterName=pubpriv
SlurmctldHost=$HOST
SlurmUser=root
SlurmctldPort=6817
SlurmdPort=6818
AuthType=auth/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$HOST CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
  # slurmd reads cgroup.conf only for cgroup plugins; none are used here.
}

up() {
  [ "$(id -u)" = 0 ] || die "needs root (munged, slurmd)"
  install_packages
  if [ -f "$DIR/slurmctld.pid" ] && kill -0 "$(cat "$DIR/slurmctld.pid")" 2>/dev/null; then
    echo "export SLURM_CONF=$CONF PUBPRIV_SLURM_STARTED=0"; return 0   # someone else's: reuse
  fi
  mkdir -p "$DIR"
  start_munge
  write_conf
  export SLURM_CONF="$CONF"
  slurmctld -f "$CONF" || die "slurmctld did not start (see $DIR/log/slurmctld.log)"
  slurmd -f "$CONF" || die "slurmd did not start (see $DIR/log/slurmd.log)"
  for _ in $(seq 100); do
    if sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      echo "export SLURM_CONF=$CONF PUBPRIV_SLURM_STARTED=1"; return 0
    fi
    sleep 0.2
  done
  die "node $HOST did not become idle (see $DIR/log/)"
}

stop_pid() {   # stop the daemon whose pid file is $1, if it runs
  [ -f "$1" ] || return 0
  local pid; pid="$(cat "$1")"
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
}

down() {
  [ -d "$DIR" ] || return 0
  if [ -f "$CONF" ]; then SLURM_CONF="$CONF" scancel --user="$(id -un)" 2>/dev/null || true; fi
  stop_pid "$DIR/slurmd.pid"
  stop_pid "$DIR/slurmctld.pid"
  stop_pid "$DIR/munge/munged.pid"
  rm -rf "$DIR"
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  env) echo "export SLURM_CONF=$CONF" ;;
  *) die "usage: bash scripts/slurm_local.sh up|down|env" ;;
esac
