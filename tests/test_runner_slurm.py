"""A two-job sweep through ``hydra/launcher=slurm`` and an artefact through ``reproduce.py
--launcher slurm`` on a real Slurm cluster, records checked.

Runs only where a cluster answers (``sinfo`` through ``SLURM_CONF``), e.g. the single-node one of
``scripts/slurm_local.sh up``; ``.ci/run`` brings that up and runs ``pytest -m slurm``.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import data_root_with
from experiments.release.running.store import ResultsStore
from runner_helpers import REPO, load_script

pytestmark = pytest.mark.slurm


def _cluster_partition() -> str | None:
    """The default partition of a cluster that answers, else None."""
    if shutil.which("sinfo") is None:
        return None
    proc = subprocess.run(["sinfo", "-h", "-o", "%P %a"], capture_output=True, text=True,
                          timeout=30)
    lines = [line.split() for line in proc.stdout.splitlines() if line.strip()]
    default = [p for p, state in lines if p.endswith("*") and state == "up"]
    return default[0].rstrip("*") if proc.returncode == 0 and default else None


def test_two_job_sweep_through_the_slurm_launcher(tmp_path):
    partition = _cluster_partition()
    if partition is None:
        pytest.skip("no Slurm cluster answers; run `bash scripts/slurm_local.sh up` and export "
                    "the SLURM_CONF it prints")
    out = tmp_path / "out"
    proc = subprocess.run(
        [sys.executable, "run.py", "-m", "hydra/launcher=slurm",
         f"hydra.launcher.partition={partition}", "hydra.launcher.mem_gb=1",
         "hydra.launcher.timeout_min=10", "eps=0.5,1", "dataset.preset=tiny", "T=3", "runs=2",
         "workload.size=4", "progress=false", f"results_dir={out}"],
        cwd=REPO, env=dict(os.environ, CI="1"), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Submitit 'slurm' sweep output dir" in proc.stdout
    records = [json.loads(p.read_text()) for p in ResultsStore(out).paths()]
    assert len(records) == 4
    assert sorted((r["eps"], r["run"]) for r in records) == [(0.5, 0), (0.5, 1), (1.0, 0),
                                                             (1.0, 1)]
    assert all(0 <= r["max_error"] <= 1 for r in records)
    job_logs = list((out / "hydra" / "multirun").glob("*/.submitit/*/*_log.out"))
    assert len(job_logs) == 2                       # each job ran as a Slurm job
    collect = load_script("collect").main
    assert collect([str(out), "-o", str(tmp_path / "all.csv"), "--strict"]) == 0


def test_an_artefact_through_reproduce_with_the_slurm_launcher(tmp_path):
    partition = _cluster_partition()
    if partition is None:
        pytest.skip("no Slurm cluster answers; run `bash scripts/slurm_local.sh up` and export "
                    "the SLURM_CONF it prints")
    root = data_root_with("adult/adult.data")
    records, out = tmp_path / "records", tmp_path / "fig2"
    proc = subprocess.run(
        [sys.executable, "scripts/reproduce.py", "fig2", "--quick", "--launcher", "slurm",
         "--launcher-option", f"partition={partition}", "--launcher-option", "mem_gb=2",
         "--data-root", str(root), "--results-dir", str(records), "--out", str(out)],
        cwd=REPO, env=dict(os.environ, CI="1", MPLBACKEND="Agg"), capture_output=True,
        text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "problem groups on Slurm array tasks" in proc.stdout
    # submitit's warning passes once, not at every poll (printed by at most two handlers:
    # submitit's own and the root logger's)
    assert proc.stderr.count("Bypassing sacct error") <= 2
    groups = int(proc.stdout.split(" to run in ")[1].split()[0])
    logs = list((records / "slurm").glob("*/*/*_log.out"))
    assert len(logs) >= groups                  # each problem group ran as an array task
    summary = (out / "summary.md").read_text()
    assert "Slurm array tasks (hydra/launcher=slurm)" in summary
    assert len(list(ResultsStore(records).paths())) > 0 and (out / "figure.png").is_file()
