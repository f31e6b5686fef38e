"""Quantities derived from valid fields, checked for every job before anything is written: ρ from
(ε, δ), δ = 1/n², per-round budgets and JAM-PGM's size limit, through each algorithm module's
``check`` (pubpriv_core.algorithms.check_algorithm), for every algorithm of the registry."""
from __future__ import annotations

import dataclasses
import enum
from importlib import import_module

import numpy as np
import pytest

from experiments.release.configure import cli
from experiments.release.configure.schema import SCHEMAS
from pubpriv_core.problems import config_problem
from pubpriv_core.algorithms import ALGORITHMS, BUILTIN, check_algorithm
from pubpriv_core.harness import run_algorithm
from pubpriv_core.algorithms.budget_checks import check_steps, target_rho

TINY = ["dataset.preset=tiny", "workload.k=2", "workload.size=4", "runs=1", "T=2"]


def _never_called():
    pytest.fail("the Hydra app must not start on bad input")


@pytest.mark.parametrize("argv, words", [
    (["eps=1e-300"], "eps=1e-300 at delta=1.23457e-06 is too small for the conversion to a zCDP"),
    (["eps=1e-17", "delta=1e-9"], "is too small for the conversion"),
    (["algo=mst", "eps=1e-200"], "is too small for the conversion"),
    (["algo=aim", "eps=1e-200"], "is too small for the conversion"),
    (["algo=jam_pgm", "eps=1e-200"], "is too small for the conversion"),
    (["algo=dualquery", "algo.accounting=zcdp", "eps=1e-300"], "is too small for the conversion"),
    (["dataset.n=1"], "delta = 1/n^2 = 1 for the n=1 private row(s) of dataset synthetic"),
    (["dataset.n=2", "public.private_share=0.01"], "delta = 1/n^2 = 1"),
    (["algo=jam_pgm", "algo.rounds=1000000"],
     "leaves no candidate within the first round's limit MAX-SIZE/T"),
    (["algo=jam_pgm", "algo.max_model_size=0.0001", "algo.rounds=100"], "leaves no candidate"),
    (["algo=mwem", "algo.max_domain_size=10"], "MWEM needs a weight per domain element"),
    (["algo=dualquery", "eps=0.01"], "DualQuery fits only 1 round"),
    (["-m", "eps=1,1e-300"], "job 2 of 2 (eps=1e-300): eps=1e-300"),
    (["-m", "algo=pmwpub,jam_pgm", "++algo.rounds=1000000"],
     "job 1 of 2 (algo=pmwpub): unknown key"),
    (["-m", "algo=aim,jam_pgm", "algo.rounds=1000000"],
     "job 2 of 2 (algo=jam_pgm): algo.max_model"),
])
def test_derived_quantities_are_refused_before_anything_is_written(argv, words, tmp_path, capsys):
    out = tmp_path / "out"
    with pytest.raises(SystemExit) as info:
        cli.main(_never_called, [*argv, *TINY, f"results_dir={out}"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith("error: ") and err.count("\n") == 1, err
    assert words in err, err
    assert not out.exists()


def test_every_algorithm_module_defines_check():
    """The one mechanism: a module of the registry (also one added later) defines
    ``check(problem, *, eps, delta, T, **options)`` (or ``check_<name>``) beside its run
    function. An installed plugin is another package's: its optional check is the
    ``AlgorithmPlugin.check`` field, not a module function, so it is not held to this."""
    from pubpriv_core.algorithms.plugins import PLUGINS
    for name, entry in ALGORITHMS.items():
        if name in PLUGINS:
            continue
        module = entry.module
        found = import_module(module)
        check = getattr(found, f"check_{name}", None) or getattr(found, "check", None)
        assert callable(check), f"{module} has no check(); the pre-check cannot vet {name}"


def _defaults(name: str) -> dict:
    out = {}
    for field in dataclasses.fields(SCHEMAS["algo"][name]):
        if field.name != "name":
            value = field.default
            out[field.name] = value.value if isinstance(value, enum.Enum) else value
    return out


@pytest.fixture(scope="module")
def problem():
    return config_problem(cli.compose_config([*TINY, "results_dir=/tmp"]), run=0)


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_check_passes_valid_inputs_and_refuses_a_vanishing_budget(name, problem):
    """Each algorithm's check accepts its defaults and refuses (in one line) an ε that leaves no
    budget — unless the algorithm spends no privacy at all (then its run must charge ρ = 0)."""
    options = _defaults(name)
    check_algorithm(name, problem, eps=1.0, delta=1e-6, T=2, **options)
    try:
        check_algorithm(name, problem, eps=1e-300, delta=1e-6, T=2, **options)
    except ValueError as err:
        assert "eps=1e-300" in str(err) and "\n" not in str(err)
    else:
        release = run_algorithm(name, problem, eps=1e-300, delta=1e-6, T=2,
                                rng=np.random.default_rng(0), **options)
        assert release.rho == 0, f"{name} spends privacy but its check accepts eps=1e-300"


def test_check_refuses_what_the_run_refuses(problem):
    """Options the runs refuse are refused by the checks, with the same message."""
    bad = [("pmwpub", {"init": "best"}, "unknown init"),
           ("pmwpub", {"quality_check_eps": 5.0}, "budget rho left for the rounds"),
           ("mwem", {"selection": "max"}, "unknown selection"),
           ("aim", {"rounds": 1}, "is below the"),
           ("jam_pgm", {"alpha": 1.0}, "algo.alpha must lie in (0, 1)"),
           ("best_mixture", {"method": "simplex"}, "unknown best_mixture method"),
           ("dualquery", {"max_T": 1}, "max_T must be >= 2")]
    for name, options, words in bad:
        with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
            check_algorithm(name, problem, eps=1.0, delta=1e-6, T=2,
                            **{**_defaults(name), **options})
    with pytest.raises(ValueError, match="unknown algorithm"):
        check_algorithm("nope", problem, eps=1.0, delta=1e-6, T=2)


def test_budget_helpers():
    assert target_rho(1.0, 1e-6) == pytest.approx(0.02436, rel=1e-3)
    with pytest.raises(ValueError, match="delta=1 must lie in"):
        target_rho(1.0, 1.0)
    check_steps("x", sigma=1e300, charge=1e-300)
    for bad in (0.0, 1e-320, float("inf"), float("nan"), -1.0):
        with pytest.raises(ValueError, match="the per-step charge is"):
            check_steps("T=9 rounds", charge=bad)
