"""Privacy tests that follow the data through every algorithm (harness: ``privacy_flow.py``).

* flow rules on recorded runs: no branch on private data, nothing private in the model or the
  release, every private read followed by a charged mechanism call before the model moves;
* replay: the release is a function of the mechanisms' outputs and the public data only —
  replayed on other private datasets (neighbours and far ones) along the same outputs, the
  calls, their parameters, the ledger and the release are the same;
* sensitivity by enumeration: on tiny domains drawn by hypothesis, every vector fed to a
  mechanism changes on every replace-one neighbour by at most the calibrated sensitivity.

All checks are exact (floating-point slack 1e-9): none is statistical, so none fails by chance.
"""
from __future__ import annotations

import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import privacy_flow as pf
from pubpriv_core.privacy import rho_from_eps

SHAPE = (2, 2, 3)
PRIVATE = np.array([[0, 0, 0], [1, 1, 1], [0, 1, 2], [1, 0, 0], [1, 1, 2]])
#: public rows unlike the private ones (no record in common)
PUBLIC = np.array([[0, 0, 1], [1, 1, 0], [0, 0, 1], [0, 1, 1], [1, 0, 1], [0, 0, 1]])
FAR = [np.array([[1, 0, 2]] * 5), np.array([[0, 1, 0], [0, 1, 0], [1, 0, 1], [1, 1, 0],
                                             [0, 0, 2]])]
#: private data with one pair of attributes equal: a public path that reads private data
#: builds another structure on one of them (e.g. AIM's public tree)
COPIES = [np.array([[0, 0, 0], [1, 1, 1], [0, 0, 2], [1, 1, 0], [0, 0, 1]]),
          np.array([[0, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1], [1, 1, 1]]),
          np.array([[0, 0, 0], [1, 1, 1], [0, 1, 1], [1, 0, 0], [1, 1, 1]])]
ALGORITHMS = sorted(pf.FLOW_SPECS)


def problem_for(name: str, records=PRIVATE, shape=SHAPE, public=PUBLIC):
    return pf.spec_problem(name, records, shape, public)


def test_flow_table_covers_the_registry():
    """Every built-in algorithm of ``ALGORITHMS`` is in FLOW_SPECS (or named as not private).

    Entry-point plugins (``pubpriv.algorithms``, e.g. the example plugin ``measure_fit`` that CI
    installs) are excluded explicitly: they are third-party code, registered by
    ``plugins.load_plugins`` into ``PLUGINS`` as well as ``ALGORITHMS``, and the harness checks
    the privacy they report against their budget at run time, not their data flow. Installed
    plugins are loaded here (and unregistered after) so that the exclusion is exercised where
    they exist; a stand-in entry shows that only names in ``PLUGINS`` are excluded."""
    from pubpriv_core.algorithms import plugins
    saved = dict(pf.ALGORITHMS), dict(plugins.PLUGINS)
    try:
        plugins.load_plugins()
        assert {"pep", "pep_pub", "gem", "gem_pub", "rap"} <= set(pf.builtin_algorithms())
        assert pf.registry_gaps() == [], "add these algorithms to privacy_flow.FLOW_SPECS"
        pf.ALGORITHMS["stand_in"] = ("stand_in_module", "run")
        assert pf.registry_gaps() == ["stand_in"]
        plugins.PLUGINS["stand_in"] = None
        assert pf.registry_gaps() == []
    finally:
        for registry, before in zip((pf.ALGORITHMS, plugins.PLUGINS), saved):
            registry.clear()
            registry.update(before)


@pytest.mark.parametrize("name", ALGORITHMS)
def test_recorded_run_follows_the_flow_rules(name):
    """The flow rules hold; on a ledger algorithm the release reports the sum of the charges,
    which is the whole budget ρ(ε, δ) (at most ρ for JAM-PGM, whose public picks save some)."""
    spec = pf.FLOW_SPECS[name]
    release, flow = pf.run(name, problem_for(name), seed=3)
    assert flow.violations() == []
    if spec.family.ledger:
        spent = math.fsum(rho for call in flow.calls for _, rho in call.charges)
        assert release.rho == pytest.approx(spent, rel=1e-12)
        budget = rho_from_eps(spec.eps, 1e-3)
        assert spent == pytest.approx(budget, rel=1e-9) if spec.spends_all else \
            spent <= budget * (1 + 1e-9)


