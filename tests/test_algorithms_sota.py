"""AIM, MST and JAM-PGM on Private-PGM: accuracy limits, the zCDP ledger, public data, bad options.

Problems are tiny (the synthetic ``tiny`` preset, 1,000 rows, projected to 3 or 4 attributes) so
that each run needs only a few Private-PGM fits.
"""
import math

import numpy as np
import pytest

from pubpriv_core.algorithms import pgm, select_measure
from pubpriv_core.privacy import private_data

from pubpriv_core.harness import ReleaseProblem, run_algorithm
from pubpriv_core.algorithms.aim import public_tree
from pubpriv_core.algorithms.pgm import ModelMarginals
from pubpriv_core.data import from_dataset, load_dataset
from pubpriv_core.privacy import eps_from_rho, rho_from_eps
from pubpriv_core.queries import MarginalWorkload

DELTA = 1e-6


def tiny_problem(attributes, k, public=None) -> ReleaseProblem:
    """Private: the tiny preset's first ``attributes``; public: ``"self"`` (the private rows),
    ``"biased"`` (an independent chain model), or None."""
    names = [f"a{i}" for i in range(attributes)]
    private = load_dataset("synthetic", preset="tiny").project(names)
    workload = MarginalWorkload.random(private.domain, k, None, 0)
    if public is None:
        return ReleaseProblem(private, workload)
    other = private if public == "self" else \
        load_dataset("synthetic", preset="tiny", role="public", shift=1.0, seed=7).project(names)
    source = from_dataset(other)
    return ReleaseProblem(private, workload, source.support.records, source.weights,
                          source.n_rows)


def run(algo, problem, eps, seed=0, **options):
    return run_algorithm(algo, problem, eps=eps, delta=DELTA, T=1,
                         rng=np.random.default_rng(seed), **options)


def max_error(release, problem) -> float:
    return release.errors(problem.true_answers)["max_error"]


@pytest.fixture(scope="module")
def three():
    return tiny_problem(3, 3, public="self")


def test_model_marginals_match_mbi_variable_elimination(three):
    model = run("aim", three, 5.0, rounds=3, estimator="mbi").trace["model"]
    marginals = ModelMarginals(model)
    for clique in [("a0", "a2"), ("a2", "a0"), ("a1",), ("a0", "a1", "a2")]:
        expected = np.asarray(model.project(clique).datavector())
        np.testing.assert_allclose(marginals(clique), expected, rtol=1e-6, atol=1e-6)


def test_aim_reaches_near_zero_error_at_very_large_eps(three):
    release = run("aim", three, 500.0, rounds=3)
    assert max_error(release, three) < 2e-3


def test_mst_reaches_near_zero_error_on_a_tree_at_very_large_eps():
    problem = tiny_problem(2, 2)          # two attributes: the spanning tree is the joint
    release = run("mst", problem, 500.0)
    assert max_error(release, problem) < 2e-3
    assert release.trace["selected"] == ["a0,a1"]


class Spy:
    """Records the parameters the mechanisms are called with, then runs them."""

    def __init__(self, monkeypatch):
        self.selections, self.measurements = [], []
        em, gm = private_data.exponential_mechanism, private_data.gaussian_mechanism

        def select(scores, eps, sensitivity, rng):
            self.selections.append((eps, sensitivity, len(scores)))
            return em(scores, eps, sensitivity, rng)

        def measure(values, sigma, rng):
            self.measurements.append(sigma)
            return gm(values, sigma, rng)

        monkeypatch.setattr(private_data, "exponential_mechanism", select)
        monkeypatch.setattr(private_data, "gaussian_mechanism", measure)


@pytest.mark.parametrize("algo, options, spends_all", [
    ("aim", {"rounds": 6}, True), ("mst", {}, True), ("jam_pgm", {"rounds": 4}, False),
    ("aim", {"rounds": 6, "public_init": True, "public_cliques": "tree"}, True),
    ("aim", {"rounds": 6, "relation": "add_remove"}, True)])
