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

from dataclasses import dataclass, field
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
    of its config options (a subclass of :class:`experiments.release.configure.schema.AlgoConf` whose
    ``name`` defaults to ``name``; None: no options); ``rules`` one
    :class:`experiments.release.configure.rules.Rule` per numeric or text option; ``label`` its name in
    figures; ``uses_public`` whether its output depends on the public source (else figures draw
    it once per sweep over public sources); ``check(problem, options)`` an optional check that
    needs the data, raising ``ValueError`` with a one-line message before anything runs;
    ``help`` the meaning of each option, shown in the configuration reference."""

    name: str
    run: Callable[..., Any]
    options: type | None = None
    rules: dict[str, Any] = field(default_factory=dict)
    label: str = ""
    uses_public: bool = True
    check: Callable[..., None] | None = None
    help: dict[str, str] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return self.label or self.name


#: name -> plugin, filled by :func:`load_plugins`.
PLUGINS: dict[str, AlgorithmPlugin] = {}


def discover() -> dict[str, AlgorithmPlugin]:
    """Every plugin of the installed packages' :data:`GROUP` entry points, by name."""
    found = {}
    for point in entry_points(group=GROUP):
        try:
            plugin = point.load()
        except Exception as err:  # an import error of another package: name it, one line
            raise PluginError(f"entry point {point.name} = {point.value} of group {GROUP} "
                              f"does not load ({type(err).__name__}: {err}); fix or uninstall "
                              "that package") from None
        if not isinstance(plugin, AlgorithmPlugin):
            raise PluginError(f"entry point {point.name} = {point.value} is a "
                              f"{type(plugin).__name__}, not an AlgorithmPlugin; point it at "
                              "the package's AlgorithmPlugin object")
        found[plugin.name] = plugin
    return found


def load_plugins() -> dict[str, AlgorithmPlugin]:
    """Register every discovered plugin in :data:`ALGORITHMS` (once; a name that a built-in
    algorithm already has is refused). Returns :data:`PLUGINS`."""
    from pubpriv_core.algorithms import ALGORITHMS, Entry

    for name, plugin in discover().items():
        if name in PLUGINS:
            continue
        if name in ALGORITHMS:
            raise PluginError(f"plugin algorithm {name!r} has the name of a built-in one; "
                              "rename it in its package")
        where = (plugin.run.__module__, plugin.run.__name__)
        if getattr(import_module(where[0]), where[1], None) is not plugin.run:
            raise PluginError(f"plugin algorithm {name!r}: its run function must be a function "
                              f"defined at the top level of a module, not {plugin.run!r}")
        ALGORITHMS[name] = Entry(*where, uses_public=plugin.uses_public)
        PLUGINS[name] = plugin
    return PLUGINS
