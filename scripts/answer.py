#!/usr/bin/env python
"""Print the answer table at matched signal (markdown) from the matched artefacts' runs.csv.

    python scripts/answer.py            # after scripts/reproduce.py fig1_nist_matched etc.

See :mod:`experiments.release.answer`.
"""
from __future__ import annotations

import sys

from experiments.release.answer import answer_table, comparisons


def main() -> int:
    try:
        print(answer_table(comparisons()))
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
