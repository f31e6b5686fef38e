#!/usr/bin/env python
"""Regenerate one artefact of Liu et al. 2021 (PMW^Pub) with one command: sweep, collect, plot.

    python scripts/reproduce.py fig2             # one artefact (e.g. fig1_nist, sota, table1)
    python scripts/reproduce.py fig2 --quick     # its tiny grid (pipeline check)
    python scripts/reproduce.py theory_liu2021   # a theory preset, or bounds
    python scripts/reproduce.py all              # every artefact that runs offline, timed
    python scripts/reproduce.py --help           # every artefact and option

The artefacts and options are described in :mod:`experiments.reproduce_cli`.
"""
from __future__ import annotations

import sys

from experiments.console import one_line_interrupts
from experiments.reproduce_cli import main

if __name__ == "__main__":
    one_line_interrupts()
    sys.exit(main())
