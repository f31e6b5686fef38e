#!/usr/bin/env python
"""Regenerate one artefact of Liu et al. 2021 (PMW^Pub) with one command: sweep, collect, plot.

    python scripts/reproduce.py fig2            # ADULT, PMW^Pub(Δ) vs DualQuery (Fig. 2)
    python scripts/reproduce.py fig1_nist       # Fig. 1 on the offline NIST ACS excerpts
    python scripts/reproduce.py fig3_nist       # Fig. 3 (public fraction) on the NIST excerpts
    python scripts/reproduce.py nist_shift      # NIST: private national-2019 / TX-2019, publics
                                                #   from other populations (MA, TX, 2018)
    python scripts/reproduce.py table1          # Table 1, per-iteration run time
    python scripts/reproduce.py sota            # NIST reduced: PMW^Pub vs AIM, MST, JAM-PGM
    python scripts/reproduce.py sota_adult      # ADULT (Δ = 0, 0.65): the same algorithms
    python scripts/reproduce.py fig1_acs        # Fig. 1 on ACS via folktables (needs internet)
    python scripts/reproduce.py fig3_fraction   # Fig. 3 on ACS via folktables (needs internet)
    options: --quick (1 run, 2 ε, first value of the other axes)
             --tuning paper|best_average|validation (paper, §5.4: PMW^Pub on validation data
             where it was run, the baselines by their best average)
             --jobs N --set key=value (replace an axis in every block) --data-root DIR
             --results-dir DIR (records) --no-run (collect + plot; with no records, redraw
             the committed results/<artefact>/runs.csv) --into runs|results (outputs under
             runs/artefacts/, the default, or into the committed results/) --out DIR

The artefacts are listed in :mod:`experiments.release.catalogue`; the work is
:func:`experiments.release.reproduce.reproduce`.
"""
from __future__ import annotations

import sys

from experiments.console import ArgumentParser, worker_count
from experiments.release.catalogue import ALIASES, ARTEFACTS
from experiments.release.reproduce import reproduce
from experiments.release.tuning import METHODS


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artefact", choices=sorted([*ARTEFACTS, *ALIASES]))
    parser.add_argument("--quick", action="store_true", help="tiny grid (pipeline check)")
    parser.add_argument("--tuning", choices=METHODS, help="T selection (default: artefact's)")
    parser.add_argument("--jobs", type=worker_count, default=2, help="joblib workers (table1: 1)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                        help="override applied to every block (replaces that axis)")
    parser.add_argument("--data-root", help="data root (default $PUBPRIV_DATA / cache)")
    parser.add_argument("--results-dir", help="records folder (default: the presets')")
    parser.add_argument("--into", choices=("runs", "results"), default="runs",
                        help="write the CSVs, figure and summary under runs/artefacts/ (default) "
                             "or into the committed results/<artefact>/")
    parser.add_argument("--out", help="output folder (replaces --into)")
    parser.add_argument("--no-run", action="store_true",
                        help="only collect, select and plot (no records: the committed runs.csv)")
    args = parser.parse_args(argv)
    return reproduce(args.artefact, quick=args.quick, tuning=args.tuning, jobs=args.jobs,
                     settings=args.set, data_root=args.data_root, results_dir=args.results_dir,
                     out=args.out, no_run=args.no_run, into=args.into,
                     command=list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    sys.exit(main())
