"""Hydra's own routine for applying value overrides (``eps=0.5``, ``+key=v``, ``~key``) to an
already composed config.

Hydra has no public API for this step: ``compose`` always rebuilds the config from the defaults
list (~0.3 s), which is too slow for checking every job of a large sweep. The sweep composer
(:class:`experiments.release.configure.cli.SweepComposer`) composes each distinct set of config-group
choices once and applies the remaining value overrides here, so the result is exactly what Hydra
would compose. This is the project's only use of ``hydra._internal``; if a Hydra release moves
the routine, only this module changes.
"""
from __future__ import annotations

from typing import Sequence

from hydra._internal.config_loader_impl import ConfigLoaderImpl
from hydra.core.override_parser.types import Override
from omegaconf import DictConfig


def apply_value_overrides(overrides: Sequence[Override], cfg: DictConfig) -> None:
    """Apply parsed value overrides to ``cfg`` in place, as Hydra's config loader does."""
    ConfigLoaderImpl._apply_overrides_to_config(list(overrides), cfg)
