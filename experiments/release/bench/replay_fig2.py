"""Re-run 40 committed Fig. 2 PMW^Pub runs; record or compare draws and selections.

Same numbers: re-run a seeded sample of the committed Fig. 2 PMW^Pub runs and record, or
compare with an earlier record, everything a run draws and selects.

    PUBPRIV_DATA=../shared/data python scripts/bench.py replay_fig2 OUT.json [--against OLD.json]

Record the sample before a change that must keep the numbers, record it again after, and compare:
the exit status is 1 when any run selects, measures, updates or draws differently or its errors
move.

The sample: 40 (config, repetition) pairs drawn with seed 2026 from the PMW^Pub rows of
``results/fig2_adult_bias/runs.csv`` (ε 0.1–1, T 5–200, Δ −0.2 to 0.65), each re-run exactly as
the runner computes its record (same problem, same repetition stream). Per run the record holds
the selected queries, the measurements, the multiplicative updates per round, the final state of
the run's generator and the max and mean errors; it also says whether the run reproduces the
committed errors. Two records compare equal only if every one of these is identical.
"""
from __future__ import annotations

import json
from pathlib import Path

import pandas as pd

from experiments.console import ArgumentParser, UserError, run_or_fail
from experiments.outputs import file_arg
from experiments.release.artefacts.catalogue import ARTEFACTS
from experiments.release.artefacts.reproduce import REPO, plan
from experiments.release.configure.rules import WRITABLE
from experiments.release.configure.checks import resolve_job
from pubpriv_core.harness import release_job
from pubpriv_core.job import config_hash
from pubpriv_core.problems import build_problem, data_context, repetition_streams

RUNS_CSV = REPO / "results" / "fig2_adult_bias" / "runs.csv"
SAMPLE, SAMPLE_SEED = 40, 2026
#: what must be identical between two records of a run
COMPARED = ("queries", "measurements", "updates", "rng_state", "max_error", "mean_error")


def sampled_runs() -> list[tuple[dict, pd.Series]]:
    """The sample's (config, committed row) pairs, ordered by config hash and repetition."""
    configs = {config_hash(c): c for c in plan(ARTEFACTS["fig2"], [], quick=False).configs
               if c["algo"]["name"] == "pmwpub"}
    rows = pd.read_csv(RUNS_CSV)
    rows = rows[rows.config_hash.isin(configs)].drop_duplicates(["config_hash", "run"])
    sample = rows.sample(SAMPLE, random_state=SAMPLE_SEED).sort_values(["config_hash", "run"])
    return [(configs[row.config_hash], row) for _, row in sample.iterrows()]


def replay_run(cfg: dict, row: pd.Series) -> dict:
    """One run's record: what it drew and selected, its errors and the committed ones."""
    run = int(row.run)
    with data_context(cfg["data_root"]):
        job = resolve_job(cfg)
        problem = build_problem(job, run)
        _, rng = repetition_streams(cfg["seed"], run)
        release, eps = release_job(job, problem, rng), job.eps
        errors = release.errors(problem.true_answers)
    trace = release.trace
    return {"config_hash": row.config_hash, "run": run, "eps": eps, "T": cfg["T"],
            "delta_bias": float(row.delta_bias),
            "queries": [int(q) for q in trace["queries"]],
            "measurements": [float(a) for a in trace["measurements"]],
            "updates": [int(u) for u in trace["updates"]],
            "rng_state": rng.bit_generator.state,
            "max_error": float(errors["max_error"]), "mean_error": float(errors["mean_error"]),
            "committed_max_error": float(row.max_error),
            "committed_mean_error": float(row.mean_error)}


def differences(new: list[dict], old: list[dict]) -> tuple[list[str], float]:
    """The runs of ``new`` that differ from ``old`` (with what differs) and the largest
    |Δ max error| or |Δ mean error| over all runs."""
    before = {(r["config_hash"], r["run"]): r for r in old}
    differ, worst = [], 0.0
    for record in new:
        key = (record["config_hash"], record["run"])
        if key not in before:
            raise UserError(f"run {key} is not in the earlier record; compare records of the "
                            "same sample")
        other = before[key]
        changed = [k for k in COMPARED if record[k] != other[k]]
        if changed:
            differ.append(f"{key[0]} run {key[1]}: {', '.join(changed)}")
        worst = max(worst, abs(record["max_error"] - other["max_error"]),
                    abs(record["mean_error"] - other["mean_error"]))
    return differ, worst


def run_replay(out: str, against: str | None = None) -> int:
    """Record the sample to ``out`` (JSON); compare with the record ``against`` if given.
    Returns 0 when nothing differs, 1 otherwise."""
    old = _read(against) if against else None
    target = Path(out).expanduser()
    if target.is_dir() or not WRITABLE.accepts(str(target.absolute().parent)):
        raise UserError(f"cannot write {out}; pass a writable file path")
    records = []
    for cfg, row in sampled_runs():
        records.append(replay_run(cfg, row))
        r = records[-1]
        print(f"{r['config_hash']} run {r['run']}: eps={r['eps']:g} T={r['T']} "
              f"delta={r['delta_bias']:+g} max error {r['max_error']:.6f}", flush=True)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(records))
    except OSError as err:
        raise UserError(f"cannot write {out} ({err.strerror}); pass a writable path") from None
    same = sum(r["max_error"] == r["committed_max_error"]
               and r["mean_error"] == r["committed_mean_error"] for r in records)
    print(f"wrote {out}; committed max and mean errors reproduced in {same}/{len(records)} runs")
    if old is None:
        return 0
    differ, worst = differences(records, old)
    for line in differ:
        print(f"differs: {line}")
    print(f"identical to {against}: {len(records) - len(differ)}/{len(records)} runs, "
          f"max |Δ error| {worst:g}")
    return 1 if differ else 0


def _read(path: str) -> list[dict]:
    try:
        records = json.loads(Path(path).read_text())
    except (OSError, ValueError) as err:
        raise UserError(f"cannot read the record {path} ({err}); pass a file written by "
                        "`scripts/bench.py replay_fig2`") from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise UserError(f"{path} is not a replay record; pass a file written by "
                        "`scripts/bench.py replay_fig2`")
    return records


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=file_arg, help="JSON file to write the record to")
    parser.add_argument("--against", help="an earlier record to compare with")
    args = parser.parse_args(argv)
    return run_or_fail(run_replay, args.output, args.against)
