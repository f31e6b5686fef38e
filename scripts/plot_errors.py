#!/usr/bin/env python
"""Plot an error metric against ε from a collected CSV (``scripts/collect.py``).

    python scripts/plot_errors.py ALL.csv -o fig.png [--metric max_error] [--where T=100 ...]

The lines and legend are described in :mod:`experiments.release.figures.error_plot`.
"""
from __future__ import annotations

import sys

from experiments.console import ArgumentParser, run_or_fail
from experiments.outputs import image_arg
from experiments.release.figures.error_plot import plot_csv


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", help="a CSV written by scripts/collect.py")
    parser.add_argument("-o", "--output", type=image_arg, required=True, help="image file (.png, .pdf, .svg)")
    parser.add_argument("--metric", default="max_error")
    parser.add_argument("--where", action="append", default=[], metavar="COLUMN=VALUE",
                        help="keep only rows with this value (repeatable)")
    parser.add_argument("--title")
    args = parser.parse_args(argv)
    return run_or_fail(plot_csv, args.csv, args.output, args.metric, args.where, args.title)


if __name__ == "__main__":
    sys.exit(main())
