#!/usr/bin/env bash
# The Slurm step of .ci/run: a single-node cluster on this machine (scripts/slurm_local.sh, needs
# root and Debian's slurmctld/slurmd/munge), the `slurm`-marked tests through
# hydra/launcher=slurm, then teardown of the cluster only if this step started it: a cluster that
# `up` found running belongs to another process, whose jobs must keep running.
#   SLURM_LOCAL (default scripts/slurm_local.sh) and SLURM_TESTS (default `pytest -m slurm -rs`)
#   name the two commands (the tests replace them with stand-ins).
set -euo pipefail
cd "$(dirname "$0")/.."
SLURM_LOCAL="${SLURM_LOCAL:-scripts/slurm_local.sh}"
SLURM_TESTS="${SLURM_TESTS:-pytest -m slurm -rs}"
if slurm_env="$(bash "$SLURM_LOCAL" up)"; then
  eval "$slurm_env"
  if [ "${PUBPRIV_SLURM_STARTED:-0}" = 1 ]; then
    trap 'bash "$SLURM_LOCAL" down' EXIT
  else
    echo "Slurm: reusing the cluster already running ($SLURM_CONF); it is left running"
  fi
  $SLURM_TESTS
else
  echo "Slurm test not run: the local cluster could not be set up (the line above says why)"
fi