def test_ledger_adds_up_and_mechanisms_get_the_charged_parameters(monkeypatch, algo, options,
                                                                  spends_all):
    problem = tiny_problem(4, 3, public="biased")
    spy = Spy(monkeypatch)
    release = run(algo, problem, 1.0, **options)
    target = rho_from_eps(1.0, DELTA)
    ledger = release.privacy.charges
    selects = [rho for label, rho in ledger if label.startswith("select")]
    measures = [rho for label, rho in ledger if label.startswith("measure")]
    assert len(selects) + len(measures) == len(ledger)
    assert [eps ** 2 / 8 for eps, _, _ in spy.selections] == pytest.approx(selects, rel=1e-12)
    l2_squared = 1.0 if options.get("relation") == "add_remove" else 2.0
    assert [l2_squared / (2 * sigma ** 2) for sigma in spy.measurements] == pytest.approx(
        measures, rel=1e-12)
    assert release.rho == pytest.approx(math.fsum(selects + measures), rel=1e-12)
    assert release.rho <= target * (1 + 1e-9)
    if spends_all:
        assert release.rho == pytest.approx(target, rel=1e-9)
    assert release.eps == pytest.approx(eps_from_rho(release.rho, DELTA), rel=1e-12)
    assert release.answers.shape == problem.true_answers.shape
    sensitivities = {s for _, s, _ in spy.selections}
    if algo == "mst":
        assert sensitivities == {2.0} and len(selects) == 3 and len(measures) == 4 + 3
    if algo == "jam_pgm":
        assert sensitivities == {4.0} and len(selects) == 4
        assert all(size == 2 * 14 for _, _, size in spy.selections)   # 14 cliques × {priv, pub}


def test_aim_sensitivity_is_twice_the_largest_workload_weight(monkeypatch):
    problem = tiny_problem(4, 3)
    spy = Spy(monkeypatch)
    run("aim", problem, 1.0, rounds=6)
    # candidate weights w_r = Σ_s |r ∩ s| over the 4 3-way sets: a 3-way set has 3 + 3·2 = 9
    assert {s for _, s, _ in spy.selections} == {2.0 * 9}


def test_aim_add_remove_halves_the_sensitivities_and_estimates_the_total(monkeypatch):
    """Add/remove (the AIM paper's relation): Δ₁ = Δ₂ = 1, so Δ = max w_r = 9 and σ₀ is the
    replace-one σ₀/√2; n is private, so the model's total is estimated, not n."""
    problem = tiny_problem(4, 3)
    sigmas = {}
    for name in ("replace_one", "add_remove"):
        spy = Spy(monkeypatch)
        release = run("aim", problem, 1.0, rounds=6, relation=name)
        sigmas[name] = spy.measurements[0]
    assert {s for _, s, _ in spy.selections} == {9.0}
    assert sigmas["add_remove"] == pytest.approx(sigmas["replace_one"] / math.sqrt(2), rel=1e-12)
    total = float(release.trace["model"].total)
    assert total != problem.n and abs(total - problem.n) < 0.2 * problem.n
    first = problem.workload.marginal_sizes[0]
    assert release.answers[:first].sum() == pytest.approx(1.0, rel=1e-9)


def test_warm_started_short_fit_matches_a_cold_fit():
    """JAM-PGM's rounds: a fit warm-started from the previous clique set's model, with few
    iterations, and compiled at XLA level 0, lands on the cold 3,000-iteration fit."""
    problem = tiny_problem(4, 3)
    domain = pgm.to_mbi(problem.private.domain)
    rng = np.random.default_rng(3)
    cliques = [("a0", "a1"), ("a1", "a2"), ("a2", "a3"), ("a0", "a2", "a3")]
    measured = [pgm.measurement(problem.private_marginal(c)
                                + rng.normal(0, 5, problem.domain.size(c)), c, 1.0)
                for c in cliques]
    cold = pgm.fit(domain, measured, problem.n, 3000, estimator="mbi")
    previous = pgm.fit(domain, measured[:3], problem.n, 1000, quick_compile=True,
                       estimator="mbi")
    warm = pgm.fit(domain, measured, problem.n, 300, warm_start=previous, quick_compile=True,
                   estimator="mbi")
    short = pgm.fit(domain, measured, problem.n, 50, estimator="mbi")
    for clique in cliques:
        exact, got = ModelMarginals(cold)(clique), ModelMarginals(warm)(clique)
        assert np.abs(got - exact).sum() < 1e-2 * problem.n
    assert sum(np.abs(ModelMarginals(short)(c) - ModelMarginals(cold)(c)).sum()
               for c in cliques) > sum(np.abs(ModelMarginals(warm)(c) - ModelMarginals(cold)(c))
                                       .sum() for c in cliques)


