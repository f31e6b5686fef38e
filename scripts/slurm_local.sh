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
# The work is experiments/release/artefacts/slurm_local.py (standard library only), run by
# $PYTHON (default python3) with this checkout first on the path. Needs root for `up`; any
# failure prints one line `slurm_local: <why>` on stderr and exits 1.
set -euo pipefail
REPO="$(cd "$(dirname "$0")/.." && pwd)"
PYTHONPATH="$REPO${PYTHONPATH:+:$PYTHONPATH}" exec "${PYTHON:-python3}" \
  -m experiments.release.artefacts.slurm_local "$@"
