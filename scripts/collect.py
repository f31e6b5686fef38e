#!/usr/bin/env python
"""Merge the records of a results folder into one tidy CSV: one row per (config, repetition).

    python scripts/collect.py RESULTS_DIR [RESULTS_DIR ...] -o OUT.csv [--strict]

The columns, and how damaged record files are reported, are described in
:mod:`experiments.release.running.collect`.
"""
from __future__ import annotations

import sys

from experiments.console import ArgumentParser, run_or_fail
from experiments.release.running.collect import write_csv


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results_dirs", nargs="+", metavar="RESULTS_DIR",
                        help="the runner's results_dir (several are merged)")
    parser.add_argument("-o", "--output", required=True, help="CSV file to write")
    parser.add_argument("--strict", action="store_true",
                        help="fail (exit 1, nothing written) if any record file is damaged")
    args = parser.parse_args(argv)
    return run_or_fail(write_csv, args.results_dirs, args.output, args.strict)


if __name__ == "__main__":
    sys.exit(main())
