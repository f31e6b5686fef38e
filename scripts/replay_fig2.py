#!/usr/bin/env python
"""Re-run 40 committed Fig. 2 PMW^Pub runs; record what they draw and select, or compare.

Usage: ``PUBPRIV_DATA=../shared/data python scripts/replay_fig2.py OUT.json [--against OLD.json]``

Record the sample before a change that must keep the numbers, record it again after, and compare:
the exit status is 1 when any run selects, measures, updates or draws differently or its errors
move. The sample and the record are described in :mod:`experiments.release.bench.replay`.
"""
from __future__ import annotations

import sys

from experiments.console import ArgumentParser, fail
from experiments.outputs import file_arg
from experiments.release.bench.replay import run_replay
from pubpriv_core.data.paths import DataUnavailableError


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", type=file_arg, help="JSON file to write the record to")
    parser.add_argument("--against", help="an earlier record to compare with")
    args = parser.parse_args(argv)
    try:
        return run_replay(args.output, args.against)
    except (DataUnavailableError, ValueError) as err:
        fail(str(err))


if __name__ == "__main__":
    sys.exit(main())
