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
    """Where an algorithm's run function and options live, and what the harness must know of
    it. ``options`` is the options dataclass (a built-in's by its name in
    :mod:`~pubpriv_core.algorithms.settings`): its fields, made with
    :func:`pubpriv_core.options.option`, are the algorithm's options with their defaults, rules
    and meanings, declared once."""

    module: str
    function: str
    options: str | type | None = None
    uses_public: bool = True      # its output depends on the public source
    reference: bool = False       # a non-private reference line (claims no privacy)


_ALGO = "pubpriv_core.algorithms."

#: name -> Entry; modules are imported on first use.
ALGORITHMS: dict[str, Entry] = {
    "pmwpub": Entry(_ALGO + "pmwpub", "run_pmwpub", "PMWPubOptions"),
    "mwem": Entry(_ALGO + "mwem", "run_mwem", "MWEMOptions", uses_public=False),
    "dualquery": Entry(_ALGO + "dualquery", "run_dualquery", "DualQueryOptions",
                       uses_public=False),
    "public_only": Entry(_ALGO + "baselines", "run_public_only", "PublicOnlyOptions"),
    "best_mixture": Entry(_ALGO + "best_mixture", "run_best_mixture", "BestMixtureOptions",
                          reference=True),
    "aim": Entry(_ALGO + "aim", "run_aim", "AIMOptions", uses_public=False),
    "mst": Entry(_ALGO + "mst", "run_mst", "MSTOptions", uses_public=False),
    "jam_pgm": Entry(_ALGO + "jam_pgm", "run_jam_pgm", "JAMOptions"),
    "pep": Entry(_ALGO + "pep", "run_pep", "PEPOptions", uses_public=False),
    "pep_pub": Entry(_ALGO + "pep", "run_pep_pub", "PEPPubOptions"),
    "gem": Entry(_ALGO + "gem", "run_gem", "GEMOptions", uses_public=False),
    "gem_pub": Entry(_ALGO + "gem", "run_gem_pub", "GEMPubOptions"),
    "rap": Entry(_ALGO + "rap", "run_rap", "RAPOptions", uses_public=False),
}
#: the built-in algorithms' names (a plugin may not take one)
BUILTIN = frozenset(ALGORITHMS)


def entry(name: str) -> Entry:
    """The registry entry of ``name`` (a built-in or an installed plugin's algorithm); else a
    one-line ValueError (naming the plugin when its entry point is broken)."""
    if name not in ALGORITHMS:
        register_plugins()
    if name not in ALGORITHMS:
        from pubpriv_core.algorithms.plugins import plugin_error
        raise ValueError(plugin_error(name) or f"unknown algorithm {name!r}; choose one of "
                         f"{', '.join(ALGORITHMS)}")
    return ALGORITHMS[name]


def register_plugins() -> list[str]:
    """Add every installed plugin that loads to :data:`ALGORITHMS` (a broken one is left out,
    its error kept for when it is asked for); returns the names of the plugins."""
    from pubpriv_core.algorithms.plugins import load_plugins

    plugins = load_plugins(frozenset(BUILTIN))
    for name, plugin in plugins.items():
        ALGORITHMS.setdefault(name, Entry(plugin.run.__module__, plugin.run.__name__,
                                          plugin.options, uses_public=plugin.uses_public))
    return sorted(plugins)


def load_function(name: str) -> Callable[..., Any]:
    """The run function of algorithm ``name``."""
    spec = entry(name)
    return getattr(import_module(spec.module), spec.function)


def options_of(name: str) -> type | None:
    """The options dataclass of algorithm ``name`` (None: it takes no options); a built-in
    one is read from :mod:`~pubpriv_core.algorithms.settings` without importing the algorithm."""
    spec = entry(name)
    if spec.options is None or isinstance(spec.options, type):
        return spec.options
    return getattr(import_module("pubpriv_core.algorithms.settings"), spec.options)


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


__all__ = ["ALGORITHMS", "BUILTIN", "Entry", "check_algorithm", "entry", "load_function",
           "options_of", "privacy_terms", "register_plugins", "uses_public"]
