#!/usr/bin/env python
"""Hand-written one-line privacy mutants: apply each to a copy of the tree and run tests on it.

    python scripts/mutation_oneline.py [--baseline privacy|subset|full|none] [--no-flow]
        [--baseline-tests FILE ...] [--only M1 M2] [-o FILE]

The mutants, the tests run on each and the table printed are described in
:mod:`experiments.mutation.oneline`.
"""
from __future__ import annotations

import sys

from experiments.mutation.oneline import main

if __name__ == "__main__":
    sys.exit(main())
