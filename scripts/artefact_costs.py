#!/usr/bin/env python
"""Where an artefact's time goes: run times per algorithm, a ``reproduce.py all`` run's wall times.

    python scripts/artefact_costs.py [results/fig1_nist ...] [--by public]
    python scripts/artefact_costs.py --walltimes ROOT    # the README's table of wall times
    python scripts/artefact_costs.py --log FILE          # how busy each sweep's workers were

What each table holds is described in :mod:`experiments.release.artefacts.costs`.
"""
from __future__ import annotations

from experiments.release.artefacts.costs import main

if __name__ == "__main__":
    main()
