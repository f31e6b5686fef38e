#!/usr/bin/env python
"""Redraw the figure of an artefact folder (Liu et al. 2021, Figs. 1–3) from its runs.csv.

    python scripts/plot_figures.py results/fig2_adult_bias   # redraw from runs.csv

The layout is described in :mod:`experiments.release.figures.paper`.
"""
from __future__ import annotations

import sys

from experiments.console import ArgumentParser, run_or_fail
from experiments.release.figures.paper import redraw
from experiments.release.stats.tuning import METHODS


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", help="an artefact folder with runs.csv")
    parser.add_argument("--title", default="")
    parser.add_argument("--tuning", default="paper", choices=METHODS)
    args = parser.parse_args(argv)
    return run_or_fail(redraw, args.folder, args.title, args.tuning)


if __name__ == "__main__":
    sys.exit(main())
