"""Checks of a theory experiment's config before any work: the preset is the schema.

A theory preset (``conf/experiment/theory_<paper>.yaml``) is plain YAML, without a structured
schema, so the runner checks the config after the command line's overrides against the preset
as written: every key of the preset is still there and no other one; a value keeps the kind of
the preset's (a number stays a finite number — an integer stays an integer —, a string a string,
a boolean a boolean, a list a list of the same kind of items, null stays null or becomes a
number); a number whose preset values are non-negative stays non-negative (``n_jobs`` may also
be -1, all cores); the budgets and counts named below stay positive, the probabilities below 1.
``name`` (the registered experiment) stays the preset's. The output folder ``out`` must be
writable. Every failure is a one-line ValueError naming the key.
"""
from __future__ import annotations

import math
import re
from typing import Any

from experiments.outputs import folder_problem

#: leaf names whose numbers must be > 0 (a zero budget, count or tolerance means nothing).
POSITIVE = re.compile(r"^(eps(_\w+)?|delta|rho|alphas?|beta|trials|repeats(_\w+)?|draws|"
                      r"(\w+_)?samples|T|confidence|rel_tol)$")
#: leaf names that are probabilities: < 1.
BELOW_ONE = frozenset({"delta", "beta", "confidence"})


def check_against_preset(cfg: Any, preset: Any, path: str = "experiment") -> None:
    """Refuse (ValueError) the first value of ``cfg`` that does not fit ``preset`` (plain
    containers of the composed config and of the preset alone)."""
    if isinstance(preset, dict):
        if not isinstance(cfg, dict):
            raise ValueError(f"{path} must be a mapping like the preset's, got {cfg!r}")
        for key in sorted(set(cfg) - set(preset)):
            raise ValueError(f"unknown key {path}.{key}; the preset's keys are "
                             f"{', '.join(map(str, preset))}")
        for key in sorted(set(preset) - set(cfg)):
            raise ValueError(f"missing key {path}.{key}; do not delete it")
        if path == "experiment" and cfg.get("name") != preset.get("name"):
            raise ValueError(f"experiment.name={cfg.get('name')} differs from the preset's "
                             f"{preset.get('name')}; pass that experiment's own preset instead")
        for key in preset:
            check_against_preset(cfg[key], preset[key], f"{path}.{key}")
        return
    name = path.rsplit(".", 1)[-1]
    if isinstance(preset, list):
        if not isinstance(cfg, list):
            raise ValueError(f"{path} must be a list like the preset's {preset}, got {cfg!r}")
        for item in cfg:
            if preset:
                _check_leaf(item, preset, path, name)
        return
    _check_leaf(cfg, [preset], path, name)


def _check_leaf(value: Any, examples: list, path: str, name: str) -> None:
    """``value`` against the preset's value(s) ``examples`` of the leaf ``path``."""
    example = examples[0]
    if isinstance(example, (dict, list)):
        check_against_preset(value, example, path)
        return
    numbers = [e for e in examples if _is_number(e)]
    if example is None:
        if value is not None and not _is_number(value):
            raise ValueError(f"{path} must be null or a number, got {value!r}")
    elif numbers:
        _check_number(value, numbers, path, name)
    elif type(value) is not type(example):
        kind = {bool: "true or false", str: "a string"}.get(type(example), type(example).__name__)
        raise ValueError(f"{path} must be {kind} like the preset's {example!r}, got {value!r}")


def _check_number(value: Any, examples: list, path: str, name: str) -> None:
    integer = all(isinstance(e, int) for e in examples)
    kind = "an integer" if integer else "a finite number"
    if not _is_number(value) or (integer and not isinstance(value, int)) \
            or not math.isfinite(value):
        raise ValueError(f"{path} must be {kind} like the preset's {examples[0]!r}, got "
                         f"{value!r}")
    if name.startswith("n_jobs"):
        if value == 0 or value < -1:
            raise ValueError(f"{path} must be -1 (all cores) or a positive integer, got {value}")
    elif POSITIVE.match(name) and value <= 0:
        raise ValueError(f"{path} must be > 0, got {value}; the preset has {examples[0]!r}")
    elif min(examples) >= 0 and value < 0:
        raise ValueError(f"{path} must be >= 0, got {value}; the preset has {examples[0]!r}")
    if name in BELOW_ONE and value >= 1:
        raise ValueError(f"{path} must be below 1, got {value}; the preset has {examples[0]!r}")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_output(out: Any) -> None:
    """The experiment's output folder can be created and written."""
    problem = folder_problem(out) if isinstance(out, str) else "is not a path"
    if problem:
        raise ValueError(f"experiment.out={out} {problem}; pass a writable folder")