def test_jam_pgm_with_the_private_data_as_public_beats_aim():
    problem = tiny_problem(4, 3, public="self")
    jam = run("jam_pgm", problem, 1.0, rounds=6)
    aim = run("aim", problem, 1.0, rounds=6)
    assert jam.trace["public_picks"] >= 1
    assert max_error(jam, problem) <= max_error(aim, problem)


def test_biased_public_jam_declines_it_and_public_init_suffers():
    problem = tiny_problem(4, 3, public="biased")
    public_error = np.abs(problem.public_answerer.expand(
        problem.public_answerer.answer(problem.public_weights)) - problem.true_answers).max()
    aim = run("aim", problem, 20.0, rounds=6)
    pretrained = run("aim", problem, 20.0, rounds=6, public_init=True)
    jam = run("jam_pgm", problem, 20.0, rounds=6)
    assert public_error > 0.1
    assert jam.trace["public_picks"] == 0
    assert max_error(jam, problem) < 3 * max_error(aim, problem) + 0.01
    assert max_error(pretrained, problem) > max_error(jam, problem)


def test_public_tree_follows_the_public_chain_and_reads_no_private_data():
    """The tiny preset is a chain a0 – a1 – a2 – a3; the tree is built from the public proxies
    alone (here a shifted chain, so the private marginals are never computed)."""
    problem = tiny_problem(4, 3, public="biased")
    tree = public_tree(select_measure.PublicMarginals(problem.public), problem.domain)
    assert sorted(tree) == [("a0", "a1"), ("a1", "a2"), ("a2", "a3")]
    assert problem._marginals == {}


def test_public_tree_pretraining_with_the_private_data_as_public_beats_aim():
    problem = tiny_problem(4, 3, public="self")
    errors = [[max_error(run("aim", problem, 0.3, seed=seed, rounds=8, **options), problem)
               for seed in range(3)]
              for options in ({}, {"public_init": True, "public_cliques": "tree"})]
    assert np.mean(errors[1]) < np.mean(errors[0])


@pytest.mark.parametrize("algo, options, words", [
    ("aim", {"public_init": True, "public_cliques": "forest"},
     "unknown algo.public_cliques='forest'; choose from workload, tree"),
    ("aim", {"rounds": -3}, "algo.rounds must be a positive integer or null, got -3"),
    ("aim", {"rounds": 2}, "algo.rounds=2 is below the 3 attributes"),
    ("aim", {"variant": "fast"}, "unknown option algo.variant; choose from"),
    ("aim", {"max_model_size": 1e-6}, "algo.max_model_size=1e-06 MB is below one workload"),
    ("aim", {"alpha": 1.0}, "algo.alpha must lie in (0, 1)"),
    ("aim", {"relation": "swap"}, "unknown algo.relation='swap'; choose from replace_one, "
                                  "add_remove"),
    ("aim", {"public_init": True, "relation": "add_remove"},
     "algo.public_init=true needs algo.relation=replace_one"),
    ("jam_pgm", {"rounds": 0}, "algo.rounds must be a positive integer, got 0"),
    ("jam_pgm", {"max_model_size": 0.0}, "algo.max_model_size=0 MB is below one workload"),
    ("mst", {"final_iters": 0}, "algo.final_iters must be a positive integer, got 0"),
])
def test_bad_options_are_one_line_value_errors(algo, options, words):
    problem = tiny_problem(3, 2, public="self")
    with pytest.raises(ValueError) as info:
        run(algo, problem, 1.0, **options)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_public_algorithms_refuse_a_problem_without_public_data():
    problem = tiny_problem(3, 2)
    for algo, options in [("jam_pgm", {}), ("aim", {"public_init": True})]:
        with pytest.raises(ValueError, match="needs a public source; set public="):
            run(algo, problem, 1.0, **options)