@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("seed", [0, 1])
def test_release_is_a_function_of_the_mechanism_outputs(name, seed):
    """Replayed along the recorded outputs on other private data: the same release."""
    problem = problem_for(name)
    release, flow = pf.run(name, problem, seed=seed)
    for other in FAR + COPIES + pf.neighbours(PRIVATE, SHAPE)[::9]:
        replayed, replay = pf.run(name, pf.with_private(problem, other), script=flow.calls,
                                  seed=seed)
        assert replay.violations() == []
        np.testing.assert_array_equal(replayed.answers, release.answers)
        assert (replayed.rho, replayed.eps) == (release.rho, release.eps)
        assert [c.charges for c in replay.calls] == [c.charges for c in flow.calls]
        for key in ("selected", "queries", "final_sigma", "public_picks"):
            assert replayed.trace.get(key) == release.trace.get(key), key


@pytest.mark.parametrize("name, options, public", pf.OPTION_PATHS,
                         ids=[f"{n}-{'-'.join(f'{k}={v}' for k, v in o.items())}"
                              for n, o, _ in pf.OPTION_PATHS])
def test_every_option_path_follows_the_flow_rules_and_replays(name, options, public):
    """Each option that changes which data a step reads (a public start, the quality check, a
    public tree, the released code's replay, another selection or measurement, …): the flow
    rules hold and the release is a function of the mechanisms' outputs on other data."""
    spec = pf.FLOW_SPECS[name]
    problem = pf.make_problem(PRIVATE, SHAPE, PUBLIC if public else None, spec.orders)
    release, flow = pf.run(name, problem, seed=1, **options)
    assert flow.violations() == []
    for other in FAR + COPIES[:1]:
        replayed, replay = pf.run(name, pf.with_private(problem, other), script=flow.calls,
                                  seed=1, **options)
        assert replay.violations() == []
        np.testing.assert_array_equal(replayed.answers, release.answers)
        assert replayed.privacy.charges == release.privacy.charges


def test_jam_pgm_public_picks_enter_the_model_without_private_data():
    """Public ≠ private and several public picks: a pick of the public marginal must add it
    (no private read, no charge), so replays on other private data keep the model."""
    problem = problem_for("jam_pgm")
    release, flow = pf.run("jam_pgm", problem, seed=3, rounds=6)
    assert release.trace["public_picks"] >= 2
    assert flow.violations() == []
    for other in FAR + COPIES:
        replayed, _ = pf.run("jam_pgm", pf.with_private(problem, other), script=flow.calls,
                             seed=3, rounds=6)
        np.testing.assert_array_equal(replayed.answers, release.answers)


def test_aim_annealing_reads_only_the_model():
    """AIM's rounds anneal (σ/2, 2ε) on the model's change: replays on other private data make
    the same calls with the same σ and ε, and no branch reads private data."""
    problem = problem_for("aim")
    release, flow = pf.run("aim", problem, seed=2, rounds=8)
    sigmas = [c.params["sigma"] for c in flow.calls if c.kind == "gaussian"]
    assert len(set(sigmas)) >= 2, "this run should change σ at least once"
    assert flow.violations() == []
    for other in FAR + pf.neighbours(PRIVATE, SHAPE)[::5]:
        pf.run("aim", pf.with_private(problem, other), script=flow.calls, seed=2, rounds=8)


def test_aim_public_tree_pretraining_reads_public_data_only():
    problem = pf.make_problem(PRIVATE, SHAPE, PUBLIC)
    options = {"public_init": True, "public_cliques": "tree"}
    release, flow = pf.run("aim", problem, seed=1, **options)
    assert release.trace["public_proxies"] == 2 and flow.violations() == []
    for other in FAR + COPIES:
        replayed, _ = pf.run("aim", pf.with_private(problem, other), script=flow.calls, seed=1,
                             **options)
        np.testing.assert_array_equal(replayed.answers, release.answers)


PUBLIC_ADAPTIVE = [n for n, spec in pf.FLOW_SPECS.items()
                   if spec.family is pf.ADAPTIVE and spec.public]


