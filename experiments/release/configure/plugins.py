"""The runner's side of algorithm plugins (:mod:`pubpriv_core.algorithms.plugins`).

:func:`install_plugins` puts every installed plugin into the same tables the built-in algorithms
are in, so one path serves both: the schema derived from its options dataclass into the config
schema (:data:`experiments.release.configure.schema.SCHEMAS` and Hydra's config store as
``algo/<name>``, so ``algo=<name>`` composes and ``algo.<option>=`` is type-checked); its
options' rules are read from the same fields by
:func:`~experiments.release.configure.rules.check_fields` before any job runs; whether it uses
the public source is its registry entry's (:func:`pubpriv_core.algorithms.uses_public`). A plugin
option without a rule is refused, as ``tests/test_runner_rules.py`` refuses a built-in one. A
plugin whose entry point does not load is left out (it never stops the built-in algorithms);
asking for it gives its one-line error.
"""
from __future__ import annotations

import dataclasses
import typing

from hydra.core.config_store import ConfigStore

from pubpriv_core.algorithms import register_plugins
from pubpriv_core.algorithms.plugins import PLUGINS, AlgorithmPlugin, PluginError
from pubpriv_core.options import choices_of, rule_of

_INSTALLED: set[str] = set()


def install_plugins() -> list[str]:
    """Install every plugin not installed yet; returns the names of all installed plugins."""
    for name in register_plugins():
        if name not in _INSTALLED:
            try:
                install(PLUGINS[name])
            except PluginError as err:       # left out, as a plugin that does not load
                discard(name, str(err))
                continue
            _INSTALLED.add(name)
    return sorted(_INSTALLED)


def discard(name: str, error: str) -> None:
    """Take plugin ``name`` out of the registry; asking for it gives ``error``."""
    from pubpriv_core.algorithms import ALGORITHMS
    from pubpriv_core.algorithms.plugins import BROKEN

    ALGORITHMS.pop(name, None)
    PLUGINS.pop(name, None)
    BROKEN[name] = error


def install(plugin: AlgorithmPlugin) -> None:
    """Add one plugin's schema (derived from its options dataclass) to the runner's tables."""
    from experiments.release.configure.schema import SCHEMAS, algo_schema

    options = plugin.options
    if options is not None and not dataclasses.is_dataclass(options):
        raise PluginError(f"plugin algorithm {plugin.name!r}: options must be a dataclass whose "
                          "fields are made with pubpriv_core.options.option")
    for item in needs_rule(options) if options is not None else ():
        if rule_of(item) is None:
            raise PluginError(f"plugin algorithm {plugin.name!r}: option {item.name!r} has no "
                              "rule; declare it with pubpriv_core.options.option(default, "
                              "rule, help)")
    schema = algo_schema(plugin.name, options)
    SCHEMAS["algo"][plugin.name] = schema
    store = ConfigStore.instance()
    store.store(group="schema/algo", name=plugin.name, node=schema)
    store.store(group="algo", name=plugin.name, node=schema)


def needs_rule(options: type) -> list[dataclasses.Field]:
    """The fields of an options dataclass whose type does not bound their values (everything
    but booleans and fields with a vocabulary), which therefore need a rule."""
    hints = typing.get_type_hints(options)
    out = []
    for item in dataclasses.fields(options):
        kind = hints[item.name]
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        kind = args[0] if len(args) == 1 else kind
        if kind is bool or choices_of(item) is not None:
            continue
        out.append(item)
    return out


