#!/usr/bin/env python
"""Benchmark AIM, MST and JAM-PGM: time per run and error, on one problem or on every cell the
artefacts run.

One problem: ``PUBPRIV_DATA=../shared/data python scripts/bench_pgm.py [--dataset nist|adult]
[--runs 3] [--delta 1e-9]
[--algos aim mst aim_add_remove jam_pgm_full_fits aim_public_tree aim_public_init]
[--estimator auto|full_table|tree|mbi]`` (the setting: :mod:`experiments.release.bench.pgm`).

The grid: ``python scripts/bench_pgm.py --grid artefacts|matched|all [--runs 1]
[--only TEXT ...] [--against-checkout DIR] [--out FILE.json]`` times every (algorithm, dataset,
public, ε) cell (:mod:`experiments.release.bench.pgm_grid`), one line per run with the load
average, then a Markdown table per cell; with ``--against-checkout`` every run also runs on
that checkout's code, interleaved, and the table gives both times and their ratio, followed by
the run-by-run comparison of selections and errors.
"""
from __future__ import annotations

import json

from experiments.console import ArgumentParser, positive_float, positive_int, run_or_fail
from experiments.release.bench.pgm import PROBLEMS, VARIANTS, run_benchmark
from pubpriv_core.algorithms.pgm import ESTIMATORS


def run_grid_benchmark(grid: str, runs: int | None, only: list[str], against: str | None,
                       out: str | None) -> None:
    from experiments.release.bench import pgm_grid

    cells = []
    if grid in ("artefacts", "all"):
        cells += pgm_grid.artefact_cells()
    if grid in ("matched", "all"):
        cells += pgm_grid.matched_cells()
    cells = [c for c in cells if all(text in c.key for text in only)]
    if not cells:
        raise ValueError("no cell matches --only; drop it or pass a part of a cell label "
                         "(e.g. 'ADULT', 'jam_pgm', 'ε=1')")
    checkouts = ["."] + ([against] if against else [])
    print(f"{len(cells)} cells; checkouts: {', '.join(checkouts)}", flush=True)
    records = pgm_grid.run_grid(cells, runs, checkouts, echo=lambda s: print(s, flush=True))
    print("\n" + "\n".join(pgm_grid.summary_table(records)))
    if against:
        first, second = records.values()
        print("\n" + "\n".join(pgm_grid.compare(first, second)))
    if out:
        with open(out, "w") as handle:
            json.dump(records, handle)


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="nist", choices=list(PROBLEMS),
                        help="nist: MA-2019 reduced; adult: sota_adult at public.delta=0")
    parser.add_argument("--runs", type=positive_int, default=None,
                        help="runs per algorithm (one problem: default 3) or per grid cell "
                             "(default: the cell's own count)")
    parser.add_argument("--eps", type=positive_float, default=1.0)
    parser.add_argument("--delta", type=positive_float, default=None,
                        help="δ (default 1/n²; the reference codes use 1e-9)")
    parser.add_argument("--algos", nargs="+", default=["aim", "mst", "jam_pgm"],
                        choices=list(VARIANTS))
    parser.add_argument("--estimator", default="auto", choices=list(ESTIMATORS),
                        help="Private-PGM's estimator (auto: the cheaper of full_table and "
                             "tree per fit)")
    parser.add_argument("--grid", choices=["artefacts", "matched", "all"],
                        help="time every cell the artefacts run (and/or the matched-signal ε)")
    parser.add_argument("--only", nargs="+", default=[],
                        help="with --grid: keep the cells whose label contains all these texts")
    parser.add_argument("--against-checkout", help="with --grid: also run every job on the "
                        "code of this checkout, interleaved")
    parser.add_argument("--out", help="with --grid: write every run's record to this JSON file")
    args = parser.parse_args(argv)
    if args.grid:
        run_or_fail(run_grid_benchmark, args.grid, args.runs, args.only,
                    args.against_checkout, args.out)
        return
    run_or_fail(run_benchmark, args.algos, args.runs or 3, args.eps, args.delta,
                args.estimator, args.dataset)


if __name__ == "__main__":
    main()
