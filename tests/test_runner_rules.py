"""Every field of the config schema has a value check (experiments/rules.py).

The walk below visits every field of every schema — the top level, the workload and every option
of every config group — and tries out-of-range values of the field's type on a config that is
otherwise valid. A field without a check (for example one added to a new algorithm's schema
without a rule) lets every bad value through and fails its test. Booleans and enum fields are
checked by Hydra's type system and are skipped, as are the group discriminators name/kind.
"""
from __future__ import annotations

import copy
import enum
import math
import typing
from dataclasses import fields
from functools import lru_cache

import pytest

from experiments.release import cli
from experiments.release.checks import ConfigError, check_scalars
from experiments.release.config import SCHEMAS, RunConf, WorkloadConf, register_configs

BAD = {float: [math.nan, math.inf, -math.inf, -1.0, 0.0, -1e300, 1e300],
       int: [-(2 ** 63), -1, 0, 10 ** 15, 2 ** 70],
       str: ["", "   ", "no-such-value", "/proc/no/such"]}
GROUPS = ("dataset", "public", "algo")


def _base_type(hint):
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    return args[0] if typing.get_origin(hint) is typing.Union and len(args) == 1 else hint


def _typed(schema) -> list[tuple[str, type]]:
    hints = typing.get_type_hints(schema)
    return [(f.name, _base_type(hints[f.name])) for f in fields(schema)]


def schema_fields() -> list[tuple[str | None, str | None, str, type]]:
    """(group, option, field, type) of every checkable field: no bool, enum, node or name/kind."""
    register_configs()   # installed algorithm plugins join SCHEMAS (examples/ in CI)
    out = [(None, None, name, kind) for name, kind in _typed(RunConf) if name not in GROUPS
           and name != "workload"]
    out += [("workload", None, name, kind) for name, kind in _typed(WorkloadConf)]
    for group, options in SCHEMAS.items():
        for option, schema in options.items():
            out += [(group, option, name, kind) for name, kind in _typed(schema)
                    if name not in ("name", "kind")]
    return [f for f in out if not (f[3] is bool or
                                   (isinstance(f[3], type) and issubclass(f[3], enum.Enum)))]


@lru_cache(maxsize=None)
def base_config(group: str | None, option: str | None) -> dict:
    overrides = [f"{group}={option}"] if option else []
    cfg = cli.compose_config(overrides)
    cfg["results_dir"] = "/tmp"
    return cfg


def _set(cfg: dict, group, name: str, value) -> None:
    (cfg[group] if group else cfg)[name] = value


@pytest.mark.parametrize("group, option, name, kind", schema_fields(),
                         ids=lambda v: getattr(v, "__name__", str(v)))
def test_every_field_refuses_out_of_range_values(group, option, name, kind):
    assert kind in BAD, f"no bad values known for type {kind} of {group}.{name}"
    base = base_config(group, option)
    check_scalars(base)                 # the defaults pass
    shown = f"{group}.{name}" if group else name
    refused = []
    for value in BAD[kind]:
        cfg = copy.deepcopy(base)
        _set(cfg, group, name, value)
        try:
            check_scalars(cfg)
        except ConfigError as err:
            assert str(err).startswith(f"{shown} must be"), str(err)
            assert "\n" not in str(err)
            refused.append(value)
    assert refused, f"{shown} accepts every one of {BAD[kind]}; add a rule in experiments/rules.py"
    if kind is float:
        assert {str(v) for v in refused} >= {"nan", "inf", "-inf"}, f"{shown} accepts non-finite"


def test_walk_covers_every_schema():
    paths = {(g, o) for g, o, _, _ in schema_fields()}
    assert ("algo", "dualquery") in paths and (None, None) in paths and ("workload", None) in paths
    assert len(schema_fields()) >= 40


@pytest.mark.parametrize("where", ["file", "proc"])
def test_unwritable_results_dir_is_refused_before_anything_runs(where, tmp_path, capsys):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    target = blocker / "out" if where == "file" else "/proc/pubpriv-out"
    with pytest.raises(SystemExit) as info:
        cli.main(lambda: pytest.fail("must not start"), ["runs=1", f"results_dir={target}"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith("error: results_dir must be a folder that")
    assert err.count("\n") == 1
