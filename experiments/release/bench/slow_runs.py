"""One stored run recomputed alone, for :mod:`scripts.bench_slow_runs`: ``python -m
experiments.release.bench.slow_runs STORE RECORD`` recomputes the record at path RECORD of the
results store STORE in this fresh process, as a sweep's worker does
(:func:`~experiments.release.running.repetitions.compute_record`: the problem, the release, the privacy
checks; GEM^Pub's pre-trained generator read from the store's ``cache``), writes no record, and
prints one JSON line: the recomputed run time (the algorithm's own, compiled kernels and XLA
programs built in the run as in a worker's first run), the process's wall time including the
problem, the stored run time, and whether the max error is the stored one to the bit.
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def runnable(stored: dict, store: str) -> dict:
    """The stored record's config as the runner passes it: its experiment keys (the fields
    :func:`~experiments.release.running.store.experiment_config` leaves out at their neutral default
    stay out: the code's defaults are those), ``eps`` (left out when ``eps_equiv`` sets it), the
    runtime keys at their defaults and ``results_dir`` = ``store``."""
    from experiments.release.running.store import RUNTIME_KEYS
    from experiments.release.running.sweep import compose_exact

    defaults = compose_exact([])
    cfg = dict(stored["config"])
    cfg.setdefault("eps", stored["eps"])
    cfg.update({key: defaults[key] for key in RUNTIME_KEYS if key not in cfg and key in defaults})
    return dict(cfg, results_dir=str(Path(store).resolve()), seed=stored["seed"])


def retime(store: str, record_path: str) -> dict:
    """The record recomputed (see the module docstring)."""
    from experiments.release.running.repetitions import compute_record
    from experiments.release.running.store import load_record
    from experiments.release.running.worker_cores import visible_cores

    stored = load_record(Path(record_path))
    cfg = runnable(stored, store)
    start = time.perf_counter()
    record = compute_record(cfg, stored["run"])
    return {"runtime_s": record["runtime_s"], "wall_s": time.perf_counter() - start,
            "stored_runtime_s": stored["runtime_s"], "cores": visible_cores(),
            "same_max_error": float(record["max_error"]).hex() == float(stored["max_error"]).hex()}


if __name__ == "__main__":
    print(json.dumps(retime(*sys.argv[1:3])))
