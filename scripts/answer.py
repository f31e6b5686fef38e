#!/usr/bin/env python
"""Print the answer table at matched signal (markdown) from the matched artefacts' runs.csv.

    python scripts/answer.py            # after scripts/reproduce.py fig1_nist_matched etc.

See :mod:`experiments.release.artefacts.answer`.
"""
from __future__ import annotations

import sys

from experiments.console import ArgumentParser, run_or_fail
from experiments.release.artefacts.answer import answer_table, comparisons


def main(argv: list[str] | None = None) -> int:
    ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    print(run_or_fail(lambda: answer_table(comparisons())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
