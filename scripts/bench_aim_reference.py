#!/usr/bin/env python
"""The reference AIM code on NIST reduced over seeds, compared with this harness's AIM.

Usage: ``PUBPRIV_DATA=../shared/data python scripts/bench_aim_reference.py --reference-dir
PRIVATE_PGM/mechanisms --out aim_reference.jsonl [--seeds 0 1 2 ...] [--estimator joint|mbi]
[--ours aim_gap.jsonl] [--eps 1] [--delta 1e-9]``

``--reference-dir`` is the user's own checkout of Private-PGM's ``mechanisms`` folder (``aim.py``,
``mechanism.py``, ``cdp2adp.py`` in their ``mbi``-2 form); it is not part of this project. What
each seed measures is described in :mod:`experiments.release.bench.aim_reference`; seeds already
in ``--out`` with the same estimator are not run again. ``--ours`` is a ``bench_aim_gap.py``
output to compare with. The process runs with ``PYTHONHASHSEED=0`` (restarting itself if
needed): the reference orders its candidates by set iteration.
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from experiments.console import ArgumentParser, positive_float, run_or_fail
from experiments.outputs import file_arg
from experiments.release.bench.aim_reference import ESTIMATORS, run_reference


def main(argv: list[str] | None = None) -> None:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reference-dir", type=Path, required=True,
                        help="a Private-PGM checkout's mechanisms folder")
    parser.add_argument("--out", type=file_arg, required=True, help="JSON lines, one per seed")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(range(20)))
    parser.add_argument("--estimator", choices=ESTIMATORS, default="joint")
    parser.add_argument("--ours", type=Path, help="bench_aim_gap.py JSON lines to compare with")
    parser.add_argument("--eps", type=positive_float, default=1.0)
    parser.add_argument("--delta", type=positive_float, default=1e-9)
    args = parser.parse_args(argv)
    run_or_fail(run_reference, args.reference_dir, args.seeds, args.out, args.eps, args.delta,
                args.estimator, args.ours)


if __name__ == "__main__":
    if os.environ.get("PYTHONHASHSEED") != "0":
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, *sys.argv])
    main()