@pytest.mark.parametrize("name", PUBLIC_ADAPTIVE)
def test_adaptive_public_start_reads_public_data_only(name):
    """PEP^Pub's start (the public distribution) and GEM^Pub's pre-training (the public
    answers, run again in every replay) read public data only: with public ≠ private, replays
    on other private data give the same release; replayed with other public rows, the release
    moves, so the public path is live."""
    problem = problem_for(name)
    release, flow = pf.run(name, problem, seed=4)
    for other in FAR + COPIES:
        replayed, _ = pf.run(name, pf.with_private(problem, other), script=flow.calls, seed=4)
        np.testing.assert_array_equal(replayed.answers, release.answers)
        assert replayed.trace.get("pretrain_public_max_error") == \
            release.trace.get("pretrain_public_max_error")
    other_public = problem_for(name, public=FAR[1])
    moved, _ = pf.run(name, other_public, script=flow.calls, seed=4)
    assert not np.array_equal(moved.answers, release.answers)


@pytest.mark.parametrize("options", [{"quality_check_eps": 0.5},
                                     {"selection": "exponential", "measurement": "laplace"},
                                     {"selection": "exponential_bounded_range"}])
def test_pmwpub_variants_follow_the_flow_rules(options):
    problem = problem_for("pmwpub")
    release, flow = pf.run("pmwpub", problem, seed=0, **options)
    assert flow.violations() == []
    for other in pf.neighbours(PRIVATE, SHAPE)[::7]:
        _, replay = pf.run("pmwpub", pf.with_private(problem, other), script=flow.calls,
                           seed=0, **options)
        for change, stated in pf.sensitivity_gaps(flow.calls, replay.calls):
            assert change <= stated * (1 + pf.RELATIVE_SLACK)


# --------------------------------------------------------------------------- enumeration


@st.composite
def tiny_cases(draw):
    """A domain of 2–3 attributes of 2–3 values (≤ 12 cells), 3–6 private records, 2–6
    public records and a seed."""
    shape = tuple(draw(st.lists(st.integers(2, 3), min_size=2, max_size=3)
                       .filter(lambda s: math.prod(s) <= 12)))
    cells = math.prod(shape)
    private = draw(st.lists(st.integers(0, cells - 1), min_size=3, max_size=6))
    public = draw(st.lists(st.integers(0, cells - 1), min_size=2, max_size=6))
    rows = lambda ids: np.array(np.unravel_index(ids, shape)).T  # noqa: E731
    return shape, rows(private), rows(public), draw(st.integers(0, 2 ** 16))


EXAMPLES = {"aim": 5, "mst": 6, "jam_pgm": 5, "dualquery": 5, "pmwpub": 8, "mwem": 8,
            "pep": 6, "pep_pub": 6, "gem": 3, "gem_pub": 2, "rap": 4}
#: a cap on the examples per algorithm (the mutation run sets 2: scripts/mutation_privacy.py)
EXAMPLES_CAP = int(os.environ.get("PUBPRIV_FLOW_EXAMPLES", "12"))


@pytest.mark.parametrize("name", [n for n in ALGORITHMS if n != "public_only"])
def test_sensitivity_by_enumeration(name):
    """Every selection score / sampler log-weight (L∞), Gaussian (L2) and Laplace (L1) input
    moves on every replace-one neighbour by at most the calibrated sensitivity, with the
    earlier outputs held fixed (replay)."""

    @settings(max_examples=min(EXAMPLES.get(name, 12), EXAMPLES_CAP), deadline=None, derandomize=True,
              database=None, suppress_health_check=[HealthCheck.too_slow])
    @given(tiny_cases())
    def check(case):
        shape, private, public, seed = case
        problem = pf.spec_problem(name, private, shape, public)
        _, flow = pf.run(name, problem, seed=seed)
        assert flow.violations() == []
        worst = [0.0] * len(flow.calls)
        for other in pf.neighbours(private, shape):
            _, replay = pf.run(name, pf.with_private(problem, other), script=flow.calls,
                               seed=seed)
            for i, (change, stated) in enumerate(pf.sensitivity_gaps(flow.calls,
                                                                     replay.calls)):
                assert change <= stated * (1 + pf.RELATIVE_SLACK) + 1e-12, \
                    (i, flow.calls[i].kind, flow.calls[i].site, change, stated)
                worst[i] = max(worst[i], change)
        tight = [w / pf.stated_sensitivity(c) for w, c in zip(worst, flow.calls)
                 if c.kind in ("gaussian", "laplace")]
        # some neighbour moves a measured vector by its full sensitivity: the bound is reached,
        # so a sensitivity understated in the calibration would show
        assert not tight or max(tight) == pytest.approx(1.0, rel=1e-9), tight
        check.examples += 1

    check.examples = 0
    check()
    assert check.examples > 0
