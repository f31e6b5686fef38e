"""Regenerate one artefact of Liu et al. 2021 (PMW^Pub) with one command: sweep, collect, plot.

    python scripts/reproduce.py fig2            # ADULT, PMW^Pub(Δ) vs DualQuery (Fig. 2)
    python scripts/reproduce.py fig1_nist       # Fig. 1 on the offline NIST ACS excerpts
    python scripts/reproduce.py fig3_nist       # Fig. 3 (public fraction) on the NIST excerpts
    python scripts/reproduce.py nist_shift      # NIST: private national-2019 / TX-2019, publics
                                                #   from other populations (MA, TX, 2018)
    python scripts/reproduce.py table1          # Table 1, per-iteration run time
    python scripts/reproduce.py sota            # NIST reduced: PMW^Pub vs AIM, MST, JAM-PGM
    python scripts/reproduce.py sota_adult      # ADULT (Δ = 0, 0.65): the same algorithms
    python scripts/reproduce.py fig1_nist_matched   # Fig. 1 rows at the paper's signal:
                                                    #   ε = eps_equiv·10^5/n, T up to 300
    python scripts/reproduce.py nist_shift_matched  # private national-2019, matched signal
    python scripts/reproduce.py sota_matched    # NIST reduced 3-way: PMW^Pub vs AIM, JAM-PGM
    python scripts/reproduce.py released_code   # PMW^Pub as Alg. 1 vs as the released code
    python scripts/reproduce.py fig1_acs        # Fig. 1 on ACS via folktables (needs internet)
    python scripts/reproduce.py fig3_fraction   # Fig. 3 on ACS via folktables (needs internet)
    python scripts/reproduce.py theory_liu2021  # a theory preset (theory_<paper>), or bounds
    python scripts/reproduce.py all             # every artefact above that runs offline, the
                                                #   theory presets and the bound curves, timed
                                                #   (table: <root>/walltimes.md; root runs/artefacts,
                                                #   results with --into results, or --out)
    options: --quick (1 run, 2 ε, first value of the other axes)
             --tuning paper|best_average|validation (paper, §5.4: PMW^Pub on validation data
             where it was run, the baselines by their best average)
             --jobs N --set key=value (replace an axis in every block) --data-root DIR
             --algos a,b (run and draw only these algorithms' lines; the summary names the
             others, and a later run without it adds them to the same records)
             --with-committed (with --algos: draw the other lines from the committed
             results/<artefact>/runs.csv, so a line is added without re-running the rest)
             --results-dir DIR (records) --no-run (collect + plot; with no records, redraw
             the committed results/<artefact>/runs.csv) --into runs|results (outputs under
             runs/artefacts/, the default, or into the committed results/) --out DIR
             --launcher slurm (the sweeps as Slurm arrays, one task per problem group, with
             the resources of hydra/launcher=slurm; theory presets one job each)
             --launcher-option KEY=VALUE (a field of that preset, e.g. partition=debug)
             --targets a,b (with all: only these artefacts, theory presets or bounds; the
             table keeps the other rows an earlier run into the same root wrote)

The artefacts are listed in :mod:`experiments.release.artefacts.catalogue`; the work is
:func:`experiments.release.artefacts.reproduce.reproduce`, for the theory presets
:mod:`experiments.theory.reproduce` and for ``all`` :mod:`experiments.reproduce_all`. This module
is the command line (``python scripts/reproduce.py`` runs its :func:`main`); it sits above both
wings.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from experiments.console import ArgumentParser, UserError, worker_count
from experiments.release.artefacts.catalogue import ALIASES, ARTEFACTS
from experiments.release.artefacts.reproduce import reproduce
from experiments.release.artefacts.slurm import SlurmLauncher
from experiments.release.stats.tuning import METHODS
from experiments.reproduce_all import (output_root, reproduce_all, run_theory_target,
                                       target_names)
from experiments.theory.reproduce import BOUNDS, THEORY, theory_out

OTHERS = ("all", BOUNDS, *THEORY)


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("artefact", choices=sorted([*ARTEFACTS, *ALIASES, *OTHERS]))
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
    parser.add_argument("--algos", type=name_list, default=(), metavar="NAME[,NAME...]",
                        help="run and draw only these algorithms' blocks (the summary names the "
                             "lines left out; re-run without it to add them)")
    parser.add_argument("--with-committed", action="store_true",
                        help="with --algos: draw the other algorithms' lines from the committed "
                             "results/<artefact>/runs.csv beside the new ones")
    parser.add_argument("--no-run", action="store_true",
                        help="only collect, select and plot (no records: the committed runs.csv)")
    parser.add_argument("--pin-workers", action="store_true",
                        help="hold each joblib worker to its own cores (faster GEM/RAP sweeps "
                             "on few cores; their float rounding follows the cores a worker "
                             "sees, see docs/benchmarks.md)")
    parser.add_argument("--launcher", choices=("joblib", "slurm"), default="joblib",
                        help="joblib workers on this machine (--jobs), or Slurm array tasks with "
                             "the resources of hydra/launcher=slurm")
    parser.add_argument("--launcher-option", action="append", default=[], metavar="KEY=VALUE",
                        help="with --launcher slurm: a field of conf/hydra/launcher/slurm.yaml "
                             "(partition=debug, mem_gb=4, timeout_min=60)")
    parser.add_argument("--targets", type=name_list, default=(), metavar="NAME[,NAME...]",
                        help="with all: run only these targets (artefacts, theory presets, "
                             "bounds), e.g. those an interrupted run did not reach")
    args = parser.parse_args(argv)
    if args.targets:
        known = target_names()
        unknown = sorted(set(args.targets) - set(known))
        if args.artefact != "all" or unknown:
            parser.error(f"--targets applies to all and names its targets ({', '.join(known)})"
                         + (f"; unknown: {', '.join(unknown)}" if unknown else ""))
    if args.launcher_option and args.launcher != "slurm":
        parser.error("--launcher-option applies to --launcher slurm")
    if args.pin_workers and args.launcher != "joblib":
        parser.error("--pin-workers applies to joblib workers (--launcher joblib)")
    if args.pin_workers and args.jobs < 2:
        parser.error("--pin-workers splits the cores among two or more workers; pass --jobs 2 "
                     "or more, or leave it out (one worker uses every core)")
    try:
        launcher = SlurmLauncher(tuple(args.launcher_option)) if args.launcher == "slurm" else None
        if launcher is not None and not args.no_run:
            launcher.check_cluster()
    except UserError as err:
        parser.error(str(err))
    if args.artefact in OTHERS:
        if args.algos or args.with_committed:
            parser.error("--algos and --with-committed apply to one query-release artefact, "
                         f"not {args.artefact}")
        return dispatch(args, launcher)
    return reproduce(args.artefact, quick=args.quick, tuning=args.tuning, jobs=args.jobs,
                     settings=args.set, data_root=args.data_root, results_dir=args.results_dir,
                     out=args.out, no_run=args.no_run, into=args.into, algos=args.algos,
                     with_committed=args.with_committed, launcher=launcher,
                     pin=args.pin_workers, command=list(sys.argv[1:] if argv is None else argv))


def name_list(text: str) -> tuple[str, ...]:
    """``pmwpub,aim`` → ("aim", "pmwpub") (the names of --algos or --targets)."""
    names = tuple(sorted({part.strip() for part in text.split(",") if part.strip()}))
    if not names:
        raise argparse.ArgumentTypeError("needs names, e.g. --algos pmwpub,dualquery or "
                                         "--targets fig2,table1")
    return names


def dispatch(args, launcher: SlurmLauncher | None) -> int:
    """``all`` (``--out``: the root of the artefacts' folders), a theory preset or the bound
    curves (``--out``: its folder); without ``--out`` the roots of
    :func:`experiments.reproduce_all.output_root`."""
    root = output_root(quick=args.quick, into=args.into)
    if args.artefact == "all":
        release = {"tuning": args.tuning, "jobs": args.jobs, "settings": args.set,
                   "data_root": args.data_root, "results_dir": args.results_dir,
                   "no_run": args.no_run, "launcher": launcher, "pin": args.pin_workers}
        return reproduce_all(Path(args.out) if args.out else root, quick=args.quick,
                             release_kwargs=release, only=args.targets)
    out = Path(args.out) if args.out else theory_out(root, args.artefact)
    return run_theory_target(args.artefact, out, args.quick, launcher)

