"""Private data behind the handle: an algorithm (built-in or plugin) gets the public problem and a
:class:`~pubpriv_core.privacy.private_data.PrivateData`; every mechanism charges the harness's
ledger before it draws; the recorded spend is the ledger's; the raw data is reachable only through
the escape hatch, which the record and the figure legend show. The plugin attacks of an
adversarial review — exact answers reported as ρ = 0, noise below what is charged, a release that
states its own privacy — are refused or marked, through the harness, the API and ``run.py``."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from pubpriv_core import algorithms
from pubpriv_core.algorithms.base import PublicProblem, Release
from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.harness import (PrivacyAccountingError, ReleaseFailure, ReleaseProblem,
                                  run_algorithm)
from pubpriv_core.privacy import BudgetExceededError, gaussian_zcdp, pure_dp_zcdp, rho_from_eps
from pubpriv_core.privacy.ledger import Ledger
from pubpriv_core.privacy.private_data import ADD_REMOVE, CliqueScore, PrivateData
from pubpriv_core.queries import MarginalWorkload
from plugin_helpers import REPO

DELTA = 1e-6


@pytest.fixture(scope="module")
def problem() -> ReleaseProblem:
    domain = Domain(list("abc"), [2, 3, 2])
    rng = np.random.default_rng(0)
    private = Dataset(rng.integers(0, domain.shape, size=(500, 3)), domain)
    public = rng.integers(0, domain.shape, size=(80, 3))
    support, counts = np.unique(public, axis=0, return_counts=True)
    return ReleaseProblem(private, MarginalWorkload.random(domain, 2, None, 0), support,
                          counts / counts.sum(), len(public))


def handle(problem, eps=1.0, seed=0, **ledger):
    ledger = Ledger(eps, DELTA, **ledger)
    return PrivateData(problem, ledger, np.random.default_rng(seed)), ledger


# ------------------------------------------------------------------ what an algorithm sees
def test_the_public_problem_holds_nothing_private(problem):
    public = problem.public
    assert isinstance(public, PublicProblem)
    assert {f.name for f in dataclasses.fields(public)} == {
        "workload", "n", "public_support", "public_weights", "public_rows"}
    held = [v for v in vars(public).values() if isinstance(v, (np.ndarray, Dataset))]
    assert not any(v is problem.private or v is problem.private.records for v in held)


def test_the_handle_holds_the_data_only_privately(problem):
    private, _ = handle(problem)
    public = [name for name in vars(private) if not name.startswith("_")]
    assert public == ["budget"]
    assert not hasattr(private.budget, "charge")


def test_every_algorithm_receives_the_public_problem_and_the_handle(problem, monkeypatch):
    seen = {}

    def spy(public, private, **kwargs):
        seen.update(public=public, private=private, kwargs=kwargs)
        return Release("spy", weights=None, answers=np.zeros(problem.workload.num_queries))

    _register(monkeypatch, "spy", spy)
    run_algorithm("spy", problem, eps=1.0, delta=DELTA, T=3, rng=np.random.default_rng(0))
    assert seen["public"] is problem.public and isinstance(seen["private"], PrivateData)
    assert set(seen["kwargs"]) == {"T", "rng"}


# ------------------------------------------------------------------ charges come first
@pytest.mark.parametrize("call", [
    lambda p: p.gaussian_query(0, 1e-9), lambda p: p.laplace_query(0, 1e3),
    lambda p: p.gaussian_marginal(0, 1e-9), lambda p: p.gaussian_clique(("a",), 1e-9, "a"),
    lambda p: p.best_mixture_error(1e3),
    lambda p: p.select_marginal(np.zeros(p._source.workload.num_queries),
                                np.zeros(p._source.workload.num_marginals, bool), 1e3),
    lambda p: p.select_clique([CliqueScore(("a",), ((1.0, np.zeros(2)),))], 1e3, "x"),
    lambda p: p.dual_queries(np.zeros(p._source.workload.num_queries, np.int64), 5, 1e6, 3)])
def test_a_call_past_the_budget_draws_nothing(problem, call):
    private, ledger = handle(problem, eps=0.1)
    before = private._rng.bit_generator.state
    with pytest.raises(BudgetExceededError):
        call(private)
    assert ledger.charges == [] and private._rng.bit_generator.state == before


def test_each_mechanism_charges_its_stated_cost(problem):
    private, ledger = handle(problem, eps=50.0)
    n = problem.n
    private.gaussian_query(3, 0.01)
    private.laplace_query(3, 0.2)
    private.gaussian_marginal(1, 0.02)
    private.gaussian_clique(("a", "b"), 2.0, "ab")
    private.select_clique([CliqueScore(("a",), ((1.0, np.zeros(2)),), weight=3.0),
                           CliqueScore(("b",), ((1.0, np.zeros(3)),))], 0.4, "r")
    private.best_mixture_error(0.05)
    expected = [("measure", gaussian_zcdp(0.01, 1 / n)), ("measure", pure_dp_zcdp(0.2)),
                ("measure", gaussian_zcdp(0.02, np.sqrt(2) / n)),
                ("measure ab", gaussian_zcdp(2.0, np.sqrt(2))), ("select r", 0.4 ** 2 / 8),
                ("quality_check", pure_dp_zcdp(0.05))]
    assert ledger.charges == [(label, pytest.approx(rho, rel=1e-15)) for label, rho in expected]


def test_clique_scores_state_their_sensitivity_or_more(problem):
    private, _ = handle(problem, eps=50.0)
    scored = [CliqueScore(("a",), ((1.0, np.zeros(2)), (-1.0, np.ones(2)))),
              CliqueScore(("b",), ((1.0, np.zeros(3)),), weight=5.0)]
    with pytest.raises(ValueError, match="below the scores' sensitivity 10.0"):
        private.select_clique(scored, 1.0, "r", sensitivity=9.99)
    private.select_clique(scored, 1.0, "r", sensitivity=12.0)


def test_query_mechanisms_need_replace_one_neighbours(problem):
    private, _ = handle(problem, eps=50.0, relation="add_remove")
    assert private.relation is ADD_REMOVE
    with pytest.raises(ValueError, match="replace-one neighbours"):
        private.gaussian_query(0, 1.0)
    private.gaussian_clique(("a",), 1.0, "a")          # counts: the relation's own sensitivity


# ------------------------------------------------------------------ the recorded spend
def test_the_release_carries_the_ledger_not_the_algorithm(problem):
    release = run_algorithm("pmwpub", problem, eps=1.0, delta=DELTA, T=5,
                            rng=np.random.default_rng(1))
    assert release.privacy.rho == pytest.approx(rho_from_eps(1.0, DELTA), rel=1e-9)
    assert (release.rho, release.eps, release.delta) == (
        release.privacy.rho, release.privacy.eps, release.privacy.delta)
    assert [label for label, _ in release.privacy.charges] == ["select", "measure"] * 5


def test_a_release_that_states_its_own_privacy_is_refused(problem, monkeypatch):
    def liar(public, private, **kwargs):
        out = Release("liar", weights=None, answers=np.zeros(public.workload.num_queries))
        out.privacy = Ledger(1.0, DELTA).report()
        return out

    _register(monkeypatch, "liar", liar)
    with pytest.raises(ReleaseFailure, match="leave Release.privacy to the harness"):
        run_algorithm("liar", problem, eps=1.0, delta=DELTA, T=1, rng=np.random.default_rng(0))


@pytest.mark.parametrize("returned, words", [
    (lambda q: None, "returned NoneType, not a Release"),
    (lambda q: Release("x", weights=None, answers=np.zeros(3)), "answers of shape (3,)"),
    (lambda q: Release("x", weights=None, answers=np.full(q, np.nan)), "non-finite answers")])
def test_a_release_that_is_not_one_is_a_one_line_failure(problem, monkeypatch, returned, words):
    _register(monkeypatch, "broken",
              lambda public, private, **kwargs: returned(public.workload.num_queries))
    with pytest.raises(ReleaseFailure) as info:
        run_algorithm("broken", problem, eps=1.0, delta=DELTA, T=1, rng=np.random.default_rng(0))
    assert words in str(info.value) and "\n" not in str(info.value)


def exact_answers(public, private, *, T, rng):
    """The first attack: the exact private answers, ρ = 0 claimed by spending nothing."""
    raw = private.unverified("returns the exact answers")
    return Release("exact", weights=None, answers=raw.true_answers)


def undernoised(public, private, *, T, rng):
    """The second attack: every marginal at a hundredth of the noise its share pays for."""
    sigma = np.sqrt(2) / public.n / np.sqrt(2 * private.budget.rho_total
                                            / public.workload.num_marginals) / 100
    answers = np.concatenate([private.gaussian_marginal(w, sigma)
                              for w in range(public.workload.num_marginals)])
    return Release("undernoised", weights=None, answers=answers)


def test_exact_answers_are_marked_not_verified(problem, monkeypatch):
    _register(monkeypatch, "exact", exact_answers)
    release = run_algorithm("exact", problem, eps=1.0, delta=DELTA, T=1,
                            rng=np.random.default_rng(0))
    assert release.errors(problem.true_answers)["max_error"] == 0.0 and release.rho == 0.0
    assert release.privacy.privacy == "not verified"


def test_noise_below_its_charge_cannot_be_had(problem, monkeypatch):
    _register(monkeypatch, "undernoised", undernoised)
    with pytest.raises(PrivacyAccountingError, match="asked for more than its budget"):
        run_algorithm("undernoised", problem, eps=1.0, delta=DELTA, T=1,
                      rng=np.random.default_rng(0))


def _register(monkeypatch, name, function):
    module = type(sys)("attack_plugin_" + name)
    module.run = function
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(algorithms.ALGORITHMS, name, algorithms.Entry(module.__name__, "run"))


# ------------------------------------------------------------------ through run.py
ATTACKS = textwrap.dedent('''
    """Attack plugins for the tests: exact answers, too little noise."""
    import numpy as np
    from pubpriv_core.algorithms.base import Release
    from pubpriv_core.algorithms.plugins import AlgorithmPlugin


    def run_exact(public, private, *, T, rng):
        raw = private.unverified("returns the exact answers")
        return Release("exact", weights=None, answers=raw.true_answers)


    def run_undernoised(public, private, *, T, rng):
        sigma = 1e-6 / public.n
        answers = np.concatenate([private.gaussian_marginal(w, sigma)
                                  for w in range(public.workload.num_marginals)])
        return Release("undernoised", weights=None, answers=answers)


    EXACT = AlgorithmPlugin(name="exact", run=run_exact, label="exact")
    UNDERNOISED = AlgorithmPlugin(name="undernoised", run=run_undernoised)
''')


@pytest.fixture(scope="module")
def attack_env(tmp_path_factory):
    import os

    from pubpriv_core.algorithms.plugins import GROUP
    site = tmp_path_factory.mktemp("attack_site")
    (site / "attack_plugins.py").write_text(ATTACKS)
    dist = site / "attack_plugins-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: attack-plugins\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[{GROUP}]\nexact = attack_plugins:EXACT\n"
                                           "undernoised = attack_plugins:UNDERNOISED\n")
    env = dict(os.environ, CI="1", MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(REPO), env.get("PYTHONPATH", "")])
    env.pop("HYDRA_FULL_ERROR", None)
    return env


TINY = ("dataset.preset=tiny", "workload.size=null")


def _run_py(env, *args):
    return subprocess.run([sys.executable, "run.py", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.slow
def test_run_py_records_and_draws_the_exact_plugin_as_not_verified(attack_env, tmp_path):
    out = tmp_path / "runs"
    done = _run_py(attack_env, "algo=exact", "runs=1", *TINY, f"results_dir={out}")
    assert done.returncode == 0, done.stderr
    (record,) = [json.loads(p.read_text()) for p in out.glob("records/*/*.json")]
    assert record["privacy"] == "not verified" and record["rho"] == 0.0
    assert record["max_error"] == 0.0
    from experiments.release.figures.error_plot import plot
    from experiments.release.running.collect import collect
    figure = plot(collect(out), "max_error")
    assert [t.get_text() for t in figure.axes[0].get_legend().get_texts()] == [
        "exact (privacy not verified)"]


@pytest.mark.slow
def test_run_py_refuses_the_undernoised_plugin_in_one_line(attack_env, tmp_path):
    out = tmp_path / "runs"
    done = _run_py(attack_env, "algo=undernoised", "runs=1", *TINY, f"results_dir={out}")
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "undernoised asked for more than its budget" in lines[0]
    assert not list(out.glob("records/*/*.json"))


@pytest.mark.slow
def test_the_api_marks_the_exact_plugin_as_not_verified(attack_env):
    code = ("from pubpriv_core import api\n"
            "data = api.load('synthetic', 'resample', dataset_options={'preset': 'tiny'})\n"
            "result = api.run('exact', api.problem(data, api.workload(data, 2, None)))\n"
            "print(result.release.privacy.privacy, result.rho, result.errors['max_error'])")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=attack_env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["not", "verified", "0.0", "0.0"]
