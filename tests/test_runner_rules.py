"""Every field of the config schema has a value check (experiments/rules.py), every config
group refuses an option it does not have, and a sweep over several algorithms names the job
whose algorithm lacks an option.

The field walk visits every field of every schema — the top level, the workload and every option
of every config group — and tries out-of-range values of the field's type on a config that is
otherwise valid. A field without a check (for example one added to a new algorithm's schema
without a rule) lets every bad value through and fails its test. Booleans and enum fields are
checked by Hydra's type system and are skipped, as are the group discriminators name/kind.
The group walk visits every config group Hydra knows (a bogus option is refused, also in an
``optional`` group) and composes every option of the project's groups; the pair walk runs
``-m algo=a,b algo.<option>=...`` for every pair of algorithms where the option is a's only.
"""
from __future__ import annotations

import copy
import dataclasses
import enum
import math
import typing
from dataclasses import fields
from functools import lru_cache

import pytest
from hydra.core.object_type import ObjectType

from experiments.console import UserError
from experiments.release.configure import cli
from experiments.release.configure.checks import ConfigError, check_keys, check_scalars
from experiments.release.configure.registry import register_configs
from experiments.release.configure.schema import SCHEMAS, RunConf, WorkloadConf

BAD = {float: [math.nan, math.inf, -math.inf, -1.0, 0.0, -1e300, 1e300],
       int: [-(2 ** 63), -1, 0, 10 ** 15, 2 ** 70],
       str: ["", "   ", "no-such-value", "/proc/no/such"],
       dict: [{"age": 3}, {"": {}}, {"age": [0, 1]}]}
GROUPS = ("dataset", "public", "algo")
#: what an option needs beside the other groups' defaults (a user's CSV is private whole, so
#: the default public=resample, which draws public rows from it, is refused)
COMPANIONS = {("dataset", "csv"): ["public=none"]}


def _base_type(hint):
    args = [a for a in typing.get_args(hint) if a is not type(None)]
    base = args[0] if typing.get_origin(hint) is typing.Union and len(args) == 1 else hint
    return typing.get_origin(base) or base


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
    overrides = [f"{group}={option}", *COMPANIONS.get((group, option), [])] if option else []
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


# ----------------------------------------------------------------------------- config groups
def _walk_groups(repo, parent: str = "") -> list[str]:
    found = []
    for name in repo.get_group_options(parent, results_filter=ObjectType.GROUP):
        group = f"{parent}/{name}" if parent else name
        if group != "schema":                       # the structured schemas, not choices
            found += [group, *_walk_groups(repo, group)]
    return found


@pytest.fixture
def composer():
    """A sweep composer inside the runner's Hydra context (composed bases are cached per
    process, so a new context per test is cheap)."""
    from hydra import initialize_config_dir

    cli.register_configs()
    with initialize_config_dir(config_dir=str(cli.CONF_DIR), version_base="1.3"):
        yield cli.SweepComposer()


def test_every_config_group_refuses_a_value_it_does_not_have(composer):
    """Every group Hydra knows — the project's, an ``optional`` one (experiment) and Hydra's
    own (hydra/launcher, hydra/sweeper, ...) — refuses a bogus option in one line naming the
    group and its options, instead of composing without it."""
    groups = _walk_groups(composer._repo)
    assert {"algo", "dataset", "public", "workload", "experiment", "hydra/launcher"} <= set(groups)
    for group in groups:
        for bogus in ("no_such_option", ""):
            with pytest.raises(UserError) as info:
                composer.compose([f"{group}={bogus}", "results_dir=/tmp"])
            text = str(info.value)
            assert text.startswith(f"{group}={bogus} names no option of config group {group}; "
                                   "choose one of: "), text
            assert "\n" not in text


def _project_options() -> list[tuple[str, str]]:
    """(group, option) of every YAML under conf/ that the runner composes (theory presets go to
    the theory runner: see test_theory_preset_walk)."""
    out = []
    for path in sorted(cli.CONF_DIR.rglob("*.yaml")):
        group = path.parent.relative_to(cli.CONF_DIR).as_posix()
        if group != "." and not path.stem.startswith("theory_"):
            out.append((group, path.stem))
    return out


@pytest.mark.parametrize("group, option", _project_options(), ids=lambda v: str(v))
def test_every_group_option_composes_to_a_checked_config(composer, group, option):
    cfg = composer.compose([f"{group}={option}", *COMPANIONS.get((group, option), []),
                            "results_dir=/tmp"])
    check_keys(cfg)
    check_scalars(cfg)


# ----------------------------------------------------------------------------- algorithm pairs
def _option_value(schema, name: str) -> str:
    field = next(f for f in fields(schema) if f.name == name)
    value = field.default if field.default is not dataclasses.MISSING else field.default_factory()
    value = value.value if isinstance(value, enum.Enum) else value
    if value is None:
        return "null"
    return str(value).lower() if isinstance(value, bool) else str(value)


def algorithm_pairs() -> list[tuple[str, str, str]]:
    """(a, b, option) for every ordered pair of algorithms where ``option`` is a field of a's
    schema and not of b's (new algorithms join through SCHEMAS)."""
    algos = SCHEMAS["algo"]
    names = {a: {f.name for f in fields(s)} - {"name"} for a, s in algos.items()}
    return [(a, b, sorted(names[a] - names[b])[0]) for a in algos for b in algos
            if a != b and names[a] - names[b]]


TINY = ["dataset.preset=tiny", "workload.k=2", "workload.size=4", "T=2"]


@pytest.mark.parametrize("a, b, option", algorithm_pairs(), ids=lambda v: str(v))
def test_sweep_option_of_one_algorithm_names_the_job_of_the_other(a, b, option, tmp_path):
    """``-m algo=a,b algo.<option>=<a's default>``: job 1 (algo=a) is valid, job 2 is refused
    in one line naming it, before anything is written."""
    value = _option_value(SCHEMAS["algo"][a], option)
    argv = ["-m", f"algo={a},{b}", f"algo.{option}={value}", *TINY,
            f"results_dir={tmp_path / 'out'}"]
    with pytest.raises(UserError) as info:
        cli.check_jobs(argv)
    text = str(info.value)
    assert text.startswith(f"job 2 of 2 (algo={b}): ") and f"algo.{option}" in text, text
    assert "\n" not in text and not (tmp_path / "out").exists()


def test_algorithm_pairs_cover_every_algorithm():
    pairs = algorithm_pairs()
    assert {b for _, b, _ in pairs} == set(SCHEMAS["algo"])
    assert {a for a, _, _ in pairs} >= set(SCHEMAS["algo"]) - {"public_only"}


def test_option_missing_from_the_default_algorithm_names_it(tmp_path, capsys):
    """Hydra composes a sweep first with the default algorithm in place of the swept ones: an
    option every swept algorithm has but the default lacks is one line naming the default and
    the ``++`` fix (not Hydra's traceback after the pre-check)."""
    argv = ["-m", "algo=mst,aim", "algo.final_iters=200", *TINY, f"results_dir={tmp_path / 'o'}"]
    with pytest.raises(SystemExit) as info:
        cli.main(lambda: pytest.fail("must not start"), argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1, err
    assert err.startswith("error: algo.final_iters=200: in a sweep Hydra first composes one "
                          "config with the default algo=pmwpub in place of the swept "
                          "algo=mst,aim") and "write ++algo.final_iters=200" in err
    assert not (tmp_path / "o").exists()
