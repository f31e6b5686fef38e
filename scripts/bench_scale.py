#!/usr/bin/env python
"""The cost curve of PMW^Pub at the paper's full-ACS scale: time per iteration, build time and peak
memory against the public support size and the workload size.

Usage: ``python scripts/bench_scale.py [--sizes 1000,4000,...] [--workloads 256,1024,4096]
[--threads N] [--repeats R] [--out results/bench] [--reference-dir DIR --reference-python PY]``. Prints the table; writes ``scaling.csv`` and
``scaling.png`` (log-log, with the paper's Table-1 point: 2.021 s per iteration, 130K-row
support, W = 4,096, one core of an i5-4690K).

The setting and what is printed are described in :mod:`experiments.release.bench.scale`.
"""
from __future__ import annotations

from experiments.console import ArgumentParser, positive_int, positive_ints, run_or_fail
from experiments.outputs import folder_arg
from experiments.release.bench.scale import run_benchmark


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=positive_ints, default="1000,4000,16000,64000,130000")
    parser.add_argument("--workloads", type=positive_ints, default="256,1024,4096")
    parser.add_argument("--threads", type=positive_int, default=None,
                        help="numba threads per configuration (default: all cores)")
    parser.add_argument("--repeats", type=positive_int, default=1,
                        help="measurements per configuration (the summary takes medians)")
    parser.add_argument("--out", type=folder_arg, default="results/bench")
    parser.add_argument("--reference-dir", default=None,
                        help="a checkout of the paper's released code (terranceliu/pmw-pub): "
                             "time it beside each configuration on the same inputs")
    parser.add_argument("--reference-python", default=None,
                        help="the interpreter of an environment with numpy<2 and pandas for "
                             "the released code (required with --reference-dir)")
    args = parser.parse_args(argv)
    if (args.reference_dir is None) != (args.reference_python is None):
        parser.error("--reference-dir and --reference-python go together")
    reference = None if args.reference_dir is None else (args.reference_python,
                                                         args.reference_dir)
    run_or_fail(run_benchmark, args.sizes, args.workloads, args.threads, args.out, reference,
                args.repeats)


if __name__ == "__main__":
    main()
