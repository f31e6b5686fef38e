#!/usr/bin/env python
"""Do two results folders hold the same runs? Their records matched run by run, errors compared.

    python scripts/compare_records.py A B [--tol 0]

Exit status 0 when no run found in both differs, 1 when one does, 2 on bad input; what is
matched and compared is described in :mod:`experiments.release.running.compare`.
"""
from __future__ import annotations

import sys

from experiments.release.running.compare import main

if __name__ == "__main__":
    sys.exit(main())
