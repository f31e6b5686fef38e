#!/usr/bin/env python
"""Re-run a seeded sample of Private-PGM runs (AIM, MST, JAM-PGM) on a checkout's code; record
what they select and their errors, or compare with an earlier record.

Usage: ``PUBPRIV_DATA=../shared/data python scripts/replay_pgm.py OUT.json [--checkout DIR]
[--perturb] [--per-group 3] [--skip TEXT ...] [--list] [--against OLD.json]``

The sample: ``--per-group`` (cell, repetition) pairs of every (dataset, algorithm) group of the
artefact and matched-signal cells (:mod:`experiments.release.bench.pgm_grid`), drawn with seed
2027 (``--skip``: leave out the cells whose label contains a text), each run as the runner
computes its record, on the code of ``--checkout`` (default: this one); ``--list`` prints the
sample and stops. ``--perturb`` starts every fit's step-size search one rounding away: run it on the
checkout before a change to measure how far the runs themselves move under a change of
floating-point order. With ``--against`` the exit status is 1 when any run selects differently.
"""
from __future__ import annotations

import json
import sys

from experiments.console import ArgumentParser, fail
from pubpriv_core.data.paths import DataUnavailableError

SAMPLE_SEED = 2027


def sample_cells(per_group: int, skip: list[str]):
    """``per_group`` (cell, run) pairs of every (dataset, algorithm) group, drawn with seed
    :data:`SAMPLE_SEED` from the cells whose label contains none of ``skip``."""
    import numpy as np

    from experiments.release.bench import pgm_grid

    cells = pgm_grid.artefact_cells() + pgm_grid.matched_cells()
    groups: dict[str, list] = {}
    for cell in cells:
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


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", help="JSON file to write the record to")
    parser.add_argument("--checkout", default=".", help="the code to run (a checkout)")
    parser.add_argument("--perturb", action="store_true",
                        help="start every fit's step-size search one rounding away")
    parser.add_argument("--per-group", type=int, default=3)
    parser.add_argument("--skip", nargs="+", default=[])
    parser.add_argument("--list", action="store_true", help="print the sample and stop")
    parser.add_argument("--against", help="an earlier record to compare with")
    args = parser.parse_args(argv)
    from experiments.release.bench import pgm_grid

    try:
        sample = sample_cells(args.per_group, args.skip)
        if args.list:
            print("\n".join(f"{cell.key} | run {run}" for cell, run in sample))
            return 0
        records = []
        worker = pgm_grid.Worker(args.checkout, args.perturb)
        try:
            for cell, run in sample:
                records.append(worker.run(cell, run))
                print(pgm_grid.job_line(cell.key, run, [records[-1]]), flush=True)
        finally:
            worker.close()
    except (DataUnavailableError, ValueError) as err:
        fail(str(err))
    with open(args.output, "w") as handle:
        json.dump(records, handle)
    if not args.against:
        return 0
    with open(args.against) as handle:
        old = json.load(handle)
    print("\n".join(pgm_grid.compare(old, records)))
    by_key = {(r["key"], r["run"]): r for r in old}
    return int(any(by_key[(r["key"], r["run"])]["selected"] != r["selected"]
                   for r in records if (r["key"], r["run"]) in by_key))


if __name__ == "__main__":
    sys.exit(main())
