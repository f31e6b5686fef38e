"""The runner's side of algorithm plugins (:mod:`pubpriv_core.algorithms.plugins`).

:func:`install_plugins` puts every installed plugin into the same tables the built-in algorithms
are in, so one path serves both: its options dataclass into the config schema
(:data:`experiments.release.configure.schema.SCHEMAS` and Hydra's config store as ``algo/<name>``, so
``algo=<name>`` composes and ``algo.<option>=`` is type-checked), its rules into
:data:`experiments.release.configure.rules.RULES` (checked by :func:`~experiments.release.configure.rules.check_fields`
before any job runs); whether it uses the public source is its registry entry's
(:func:`pubpriv_core.algorithms.uses_public`). A plugin option without a rule is refused, as
``tests/test_runner_rules.py`` refuses a built-in one.
"""
from __future__ import annotations

import enum
import typing
from dataclasses import fields

from hydra.core.config_store import ConfigStore

from pubpriv_core.algorithms.plugins import AlgorithmPlugin, PluginError, load_plugins

_INSTALLED: set[str] = set()


def install_plugins() -> list[str]:
    """Install every plugin not installed yet; returns the names of all installed plugins."""
    for name, plugin in load_plugins().items():
        if name not in _INSTALLED:
            install(plugin)
            _INSTALLED.add(name)
    return sorted(_INSTALLED)


def install(plugin: AlgorithmPlugin) -> None:
    """Add one plugin's schema and rules to the runner's tables."""
    from experiments.release.configure.schema import AlgoConf, SCHEMAS
    from experiments.release.configure.rules import RULES

    options = plugin.options or _bare_schema(plugin.name)
    if not (isinstance(options, type) and issubclass(options, AlgoConf)):
        raise PluginError(f"plugin algorithm {plugin.name!r}: options must be a dataclass "
                          "extending experiments.release.configure.schema.AlgoConf")
    if options().name != plugin.name:
        raise PluginError(f"plugin algorithm {plugin.name!r}: its options' name field must "
                          f"default to {plugin.name!r}")
    for option in needs_rule(options):
        if option not in plugin.rules:
            raise PluginError(f"plugin algorithm {plugin.name!r}: option {option!r} has no "
                              "rule; add one to the plugin's rules (experiments.release.configure.rules)")
    SCHEMAS["algo"][plugin.name] = options
    RULES.update({f"algo.{plugin.name}.{option}": rule for option, rule in plugin.rules.items()})
    store = ConfigStore.instance()
    store.store(group="schema/algo", name=plugin.name, node=options)
    store.store(group="algo", name=plugin.name, node=options)


def needs_rule(schema: type) -> list[str]:
    """The options of ``schema`` whose type does not bound their values (everything but the
    name, booleans and enums), which therefore need a rule."""
    hints = typing.get_type_hints(schema)
    out = []
    for item in fields(schema):
        kind = hints[item.name]
        args = [a for a in typing.get_args(kind) if a is not type(None)]
        kind = args[0] if len(args) == 1 else kind
        if item.name == "name" or kind is bool or (isinstance(kind, type)
                                                   and issubclass(kind, enum.Enum)):
            continue
        out.append(item.name)
    return out


def _bare_schema(name: str) -> type:
    """An options dataclass with only ``name``, for a plugin without options."""
    from dataclasses import make_dataclass

    from experiments.release.configure.schema import AlgoConf

    return make_dataclass(f"{name.title().replace('_', '')}Conf", [("name", str, name)],
                          bases=(AlgoConf,))
