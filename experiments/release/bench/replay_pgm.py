"""A seeded sample of Private-PGM runs re-run on a checkout; record or compare.

The sample: ``--per-group`` (cell, repetition) pairs of every (dataset, algorithm) group of the
artefact and matched-signal cells of AIM, MST and JAM-PGM
(:mod:`experiments.release.bench.pgm_grid`), drawn with seed :data:`SAMPLE_SEED` (``--skip``:
leave out the cells whose label contains a text), each run as the runner computes its record, on
the code of ``--checkout`` (default: this one; :class:`~.pgm_grid.Worker`); ``--list`` prints the
sample and stops. ``--perturb`` starts every fit's step-size search one rounding away: run it on
the checkout before a change to measure how far the runs themselves move under a change of
floating-point order. With ``--against`` the exit status is 1 when any run selects differently.

    PUBPRIV_DATA=../shared/data python scripts/bench.py replay_pgm OUT.json [--checkout DIR]
        [--perturb] [--per-group 3] [--skip TEXT ...] [--list] [--against OLD.json]
"""
from __future__ import annotations

import json

import numpy as np

from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench import pgm_grid

SAMPLE_SEED = 2027


def sample_cells(per_group: int, skip: list[str]) -> list[tuple[pgm_grid.Cell, int]]:
    """``per_group`` (cell, run) pairs of every (dataset, algorithm) group, drawn with seed
    :data:`SAMPLE_SEED` from the cells whose label contains none of ``skip``."""
    groups: dict[str, list] = {}
    for cell in pgm_grid.artefact_cells() + pgm_grid.matched_cells():
        if not any(text in cell.key for text in skip):
            parts = cell.key.split(" | ")
            groups.setdefault(f"{parts[1]} | {parts[3]}", []).append(cell)
    rng = np.random.default_rng(SAMPLE_SEED)
    picks = []
    for group in sorted(groups):
        chosen = rng.permutation(len(groups[group]))[:per_group]
        picks += [(groups[group][i], int(rng.integers(groups[group][i].config["runs"])))
                  for i in sorted(chosen)]
    return picks


def replay(sample: list[tuple[pgm_grid.Cell, int]], checkout: str, perturb: bool) -> list[dict]:
    """Every (cell, run) of ``sample`` on the code of ``checkout``, one line printed per run."""
    records = []
    worker = pgm_grid.Worker(checkout, perturb)
    try:
        for cell, run in sample:
            records.append(worker.run(cell, run))
            print(pgm_grid.job_line(cell.key, run, [records[-1]]), flush=True)
    finally:
        worker.close()
    return records


def selections_differ(old: list[dict], new: list[dict]) -> bool:
    """Whether any run of ``new`` also in ``old`` selected differently."""
    by_key = {(r["key"], r["run"]): r for r in old}
    return any(by_key[(r["key"], r["run"])]["selected"] != r["selected"]
               for r in new if (r["key"], r["run"]) in by_key)


def run_replay(output: str, checkout: str, perturb: bool, per_group: int, skip: list[str],
               listing: bool, against: str | None) -> int:
    """The sample listed, or replayed into ``output`` (and compared with ``against``)."""
    sample = sample_cells(per_group, skip)
    if listing:
        print("\n".join(f"{cell.key} | run {run}" for cell, run in sample))
        return 0
    records = replay(sample, checkout, perturb)
    with open(output, "w") as handle:
        json.dump(records, handle)
    if not against:
        return 0
    with open(against) as handle:
        old = json.load(handle)
    print("\n".join(pgm_grid.compare(old, records)))
    return int(selections_differ(old, records))


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", help="JSON file to write the record to")
    parser.add_argument("--checkout", default=".", help="the code to run (a checkout)")
    parser.add_argument("--perturb", action="store_true",
                        help="start every fit's step-size search one rounding away")
    parser.add_argument("--per-group", type=positive_int, default=3)
    parser.add_argument("--skip", nargs="+", default=[])
    parser.add_argument("--list", action="store_true", help="print the sample and stop")
    parser.add_argument("--against", help="an earlier record to compare with")
    args = parser.parse_args(argv)
    return run_or_fail(run_replay, args.output, args.checkout, args.perturb, args.per_group,
                       args.skip, args.list, args.against)
