"""Concurrent sweeps into one results_dir share the work: every record is computed once, a claim
held by a live process is skipped, a claim left by a dead one is taken over, and each process
gets its own Hydra sweep folder."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter

from filelock import FileLock

from experiments.release.configure import cli
from experiments.release.running.claims import claim, claim_path
from experiments.release.running.repetitions import run_config
from experiments.release.running.store import ResultsStore
from pubpriv_core.job import config_hash
from runner_helpers import REPO

SWEEP = ["-m", "eps=range(1,16)", "dataset.preset=tiny", "T=3", "runs=2", "workload.size=4",
         "progress=false"]
HOLD = ("import sys, time\nfrom filelock import FileLock\nlock = FileLock(sys.argv[1])\n"
        "lock.acquire()\nprint('held', flush=True)\ntime.sleep(600)")
COMPUTED = re.compile(r"run \d+: max_error=\S+ mean_error=\S+ \(\S+ s\) -> (\S+\.json)")


def test_two_concurrent_sweeps_compute_every_record_once(tmp_path):
    out = tmp_path / "out"
    env = dict(os.environ, CI="1")
    procs = [subprocess.Popen([sys.executable, "run.py", *SWEEP, f"results_dir={out}"],
                              cwd=REPO, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True) for _ in range(2)]
    logs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], logs
    computed = [COMPUTED.findall(log) for log in logs]
    counts = Counter(path for paths in computed for path in paths)
    records = sorted(str(p) for p in ResultsStore(out).paths())
    assert len(records) == 30 and sorted(counts) == records
    assert max(counts.values()) == 1                         # nothing computed twice
    assert len(list((out / "hydra" / "multirun").iterdir())) == 2   # one folder per process


def _cfg(tmp_path):
    cfg = cli.compose_config(["dataset.preset=tiny", "T=3", "runs=2", "workload.size=4",
                              "progress=false"])
    return dict(cfg, results_dir=str(tmp_path))


def test_a_claim_held_by_another_process_is_skipped(tmp_path, caplog):
    cfg = _cfg(tmp_path)
    store, chash = ResultsStore(tmp_path), config_hash(cfg)
    path = store.path(chash, cfg["seed"], 1)
    holder = FileLock(str(claim_path(store, chash, cfg["seed"], 1)), timeout=0)
    holder.acquire()                 # another FileLock object: a separate open file, like a peer
    try:
        records = run_config(cfg)
    finally:
        holder.release()
    assert [r["run"] for r in records] == [0] and not path.exists()
    assert "1 repetition(s) claimed by another process" in caplog.text
    assert [r["run"] for r in run_config(cfg)] == [0, 1]    # the claim is gone: computed now


def test_a_claim_left_by_a_killed_process_is_taken_over(tmp_path):
    cfg = _cfg(tmp_path)
    store, chash = ResultsStore(tmp_path), config_hash(cfg)
    lock_file = claim_path(store, chash, cfg["seed"], 0)
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(lock_file)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with claim(store, chash, cfg["seed"], 0) as mine:
            assert not mine
    finally:
        holder.kill()                                         # SIGKILL: no clean-up runs
        holder.wait()
    assert lock_file.exists()                                 # the file stays, the claim is gone
    assert [r["run"] for r in run_config(cfg)] == [0, 1]
