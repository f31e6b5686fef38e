#!/usr/bin/env python
"""Time the theory presets from empty records: wall, CPU and load per preset (and per source tree).

    PUBPRIV_DATA=../shared/data python scripts/bench_theory.py [theory_liu2021 ...]
        [--tree .] [--tree /path/to/older/checkout] [--scratch /tmp/bench_theory] [--set key=value]

What is run and printed is described in :mod:`experiments.theory.bench`.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from experiments.console import run_or_fail
from experiments.theory.bench import run_benchmark
from experiments.theory.reproduce import THEORY


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("presets", nargs="*", default=list(THEORY), help="default: all theory presets")
    parser.add_argument("--tree", action="append", type=Path, help="source tree to run (repeatable; default .)")
    parser.add_argument("--scratch", type=Path, default=Path("runs/bench_theory"), help="records and outputs")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override for every run, e.g. experiment.n_jobs=1")
    args = parser.parse_args(argv)
    run_or_fail(run_benchmark, args.presets, args.tree or [Path(".")], args.scratch, args.set)


if __name__ == "__main__":
    main()