@pytest.mark.parametrize("argv, words", [
    (["algo=aim", "algo.rounds=-1"], "algo.rounds must be null (16·d) or an integer"),
    (["algo=aim", "algo.max_model_size=0.00001"], "is below one workload marginal"),
    (["algo=jam_pgm", "algo.alpha=1.5"], "algo.alpha must be a finite number in (0, 1)"),
    (["algo=aim", "algo.public_cliques=forest"], "expected one of [workload, tree]"),
    (["algo=aim", "algo.relation=swap"], "expected one of [replace_one, add_remove]"),
])
def test_runner_refuses_bad_options_in_one_line(argv, words, tmp_path, capsys):
    from experiments.release.configure import cli

    def never_called():
        pytest.fail("the Hydra app must not start on bad input")

    with pytest.raises(SystemExit):
        cli.main(never_called, [*argv, "dataset.preset=tiny", "workload.size=null",
                                f"results_dir={tmp_path / 'out'}"])
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1 and words in err, err


def test_versus_aim_pairs_runs_and_picks_the_best_average_T():
    """line − AIM on the same run, PMW^Pub at its best-average T, the public data alone paired
    at every ε; a known difference of −0.01 on every run has a zero-width CI (the verdicts are
    made by the summary's Holm-corrected family)."""
    import pandas as pd

    from experiments.release.artefacts.sota import versus_aim

    rows = []
    for run_ in range(5):
        aim = 0.03 + 0.001 * run_
        for eps in (0.1, 1.0):
            rows += [dict(algo="aim", eps=eps, T=1, run=run_, max_error=aim, mean_error=0.002,
                          uses_public=False),
                     dict(algo="jam_pgm", eps=eps, T=1, run=run_, max_error=aim - 0.01,
                          mean_error=0.002, uses_public=True),
                     *[dict(algo="pmwpub", eps=eps, T=T, run=run_, max_error=aim + shift,
                            mean_error=0.003, uses_public=True)
                       for T, shift in ((10, 0.02), (50, 0.005))]]
        rows.append(dict(algo="public_only", eps=1.0, T=1, run=run_, max_error=0.02,
                         mean_error=0.001, uses_public=True))
    table = pd.DataFrame(rows).assign(public="dataset", dataset_region="ma", public_year=2018,
                                      public_fraction=1.0)
    # AIM also ran on a second source's problem: the same runs, counted once
    table = pd.concat([table, table[table["algo"] == "aim"].assign(public_year=2017)])
    out = versus_aim(table).set_index(["line", "eps"])
    assert out.loc[("JAM-PGM [MA-2018]", 1.0), "max_error − AIM"] == \
        "-0.0100 [-0.0100, -0.0100]"
    assert out.loc[("PMW^Pub [MA-2018]", 0.1), "max_error"] == pytest.approx(0.037)
    assert out.loc[("public only [MA-2018]", 0.1), "runs"] == 5
    assert out.loc[("JAM-PGM [MA-2018]", 0.1), "runs"] == 5
    assert out.loc[("public only [MA-2018]", 0.1), "max_error − AIM"].startswith("-0.01")
    assert out.loc[("JAM-PGM [MA-2018]", 1.0), "mean_error − AIM"] == \
        "+0.0000 [+0.0000, +0.0000]"


def _coverage_text(cells: list[tuple[str, float, int]]) -> str:
    """coverage_notes of records (algo, ε, runs) on the MA-2018 source."""
    import pandas as pd

    from experiments.release.artefacts.sota import coverage_notes, lines

    rows = [dict(algo=algo, eps=eps, T=1, run=r, max_error=0.03, mean_error=0.002,
                 uses_public=algo != "aim") for algo, eps, runs in cells for r in range(runs)]
    table = pd.DataFrame(rows).assign(public="dataset", dataset_region="ma", public_year=2018,
                                      public_fraction=1.0)
    return "\n".join(coverage_notes(lines(table)))


def test_coverage_notes_state_the_eps_sources_and_runs_per_line():
    text = _coverage_text([("aim", 1.0, 5), ("jam_pgm", 1.0, 2)])
    assert "ε: 1. Public sources: MA-2018." in text
    assert "AIM: 5; JAM-PGM [MA-2018]: 2." in text
    assert "python scripts/reproduce.py sota" in text
    text = _coverage_text([("aim", 1.0, 5), ("jam_pgm", 1.0, 2), ("jam_pgm", 0.5, 1),
                           ("aim", 0.5, 5), ("public_only", 1.0, 5)])
    assert "AIM: 5; JAM-PGM [MA-2018]: ε = 0.5: 1, 1: 2; public only [MA-2018]: 5." in text
