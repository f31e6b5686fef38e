"""Algorithms from other installed packages: the ``pubpriv.algorithms`` entry-point group.

A package adds an algorithm by declaring, in its own ``pyproject.toml``::

    [project.entry-points."pubpriv.algorithms"]
    my_algo = "my_package:PLUGIN"

where ``PLUGIN`` is an :class:`AlgorithmPlugin`. :func:`load_plugins` puts it into
:data:`pubpriv_core.algorithms.ALGORITHMS` beside the built-in algorithms, so
``run_algorithm("my_algo", ...)`` runs it; the runner (:mod:`experiments.release.configure.plugins`) adds
its options to the config schema and its rules to the rules table, so ``run.py -m algo=my_algo``
checks, runs, stores, collects and draws it exactly as a built-in one.

The run function has the signature of every algorithm:
``run(problem, private, *, T, rng, **options) -> Release`` (:mod:`pubpriv_core.algorithms.base`):
it reads the public problem freely, reaches the private data only through the handle's charged
mechanisms (:class:`~pubpriv_core.privacy.private_data.PrivateData`) and draws its own random
numbers from ``rng``. The privacy spent is the harness's ledger, never a number the plugin
reports; a plugin that needs the raw data must call the handle's escape hatch, and its records
and figure lines then say "privacy not verified".
"""
from __future__ import annotations

from dataclasses import dataclass
from importlib import import_module
from importlib.metadata import entry_points
from typing import Any, Callable

GROUP = "pubpriv.algorithms"


class PluginError(ValueError):
    """An entry point of :data:`GROUP` that cannot be used; the message names it and the fix."""


@dataclass(frozen=True)
class AlgorithmPlugin:
    """One algorithm offered by another package.

    ``name`` is what ``algo=`` selects; ``run`` the release function; ``options`` the dataclass
    of its options (None: none), each field made with :func:`pubpriv_core.options.option` so it
    carries its default, its rule (a number, text or path needs one; booleans and fields with
    ``choices`` are covered) and its meaning, shown in the configuration reference; ``label``
    its name in figures; ``uses_public`` whether its output depends on the public source (else
    figures draw it once per sweep over public sources); ``check(problem, options)`` an optional
    check that needs the data, raising ``ValueError`` with a one-line message before anything
    runs."""

    name: str
    run: Callable[..., Any]
    options: type | None = None
    label: str = ""
    uses_public: bool = True
    check: Callable[..., None] | None = None

    @property
    def title(self) -> str:
        return self.label or self.name


#: name -> plugin, filled by :func:`load_plugins`.
PLUGINS: dict[str, AlgorithmPlugin] = {}
#: name -> the one-line error of an entry point that does not load (kept out of PLUGINS, so a
#: broken plugin never stops the built-in algorithms or the other plugins)
BROKEN: dict[str, str] = {}


def load_plugins(builtin: frozenset[str] = frozenset()) -> dict[str, AlgorithmPlugin]:
    """Load every entry point of :data:`GROUP` not loaded yet into :data:`PLUGINS`; one that
    fails is recorded in :data:`BROKEN` with its one-line error (:func:`plugin_error`), as is one
    whose name a built-in algorithm (``builtin``) already has. Returns :data:`PLUGINS`."""
    for point in entry_points(group=GROUP):
        if point.name in PLUGINS or point.name in BROKEN:
            continue
        try:
            PLUGINS[point.name] = _load(point, builtin)
        except PluginError as err:
            BROKEN[point.name] = str(err)
    return PLUGINS


def plugin_error(name: str) -> str | None:
    """The one-line error of plugin ``name`` when its entry point could not be used."""
    return BROKEN.get(name)


def _load(point, builtin: frozenset[str]) -> AlgorithmPlugin:
    where = f"plugin {point.name} (entry point {point.value} of group {GROUP})"
    try:
        plugin = point.load()
    except Exception as err:  # an import error of another package: name it, one line
        raise PluginError(f"{where} does not load ({type(err).__name__}: "
                          f"{' '.join(str(err).split())}); fix or uninstall that "
                          "package") from None
    if not isinstance(plugin, AlgorithmPlugin):
        raise PluginError(f"{where} is a {type(plugin).__name__}, not an AlgorithmPlugin; "
                          "point it at the package's AlgorithmPlugin object")
    if plugin.name != point.name:
        raise PluginError(f"{where} names its algorithm {plugin.name!r}; give the entry point "
                          "and the AlgorithmPlugin the same name")
    if plugin.name in builtin:
        raise PluginError(f"{where} has the name of a built-in algorithm; rename it in its "
                          "package")
    module, function = plugin.run.__module__, plugin.run.__name__
    if getattr(import_module(module), function, None) is not plugin.run:
        raise PluginError(f"{where}: its run function must be a function defined at the top "
                          f"level of a module, not {plugin.run!r}")
    return plugin
