#!/usr/bin/env python
"""Benchmark the answer engine, PMW^Pub and MWEM on the paper's ADULT setting.

Usage: ``PUBPRIV_DATA=../shared/data python scripts/bench_release.py [--runs 5]``

The setting and what is printed are described in :mod:`experiments.release.bench.release`.
"""
from __future__ import annotations

from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench.release import run_benchmark


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=positive_int, default=5)
    parser.add_argument("--T", type=positive_int, default=100)
    args = parser.parse_args(argv)
    run_or_fail(run_benchmark, args.runs, args.T)


if __name__ == "__main__":
    main()
