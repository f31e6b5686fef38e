"""What every config field accepts: one rule per field, checked before any job runs.

Hydra's structured configs check types (and the vocabularies of enum fields); a type says nothing
about ε = inf, T = 0 or a share of −1, so every other field has a rule. The rules are declared
with the fields themselves (:func:`pubpriv_core.options.option`: the datasets, public sources,
workload and budget in :mod:`pubpriv_core.specs`, the algorithms' options in
:mod:`pubpriv_core.algorithms.settings`); here are only the runner's own fields (where and how to
run). :data:`RULES` maps a field path to its rule; a group field is looked up as
``<group>.<option>.<field>``. ``tests/test_runner_rules.py`` walks the config schema and fails
for a field without one.
Checks that need the data (k ≤ d, the biased attribute's values, MWEM's domain size) live in
:mod:`experiments.release.configure.checks`.
"""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any, Iterator

from experiments.outputs import folder_problem
from pubpriv_core.options import Rule, integer, optional, real, rule_of
from pubpriv_core.specs import DATASETS, PUBLIC_SOURCES, BudgetSpec, WorkloadSpec


def _writable(path: Any) -> bool:
    """``path`` is a folder (or can become one) in which a file can be created right now."""
    return isinstance(path, str) and folder_problem(path) is None


def _folder_or_none(path: Any) -> bool:
    """None, or a non-empty path that is not an existing non-folder (it may be created later:
    an ACS download fills an empty data root)."""
    if path is None:
        return True
    if not isinstance(path, str) or not path.strip():
        return False
    try:
        folder = Path(path).expanduser()
        return folder.is_dir() or not folder.exists()
    except OSError:   # a name too long, a loop of links
        return False


WRITABLE = Rule(_writable, "a folder that exists or can be created, and is writable",
                "pass a writable results_dir (check its permissions, free space and mount)")
DATA_ROOT = Rule(_folder_or_none, "null ($PUBPRIV_DATA, else the per-user cache) or a folder",
                 "pass the folder that holds adult/, nist-acs-excerpts/ or acs/ (or set "
                 "PUBPRIV_DATA)")
RUNTIME_RULES: dict[str, Rule] = {
    "n_jobs": Rule(lambda v: isinstance(v, int) and not isinstance(v, bool)
                   and (1 <= v <= 4096 or v == -1), "-1 (all cores) or an integer in [1, 4096]",
                   "pass a worker count"),
    "results_dir": WRITABLE,
    "data_root": DATA_ROOT,
    "cache_gb": real(0.0, 1e4, "pass a memory budget in GB such as 4", open_low=True),
    "release_rows": optional(integer(0, 10 ** 9, "pass the number of synthetic records to draw "
                                                 "from each saved release, e.g. 10000"),
                             "n records for a graphical model, none for a weighted release"),
}


def declared_rules(prefix: str, spec: type) -> dict[str, Rule]:
    """``prefix`` + field -> the rule declared with each field of ``spec``."""
    return {prefix + item.name: rule_of(item) for item in dataclasses.fields(spec)
            if rule_of(item) is not None}


#: every rule of the run config but the algorithms' (read from their options by
#: :func:`rule_for`): the budget's, the workload's, each dataset's and public source's
RULES: dict[str, Rule] = {
    **declared_rules("", BudgetSpec), **RUNTIME_RULES, **declared_rules("workload.", WorkloadSpec),
    **{rule: check for name, spec in DATASETS.items()
       for rule, check in declared_rules(f"dataset.{name}.", spec).items()},
    **{rule: check for kind, spec in PUBLIC_SOURCES.items()
       for rule, check in declared_rules(f"public.{kind}.", spec).items()},
}


def algo_rules() -> dict[str, Rule]:
    """``algo.<name>.<field>`` -> the rule declared with the field of every algorithm's options
    dataclass (:mod:`pubpriv_core.algorithms.settings`; a plugin's own), registered plugins
    included."""
    from pubpriv_core.algorithms import ALGORITHMS, options_of

    out = {}
    for name in list(ALGORITHMS):
        options = options_of(name)
        for item in dataclasses.fields(options) if options is not None else ():
            if rule_of(item) is not None:
                out[f"algo.{name}.{item.name}"] = rule_of(item)
    return out


def rule_for(path: str) -> Rule | None:
    """The rule of field ``path`` (``<group>.<option>.<field>`` falls back to ``<group>.<field>``;
    an algorithm's option is read from its options dataclass)."""
    if path in RULES:
        return RULES[path]
    parts = path.split(".")
    if parts[0] == "algo" and len(parts) == 3:
        return algo_rules().get(path)
    return RULES.get(f"{parts[0]}.{parts[-1]}") if len(parts) == 3 else None


def field_paths(cfg: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(rule path, value) of every field of a resolved run config."""
    for key, value in cfg.items():
        if key in ("dataset", "public", "algo"):
            option = value.get("kind" if key == "public" else "name")
            for field, sub in value.items():
                yield f"{key}.{option}.{field}", sub
        elif key == "workload":
            for field, sub in value.items():
                yield f"workload.{field}", sub
        else:
            yield key, value


def check_fields(cfg: dict[str, Any]) -> str | None:
    """The first rule violation of ``cfg`` as one line (paths as the user writes them), or None."""
    for path, value in field_paths(cfg):
        rule = rule_for(path)
        if rule is not None:
            parts = path.split(".")
            shown = f"{parts[0]}.{parts[-1]}" if len(parts) == 3 else path
            problem = rule.check(shown, value)
            if problem:
                return problem
    return None

