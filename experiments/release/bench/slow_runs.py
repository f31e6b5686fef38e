"""The slowest stored runs recomputed alone: run times and same max errors.

    PUBPRIV_DATA=../shared/data python scripts/bench.py slow_runs STORE [STORE …] [--over 60]
        [--top N]

e.g. ``… slow_runs runs/paper_scale runs/nist runs/sota_adult``: every record of the record
stores whose stored run time is over ``--over`` seconds (the slowest ``--top`` of them when
given), slowest first, one at a time, nothing else started beside them: their run time alone
beside the stored one (measured in a sweep, beside a second worker), and whether the
recomputation gives the stored max error to the bit. Prints a line per run as it finishes, then
a Markdown table. A GEM, GEM^Pub or RAP^softmax record reproduces its max error only on as many
cores as its sweep's worker saw (the record's ``cores``;
:mod:`experiments.release.running.worker_cores`).

The fresh process is ``python -m experiments.release.bench.slow_runs STORE RECORD``: it
recomputes the record at path RECORD of the results store STORE as a sweep's worker does
(:func:`~experiments.release.running.repetitions.compute_record`: the problem, the release, the
privacy checks; GEM^Pub's pre-trained generator read from the store's ``cache``), writes no
record, and prints one JSON line (:func:`retime`): the recomputed run time (the algorithm's own,
compiled kernels and XLA programs built in the run as in a worker's first run), the process's
wall time including the problem, the stored run time, and whether the max error is the stored
one to the bit.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench import REPO, json_child


def runnable(stored: dict, store: str) -> dict:
    """The stored record's config as the runner passes it: its experiment keys (the fields
    :func:`~pubpriv_core.job.experiment_config` leaves out at their neutral default
    stay out: the code's defaults are those), ``eps`` (left out when ``eps_equiv`` sets it), the
    runtime keys at their defaults and ``results_dir`` = ``store``."""
    from pubpriv_core.job import RUNTIME_KEYS
    from experiments.release.running.sweep import compose_exact

    defaults = compose_exact([])
    cfg = dict(stored["config"])
    cfg.setdefault("eps", stored["eps"])
    cfg.update({key: defaults[key] for key in RUNTIME_KEYS if key not in cfg and key in defaults})
    return dict(cfg, results_dir=str(Path(store).resolve()), seed=stored["seed"])


def retime(store: str, record_path: str) -> dict:
    """The record recomputed (see the module docstring)."""
    from experiments.release.configure.checks import resolve_job
    from experiments.release.running.repetitions import compute_record
    from experiments.release.running.store import load_record
    from experiments.release.running.worker_cores import visible_cores

    stored = load_record(Path(record_path))
    cfg = runnable(stored, store)
    start = time.perf_counter()
    record = compute_record(resolve_job(cfg), stored["run"])
    return {"runtime_s": record["runtime_s"], "wall_s": time.perf_counter() - start,
            "stored_runtime_s": stored["runtime_s"], "cores": visible_cores(),
            "same_max_error": float(record["max_error"]).hex() == float(stored["max_error"]).hex()}


def slow_records(stores: list[str], over: float, top: int | None) -> list[tuple[str, Path, dict]]:
    """(store, record path, record) of every stored run over ``over`` s, slowest first."""
    from experiments.release.running.store import ResultsStore, load_record

    found = []
    for store in map(lambda s: str(Path(s).resolve()), stores):
        if not (Path(store) / "records").is_dir():
            raise ValueError(f"{store} is no results store (no records/ folder); pass a "
                             "results_dir such as runs/paper_scale")
        for path in ResultsStore(store).paths():
            record = load_record(path)
            if record["runtime_s"] > over:
                found.append((store, path, record))
    found.sort(key=lambda item: -item[2]["runtime_s"])
    return found[:top] if top else found


def retime_alone(store: str, path: Path) -> dict:
    """One record recomputed by :func:`retime` in a fresh process."""
    return json_child([sys.executable, "-m", "experiments.release.bench.slow_runs", store,
                       str(path)], f"recomputing {path}", cwd=REPO)


#: fields of the private and the public data that tell an artefact's problems apart
DATA_FIELDS = ("region", "year", "shift", "delta", "reduced", "fraction")


def label(record: dict) -> str:
    """``gem_pub on synthetic (public dataset), eps=0.1, T=100, run 3; public shift=0.3``."""
    from experiments.release.running.sweep import describe

    cfg = record["config"]
    parts = [f"{describe(cfg)}, run {record['run']}"]
    for side in ("dataset", "public"):
        fields = [f"{key}={cfg[side][key]}" for key in DATA_FIELDS
                  if cfg[side].get(key) is not None
                  and not (key == "fraction" and cfg[side][key] == 1.0)]
        if fields:
            parts.append(f"{side} " + " ".join(fields))
    return "; ".join(parts)


def bench(stores: list[str], over: float, top: int | None) -> None:
    records = slow_records(stores, over, top)
    if not records:
        print(f"no stored run over {over:g} s in {', '.join(stores)}")
        return
    rows = []
    for store, path, record in records:
        load = os.getloadavg()[0]
        out = retime_alone(store, path)
        rows.append((label(record), out))
        print(f"{label(record)}: stored {out['stored_runtime_s']:.1f} s, alone "
              f"{out['runtime_s']:.1f} s on {out['cores']} core(s) (process {out['wall_s']:.1f} s, "
              f"load before {load:.1f}), same max error: {out['same_max_error']}", flush=True)
    print("\n| run | stored (s) | alone (s) | same max error |\n|---|---|---|---|")
    for name, out in rows:
        print(f"| {name} | {out['stored_runtime_s']:.1f} | {out['runtime_s']:.1f} | "
              f"{'yes' if out['same_max_error'] else 'no'} |")
    alone = [out["runtime_s"] for _, out in rows]
    print(f"\n{len(rows)} run(s); alone: slowest {max(alone):.1f} s, "
          f"{sum(a > 60 for a in alone)} over 60 s")


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("stores", nargs="+", help="results stores (results_dir folders)")
    parser.add_argument("--over", type=float, default=60.0,
                        help="stored run time above which a run is recomputed (s)")
    parser.add_argument("--top", type=positive_int, default=None,
                        help="recompute only the slowest N of them")
    args = parser.parse_args(argv)
    run_or_fail(bench, args.stores, args.over, args.top)


if __name__ == "__main__":     # the fresh process of retime_alone: STORE RECORD -> one JSON line
    print(json.dumps(retime(*sys.argv[1:3])))
