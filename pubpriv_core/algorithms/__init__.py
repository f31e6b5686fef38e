"""Query-release algorithms: PMW^Pub, MWEM, DualQuery, public-only, best mixture error, the
Private-PGM mechanisms AIM, MST and JAM-PGM, and the Adaptive Measurements family PEP, PEP^Pub,
GEM, GEM^Pub and RAP^softmax.

``run_algorithm(name, problem, eps=, delta=, T=, rng=, **options)`` dispatches by name; every
entry returns a :class:`~pubpriv_core.algorithms.base.Release`. Algorithms of other installed
packages join :data:`ALGORITHMS` through the ``pubpriv.algorithms`` entry points
(:mod:`pubpriv_core.algorithms.plugins`).
"""
from __future__ import annotations

from importlib import import_module

import numpy as np

from pubpriv_core.algorithms.base import Release, ReleaseProblem

#: name -> (module, function); modules are imported on first use.
ALGORITHMS = {
    "pmwpub": ("pubpriv_core.algorithms.pmwpub", "run_pmwpub"),
    "mwem": ("pubpriv_core.algorithms.mwem", "run_mwem"),
    "dualquery": ("pubpriv_core.algorithms.dualquery", "run_dualquery"),
    "public_only": ("pubpriv_core.algorithms.baselines", "run_public_only"),
    "best_mixture": ("pubpriv_core.algorithms.best_mixture", "run_best_mixture"),
    "aim": ("pubpriv_core.algorithms.aim", "run_aim"),
    "mst": ("pubpriv_core.algorithms.mst", "run_mst"),
    "jam_pgm": ("pubpriv_core.algorithms.jam_pgm", "run_jam_pgm"),
    "pep": ("pubpriv_core.algorithms.pep", "run_pep"),
    "pep_pub": ("pubpriv_core.algorithms.pep", "run_pep_pub"),
    "gem": ("pubpriv_core.algorithms.gem", "run_gem"),
    "gem_pub": ("pubpriv_core.algorithms.gem", "run_gem_pub"),
    "rap": ("pubpriv_core.algorithms.rap", "run_rap"),
}


def run_algorithm(name: str, problem: ReleaseProblem, *, eps: float, delta: float, T: int,
                  rng: np.random.Generator, **options) -> Release:
    """Run algorithm ``name`` on ``problem`` with target (``eps``, ``delta``) and ``T`` rounds."""
    if name not in ALGORITHMS:
        from pubpriv_core.algorithms.plugins import load_plugins
        load_plugins()
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}")
    module, function = ALGORITHMS[name]
    return getattr(import_module(module), function)(problem, eps=eps, delta=delta, T=T, rng=rng,
                                                    **options)


__all__ = ["ALGORITHMS", "Release", "ReleaseProblem", "run_algorithm"]
