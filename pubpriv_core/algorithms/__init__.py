"""Query-release algorithms: PMW^Pub, MWEM, DualQuery, public-only, best mixture error, the
Private-PGM mechanisms AIM, MST and JAM-PGM, and the Adaptive Measurements family PEP, PEP^Pub,
GEM, GEM^Pub and RAP^softmax.

``run_algorithm(name, problem, eps=, delta=, T=, rng=, **options)`` dispatches by name; every
entry returns a :class:`~pubpriv_core.algorithms.base.Release`. Algorithms of other installed
packages join :data:`ALGORITHMS` through the ``pubpriv.algorithms`` entry points
(:mod:`pubpriv_core.algorithms.plugins`). ``check_algorithm`` with the same arguments (no
generator) makes the checks the run would make on its inputs, without running: each
algorithm's module defines ``check(problem, *, eps, delta, T, **options)`` (a module of two
algorithms one ``check_<name>`` each) beside its run function
(:mod:`~pubpriv_core.algorithms.budget_checks`), and the runner calls it for every job before
anything is written.

Every release runs with one BLAS thread (``threadpoolctl``): the algorithms' BLAS calls are
vector-sized (Private-PGM's Armijo inner products, tree einsums, score reductions), where
OpenBLAS's extra threads cost more than they gain and, with another process on the cores, spin
against it (JAM-PGM on ADULT at ε = 0.1, one run beside a 2-worker sweep: 217.0 s with
OpenBLAS's two threads, 63.3 s with one, the same record; quiet, 53.8 s and 53.1 s at half the
CPU time; ``scripts/bench.py blas_threads``, ``docs/benchmarks-pgm.md``).
joblib's loky workers already start with one BLAS thread each on this 2-core machine, so a
release now computes in the same arithmetic whichever way it is launched.
"""
from __future__ import annotations

from importlib import import_module

import numpy as np
from threadpoolctl import threadpool_limits

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
    """Run algorithm ``name`` on ``problem`` with target (``eps``, ``delta``) and ``T`` rounds,
    on one BLAS thread (module docstring)."""
    module, function = ALGORITHMS[_known(name)]
    run = getattr(import_module(module), function)
    with threadpool_limits(limits=1, user_api="blas"):
        return run(problem, eps=eps, delta=delta, T=T, rng=rng, **options)


def check_algorithm(name: str, problem: ReleaseProblem, *, eps: float, delta: float, T: int,
                    **options) -> None:
    """The input checks of algorithm ``name`` (its module's ``check_<name>``, else its
    ``check``: a module holding two algorithms has one per algorithm), without running it; a
    one-line ValueError names the problem and the fix. A module without either has none."""
    module = import_module(ALGORITHMS[_known(name)][0])
    check = getattr(module, f"check_{name}", None) or getattr(module, "check", None)
    if check is not None:
        check(problem, eps=eps, delta=delta, T=T, **options)


def _known(name: str) -> str:
    """``name`` if it is a built-in or an installed plugin's algorithm; else a one-line error."""
    if name not in ALGORITHMS:
        from pubpriv_core.algorithms.plugins import load_plugins
        load_plugins()
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}")
    return name


__all__ = ["ALGORITHMS", "Release", "ReleaseProblem", "check_algorithm", "run_algorithm"]
