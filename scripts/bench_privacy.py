#!/usr/bin/env python
"""Micro-benchmark of one private selection over ~300K candidates (the PMW^Pub inner step).

Usage: ``python scripts/bench_privacy.py [--repeats 300] [--seed 0]``

The setting and what is printed are described in :mod:`experiments.release.bench.privacy`.
"""
from __future__ import annotations

from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench.privacy import run_benchmark


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=positive_int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    run_or_fail(run_benchmark, args.repeats, args.seed)


if __name__ == "__main__":
    main()
