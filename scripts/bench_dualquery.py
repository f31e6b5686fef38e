#!/usr/bin/env python
"""Time per DualQuery round on ADULT (Liu et al. 2021, §5.2 / Fig 2 setting: 3-way, W = 256).

    python scripts/bench_dualquery.py --eps 1 --samples 200

The setting and what is printed are described in :mod:`experiments.release.bench.dualquery`.
"""
from __future__ import annotations

from experiments.console import ArgumentParser, positive_float, positive_int, run_or_fail
from experiments.release.bench.dualquery import run_benchmark


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--eps", type=positive_float, default=1.0)
    parser.add_argument("--eta", type=positive_float, default=2.0)
    parser.add_argument("--samples", type=positive_int, default=200)
    parser.add_argument("--max-T", type=positive_int, default=None)
    parser.add_argument("--workload", type=positive_int, default=256, help="W, number of 3-way marginals")
    parser.add_argument("--random", action="store_true", help="random records instead of ADULT")
    parser.add_argument("--rows", type=positive_int, default=43_911, help="rows of the random dataset")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    run_or_fail(run_benchmark, args.eps, args.eta, args.samples, args.max_T, args.workload, args.random,
                args.rows, args.seed)


if __name__ == "__main__":
    main()
