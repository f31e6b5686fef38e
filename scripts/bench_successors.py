#!/usr/bin/env python
"""GEM / GEM^Pub against the authors' PyTorch code on its ADULT setting, and the per-round cost
of the Adaptive Measurements lines on the artefacts' problems.

Usage:

* ``python scripts/bench_successors.py reference --checkout DPQR --python VENV/bin/python
  [--algo gem|gem_pub] [--runs 5 | --seeds 0,2,4] [--code both|pubpriv|reference] [--T 50]
  [--pretrain-steps N] --out runs.jsonl [--table table.md]``: both codes on the same problem,
  interleaved seed by seed (what is run is described in
  :mod:`experiments.release.bench.successors`); prints the comparison table of every run in
  ``--out``. ``--seeds`` runs only those seeds, so that two processes (one per core) can share
  the seeds of one table; ``--code`` runs only one code's runs.
  ``DPQR`` is the user's checkout of ``terranceliu/dp-query-release`` (with its
  ``datasets/``), ``VENV`` a virtual environment with PyTorch and its requirements; neither is
  part of this project.
* ``python scripts/bench_successors.py replay --checkout DPQR --trace DIR [--python
  VENV/bin/python --seed 0 --T 50 --rounds R] [--jitter N] [--table table.md]``: the reference's
  GEM run once with its randomness traced into ``DIR`` (initial weights, noise, selections,
  measurements; skipped when ``DIR`` holds a trace), then replayed in this harness's GEM update
  (:mod:`experiments.release.bench.successors_replay`); prints both codes' Adam steps, error EMA
  and true max error per round; ``--jitter N`` adds N replays from the same draws with the
  initial weights moved by one float32 rounding step (how far rounding alone moves a run).
* ``python scripts/bench_successors.py time [--runs N] -- OVERRIDES...``: repetitions 0..N−1 of
  ``python run.py OVERRIDES`` timed (seconds per round, pre-training, peak memory, max error),
  one JSON line each (GEM^Pub's public pre-training is paid once per process); e.g. ``time -- experiment=fig1_paper_scale algo=gem_pub public.shift=0.3
  T=100``.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path

import experiments  # noqa: F401  (first: it holds OpenBLAS's kernels before NumPy loads)
import numpy as np

from experiments.console import positive_int, run_or_fail, seed_list
from experiments.release.bench import successors, successors_replay


def reference(args) -> None:
    seeds = args.seeds if args.seeds is not None else list(range(args.runs))
    codes = successors.CODES if args.code == "both" else (args.code,)
    rows = successors.interleave(args.python, args.checkout, args.algo, seeds, args.T, args.out,
                                 args.pretrain_steps, codes)
    text = successors.table(rows)
    print(text)
    if args.table:
        args.table.write_text(text + "\n")


def replay(args) -> None:
    if successors_replay.missing_files(args.trace):
        if not args.python:
            raise ValueError(f"{args.trace} holds no trace; pass --python (the reference's "
                             "venv) to trace its run")
        extra = ("--trace", str(args.trace.resolve()),
                 *(("--rounds", str(args.rounds)) if args.rounds else ()))
        successors.run_reference(args.python, args.checkout, "gem", args.seed, args.T, None,
                                 extra)
    trace = successors_replay.load(args.trace)
    prob = successors.problem(successors.reference_data(args.checkout))
    text = successors_replay.table(successors_replay.replay(trace, prob, args.T,
                                                            successors.GEM_OPTIONS))
    finals = [successors_replay.replay(trace, prob, args.T, successors.GEM_OPTIONS,
                                       np.random.default_rng(j))[-1]["max_error"]
              for j in range(args.jitter or 0)]
    if finals:
        text += ("\n\nThis harness from the same draws, its initial weights moved by at most "
                 f"one float32 rounding step (seeds 0–{args.jitter - 1}): true max error after "
                 f"the last round {', '.join(f'{e:.5f}' for e in finals)}.")
    print(text)
    if args.table:
        args.table.write_text(text + "\n")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ref = sub.add_parser("reference", help="side by side with the authors' code")
    ref.add_argument("--checkout", type=Path, required=True)
    ref.add_argument("--python", required=True, help="the reference venv's python")
    ref.add_argument("--algo", choices=("gem", "gem_pub"), default="gem")
    ref.add_argument("--runs", type=positive_int, default=5, help="seeds 0..runs-1")
    ref.add_argument("--seeds", type=seed_list, help="these seeds instead of --runs")
    ref.add_argument("--code", choices=("both", *successors.CODES), default="both",
                     help="run only this code's runs (the table still reads every run)")
    ref.add_argument("--T", type=positive_int, default=50)
    ref.add_argument("--pretrain-steps", type=positive_int, default=200)
    ref.add_argument("--out", type=Path, required=True)
    ref.add_argument("--table", type=Path)
    rep = sub.add_parser("replay", help="the reference's GEM traced, replayed here")
    rep.add_argument("--checkout", type=Path, required=True)
    rep.add_argument("--trace", type=Path, required=True, help="the trace's folder")
    rep.add_argument("--python", help="the reference venv's python (to make the trace)")
    rep.add_argument("--seed", type=int, default=0)
    rep.add_argument("--T", type=positive_int, default=50)
    rep.add_argument("--rounds", type=positive_int, help="trace only the first R rounds")
    rep.add_argument("--jitter", type=positive_int,
                     help="N more replays from the weights moved by one rounding step")
    rep.add_argument("--table", type=Path)
    timing = sub.add_parser("time", help="timed repetitions of run.py OVERRIDES")
    timing.add_argument("--runs", type=positive_int, default=1,
                        help="repetitions 0..N-1 in this process (a public pre-training once)")
    timing.add_argument("overrides", nargs="+")
    args = parser.parse_args(argv)
    if args.command == "reference":
        run_or_fail(reference, args)
    elif args.command == "replay":
        run_or_fail(replay, args)
    else:
        run_or_fail(lambda: [print(json.dumps(dict(successors.time_line(args.overrides, run),
                                                   run=run)), flush=True)
                             for run in range(args.runs)])


if __name__ == "__main__":
    main()
