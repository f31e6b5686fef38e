"""Hydra's config store filled once per process: the schemas of every group option
(:mod:`experiments.release.configure.schema`) and the installed algorithm plugins
(:mod:`experiments.release.configure.plugins`)."""
from __future__ import annotations

from experiments.release.configure.plugins import install_plugins
from experiments.release.configure.schema import register_schemas


def register_configs() -> None:
    """Store the schemas as ``schema/run`` and ``schema/<group>/<option>`` (the YAML files
    extend them) and every installed plugin as ``algo/<name>``."""
    register_schemas()
    install_plugins()
