#!/usr/bin/env python
"""What bounds PMW^Pub's full answer pass at points of the scaling grid: the pass on all cores
and on one, one read of its index on all cores, and the cost of one addition.

Usage: ``python scripts/bench_pass.py [--points 130000x4096,16000x256,64000x256] [--repeats 9]``.
Prints one line per point; the setting is that of ``scripts/bench_scale.py``
(:mod:`experiments.release.bench.pass_floor` says what each number is).
"""
from __future__ import annotations

import argparse
import os

import experiments  # noqa: F401  (the pinned OpenBLAS kernels, before NumPy loads)
from experiments.console import ArgumentParser, positive_int, run_or_fail
from experiments.release.bench.pass_floor import line, measure


def points(text: str) -> list[tuple[int, int]]:
    """``ROWSxW,ROWSxW`` as pairs of positive integers (argparse makes the error one line)."""
    try:
        pairs = [tuple(int(v) for v in item.split("x")) for item in text.split(",")]
    except ValueError:
        pairs = []
    if not pairs or any(len(p) != 2 or min(p) < 1 for p in pairs):
        raise argparse.ArgumentTypeError(f"expected ROWSxW pairs such as 130000x4096,16000x256, "
                                         f"got {text!r}")
    return pairs


def run(pairs: list[tuple[int, int]], repeats: int) -> None:
    for rows, W in pairs:
        print(line(measure(rows, W, repeats)), flush=True)
    print(f"load average {os.getloadavg()[0]:.2f}")


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=points, default="130000x4096,16000x256,64000x256")
    parser.add_argument("--repeats", type=positive_int, default=9)
    args = parser.parse_args(argv)
    run_or_fail(run, args.points, args.repeats)


if __name__ == "__main__":
    main()
