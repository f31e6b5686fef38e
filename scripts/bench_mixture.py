#!/usr/bin/env python
"""Time the exact best mixture error (Liu et al. 2021, Def. 4.1) on the figures' public sources.

    PUBPRIV_DATA=../shared/data python scripts/bench_mixture.py [--only nist] [--no-mw]
        [--time-limit 60] [--progress] [--join-nonzeros 250000]

The setting and what is printed are described in :mod:`experiments.release.bench.mixture`.
"""
from __future__ import annotations

from experiments.console import ArgumentParser, positive_float, positive_int, run_or_fail
from experiments.release.bench.mixture import run_benchmark
from pubpriv_core.algorithms.mixture_lp import OPERATOR_JOIN_NONZEROS


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="", help="run the settings whose label contains this")
    parser.add_argument("--no-mw", action="store_true", help="skip the MW estimate")
    parser.add_argument("--time-limit", type=positive_float, default=60.0,
                        help="seconds per solve (the target); slower solves are reported")
    parser.add_argument("--progress", action="store_true",
                        help="print the certified interval after every round")
    parser.add_argument("--join-nonzeros", type=positive_int, default=OPERATOR_JOIN_NONZEROS,
                        help="non-zeros of the cells joining per round on the engine operator "
                             f"(paper-scale settings; default {OPERATOR_JOIN_NONZEROS:,})")
    args = parser.parse_args(argv)
    run_or_fail(run_benchmark, args.only, not args.no_mw, args.time_limit, args.progress,
                args.join_nonzeros)


if __name__ == "__main__":
    main()
