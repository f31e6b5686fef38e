#!/usr/bin/env python
"""Run one benchmark: ``python scripts/bench.py NAME [ARGS …]``; ``--help`` lists the names.

The benchmarks and the dispatch are in :mod:`experiments.bench_entry`.
"""
from __future__ import annotations

import sys

from experiments.bench_entry import main
from experiments.console import one_line_interrupts

if __name__ == "__main__":
    one_line_interrupts()
    sys.exit(main())
