#!/usr/bin/env python
"""Print any registered bound, list them, or draw the per-paper comparison figures.

Examples:
  python scripts/bounds.py list                       # every bound id with its parameters
  python scripts/bounds.py list beimel2014            # one paper
  python scripts/bounds.py show liu2021.prop4.3.m     # full statement of one bound
  python scripts/bounds.py eval beimel2014.thm7.2 d=8 alpha=0.1 beta=0.05 eps=1
  python scripts/bounds.py eval bassily2020.lemma7 X_size=2**40 H_size=2**40 alpha=0.1 \\
      beta=0.05 eps=1 delta=1e-6
  python scripts/bounds.py plot --out results/bounds  # one PNG + CSV per paper

Parameters are name=value pairs from the vocabulary (d, p, alpha, beta, eps, delta, rho, m, n,
n_pub, n_priv, X_size, H_size, Q_size, T, D2, Dinf) plus c, the constant of O(·) shapes
(default 1). Values may be ints, floats, or a**b for exact powers. In the figures, solid lines
have the paper's explicit constants, dashed lines are O(·) shapes drawn with c = 1, and dotted
grey lines mark regimes.
"""
from __future__ import annotations

import argparse
import sys

from experiments.console import ArgumentParser, fail
from experiments.outputs import folder_arg
from experiments.theory.bound_figures import (BoundInputError, plot_papers, print_list,
                                              print_statement, print_value)
from pubpriv_core.bounds.curves import PAPERS


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("eval", help="evaluate one bound: eval ID name=value ...")
    p.add_argument("id")
    p.add_argument("params", nargs="*", help="name=value pairs")
    p.set_defaults(run=lambda a: print_value(a.id, a.params))
    p = sub.add_parser("list", help="list bound ids (optionally of one paper)")
    p.add_argument("paper", nargs="?")
    p.set_defaults(run=lambda a: print_list(a.paper))
    p = sub.add_parser("show", help="print the statement (docstring) of one bound")
    p.add_argument("id")
    p.set_defaults(run=lambda a: print_statement(a.id))
    p = sub.add_parser("plot", help="draw per-paper figures (PNG) and their data (CSV)")
    p.add_argument("--out", type=folder_arg, default="results/bounds", help="output folder")
    p.add_argument("--paper", action="append", choices=list(PAPERS), help="repeatable")
    p.set_defaults(run=lambda a: plot_papers(a.out, a.paper))
    args = parser.parse_args(argv)
    try:
        args.run(args)
    except BoundInputError as err:   # bad input: one line, status 2 (as argparse's own errors)
        fail(str(err))


if __name__ == "__main__":
    main(sys.argv[1:])
