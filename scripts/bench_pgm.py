#!/usr/bin/env python
"""Benchmark AIM, MST and JAM-PGM on the NIST reduced domain or ADULT: time per run and error.

Usage: ``PUBPRIV_DATA=../shared/data python scripts/bench_pgm.py [--dataset nist|adult]
[--runs 3] [--delta 1e-9]
[--algos aim mst aim_add_remove jam_pgm_full_fits aim_public_tree aim_public_init]
[--estimator auto|full_table|tree|mbi]``

The setting and what is printed are described in :mod:`experiments.release.bench.pgm`.
"""
from __future__ import annotations

from experiments.console import ArgumentParser, positive_float, positive_int, run_or_fail
from experiments.release.bench.pgm import PROBLEMS, VARIANTS, run_benchmark
from pubpriv_core.algorithms.pgm import ESTIMATORS


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="nist", choices=list(PROBLEMS),
                        help="nist: MA-2019 reduced; adult: sota_adult at public.delta=0")
    parser.add_argument("--runs", type=positive_int, default=3)
    parser.add_argument("--eps", type=positive_float, default=1.0)
    parser.add_argument("--delta", type=positive_float, default=None,
                        help="δ (default 1/n²; the reference codes use 1e-9)")
    parser.add_argument("--algos", nargs="+", default=["aim", "mst", "jam_pgm"],
                        choices=list(VARIANTS))
    parser.add_argument("--estimator", default="auto", choices=list(ESTIMATORS),
                        help="Private-PGM's estimator (auto: full_table on nist, tree on adult)")
    args = parser.parse_args(argv)
    run_or_fail(run_benchmark, args.algos, args.runs, args.eps, args.delta, args.estimator,
                 args.dataset)


if __name__ == "__main__":
    main()
