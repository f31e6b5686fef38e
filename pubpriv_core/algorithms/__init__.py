"""Query-release algorithms: PMW^Pub, MWEM, DualQuery, public-only, best mixture error, the
Private-PGM mechanisms AIM, MST and JAM-PGM, and the Adaptive Measurements family PEP, PEP^Pub,
GEM, GEM^Pub and RAP^softmax.

:data:`ALGORITHMS` is the registry: name -> :class:`Entry` (where the run function lives, whether
its output depends on the public source, whether it is a non-private reference line). Every run
function has the interface of :mod:`~pubpriv_core.algorithms.base`; the harness calls it
(:func:`pubpriv_core.harness.run_algorithm`). Algorithms of other installed packages join the
registry through the ``pubpriv.algorithms`` entry points (:mod:`~pubpriv_core.algorithms.plugins`).

Each algorithm's module defines ``check(problem, *, eps, delta, T, **options)`` (a module of two
algorithms one ``check_<name>`` each) beside its run function: :func:`check_algorithm` makes the
checks the run would make on its inputs, without running, and the runner calls it for every job
before anything is written. A module may define ``privacy_terms(options) -> (accounting,
relation)`` when an option changes how the harness's ledger accounts (DualQuery's calibration,
AIM's neighbouring relation); otherwise the ledger is zCDP over replace-one neighbours.

Every release runs with one BLAS thread (``threadpoolctl``): the algorithms' BLAS calls are
vector-sized (Private-PGM's Armijo inner products, tree einsums, score reductions), where
OpenBLAS's extra threads cost more than they gain and, with another process on the cores, spin
against it (``scripts/bench.py blas_threads``, ``docs/benchmarks-pgm.md``). joblib's loky
workers already start with one BLAS thread each, so a release computes in the same arithmetic
whichever way it is launched.
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from typing import Any, Callable


@dataclass(frozen=True)
class Entry:
    """Where an algorithm's run function lives and what the harness must know of it."""

    module: str
    function: str
    uses_public: bool = True      # its output depends on the public source
    reference: bool = False       # a non-private reference line (claims no privacy)


_ALGO = "pubpriv_core.algorithms."

#: name -> Entry; modules are imported on first use.
ALGORITHMS: dict[str, Entry] = {
    "pmwpub": Entry(_ALGO + "pmwpub", "run_pmwpub"),
    "mwem": Entry(_ALGO + "mwem", "run_mwem", uses_public=False),
    "dualquery": Entry(_ALGO + "dualquery", "run_dualquery", uses_public=False),
    "public_only": Entry(_ALGO + "baselines", "run_public_only"),
    "best_mixture": Entry(_ALGO + "best_mixture", "run_best_mixture", reference=True),
    "aim": Entry(_ALGO + "aim", "run_aim", uses_public=False),
    "mst": Entry(_ALGO + "mst", "run_mst", uses_public=False),
    "jam_pgm": Entry(_ALGO + "jam_pgm", "run_jam_pgm"),
    "pep": Entry(_ALGO + "pep", "run_pep", uses_public=False),
    "pep_pub": Entry(_ALGO + "pep", "run_pep_pub"),
    "gem": Entry(_ALGO + "gem", "run_gem", uses_public=False),
    "gem_pub": Entry(_ALGO + "gem", "run_gem_pub"),
    "rap": Entry(_ALGO + "rap", "run_rap", uses_public=False),
}


def entry(name: str) -> Entry:
    """The registry entry of ``name`` (a built-in or an installed plugin's algorithm); else a
    one-line ValueError."""
    if name not in ALGORITHMS:
        from pubpriv_core.algorithms.plugins import load_plugins
        load_plugins()
    if name not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {name!r}; choose one of {', '.join(ALGORITHMS)}")
    return ALGORITHMS[name]


def load_function(name: str) -> Callable[..., Any]:
    """The run function of algorithm ``name``."""
    spec = entry(name)
    return getattr(import_module(spec.module), spec.function)


def uses_public(name: str, options: dict[str, Any]) -> bool:
    """Whether the output of ``name`` with ``options`` depends on the public source (AIM with
    ``public_init`` does)."""
    return entry(name).uses_public or bool(options.get("public_init"))


def privacy_terms(name: str, options: dict[str, Any]) -> tuple[str, str]:
    """(accounting, neighbouring relation) of the ledger a run of ``name`` with ``options``
    needs: the module's ``privacy_terms(options)``, else ("zcdp", "replace_one")."""
    terms = getattr(import_module(entry(name).module), "privacy_terms", None)
    return terms(options) if terms is not None else ("zcdp", "replace_one")


def check_algorithm(name: str, problem, *, eps: float, delta: float, T: int,
                    **options) -> None:
    """The input checks of algorithm ``name`` (its module's ``check_<name>``, else its
    ``check``) on the public view ``problem``, without running; a one-line ValueError names
    the problem and the fix. A module without either has none."""
    module = import_module(entry(name).module)
    check = getattr(module, f"check_{name}", None) or getattr(module, "check", None)
    if check is not None:
        check(problem, eps=eps, delta=delta, T=T, **options)


__all__ = ["ALGORITHMS", "Entry", "check_algorithm", "entry", "load_function", "privacy_terms",
           "uses_public"]
