#!/usr/bin/env python
"""AIM on NIST reduced under add/remove, paired by seed against the reference code's choices.

Usage: ``PUBPRIV_DATA=../shared/data python scripts/bench_aim_gap.py --out aim_gap.jsonl
[--seeds 0 1 2 ...] [--eps 1] [--delta 1e-9]``

What each seed measures is described in :mod:`experiments.release.bench.aim_gap`; seeds already
in ``--out`` are not run again.
"""
from __future__ import annotations

from experiments.console import ArgumentParser, positive_float, run_or_fail
from experiments.outputs import file_arg
from experiments.release.bench.aim_gap import run_gap


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=file_arg, required=True, help="JSON lines, one per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(20)))
    parser.add_argument("--eps", type=positive_float, default=1.0)
    parser.add_argument("--delta", type=positive_float, default=1e-9)
    args = parser.parse_args(argv)
    run_or_fail(run_gap, args.seeds, args.out, args.eps, args.delta)


if __name__ == "__main__":
    main()
