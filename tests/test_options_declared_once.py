"""Every algorithm's options are declared once, in :mod:`pubpriv_core.algorithms.settings`: the
runner's Hydra schema, its value rules, the Python API's defaults and the configuration reference
are derived from the same fields, so ``run.py`` and ``pubpriv_core.api`` cannot run an algorithm
with other defaults than its own."""
from __future__ import annotations

import dataclasses

import pytest

from experiments.release.configure import rules
from experiments.release.configure.cli import compose_config
from experiments.release.configure.reference import reference_markdown
from pubpriv_core import api
from pubpriv_core.algorithms import ALGORITHMS, options_of
from pubpriv_core.options import defaults, help_of, rule_of

BUILTIN = sorted(ALGORITHMS)


@pytest.mark.parametrize("name", BUILTIN)
def test_the_composed_config_is_the_options_defaults(name):
    composed = compose_config([f"algo={name}"])["algo"]
    assert composed.pop("name") == name
    assert composed == defaults(options_of(name))


@pytest.mark.parametrize("name", BUILTIN)
def test_the_api_defaults_are_the_options_defaults(name):
    assert api.defaults("algo", name) == defaults(options_of(name))


@pytest.mark.parametrize("name", BUILTIN)
def test_every_option_has_a_meaning_and_its_rule_is_the_runners(name):
    options = options_of(name)
    for item in dataclasses.fields(options):
        assert help_of(item), f"algo.{name}.{item.name} has no help text"
        assert rules.rule_for(f"algo.{name}.{item.name}") is rule_of(item)


def test_the_algorithm_yaml_files_set_no_values():
    """conf/algo/*.yaml only select the schema: a value there would be a second default."""
    from pathlib import Path

    from omegaconf import OmegaConf
    for path in sorted(Path(__file__).resolve().parents[1].glob("conf/algo/*.yaml")):
        node = OmegaConf.to_container(OmegaConf.load(path))
        assert set(node) == {"defaults"}, path.name


def test_the_reference_shows_each_options_meaning():
    text = reference_markdown()
    settings = options_of("gem_pub")
    for item in dataclasses.fields(settings):
        assert help_of(item).split(" (")[0][:40] in text.replace("\\|", "|")
