#!/usr/bin/env python
"""Mutation testing of the privacy paths with mutmut 3, and the report of the mutants it left.

    python scripts/mutation_privacy.py [--jobs 2] [--mutmut PATH] [--report-only]
        [-o results/mutation/mutmut_survivors.md]

What is run and reported is described in :mod:`experiments.mutation.mutmut_run`.
"""
from __future__ import annotations

import sys

from experiments.mutation.mutmut_run import main

if __name__ == "__main__":
    sys.exit(main())
