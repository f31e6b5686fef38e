"""Clopper–Pearson bound, doubling-then-bisection search and resumable records."""
import numpy as np
import pytest

from pubpriv_core.learning import (RecordStore, clopper_pearson_lower, empirical_sample_complexity,
                                   max_failures, success_rate, worst_case_sample_complexity)


def test_clopper_pearson_known_values():
    assert clopper_pearson_lower(59, 59) == pytest.approx(0.05 ** (1 / 59))
    assert clopper_pearson_lower(0, 10) == 0.0
    # P[Bin(100, p) >= 90] = 0.05 at the bound
    from scipy import stats
    p = clopper_pearson_lower(90, 100)
    assert stats.binom.sf(89, 100, p) == pytest.approx(0.05, rel=1e-6)


def test_max_failures_threshold():
    assert max_failures(58, 0.05) == -1 and max_failures(59, 0.05) == 0
    f = max_failures(200, 0.05)
    assert clopper_pearson_lower(200 - f, 200) >= 0.95 > clopper_pearson_lower(199 - f, 200)


def step(n, rng):
    return 0.0 if n >= 37 else 1.0


def test_deterministic_threshold_found_exactly():
    res = empirical_sample_complexity(step, 0.1, 0.05, trials=60, n_min=1, rel_tol=0.0)
    assert res.n_star == 37


def test_never_sufficient_returns_none():
    res = empirical_sample_complexity(lambda n, rng: False, 0.1, 0.05, trials=60, n_max=64)
    assert res.n_star is None and max(e.n for e in res.evaluations) == 64


def noisy(n, rng):
    return bool(rng.random() < 1 - np.exp(-n / 10))


def test_stochastic_search_is_conservative():
    # success prob reaches 0.95 at n = 30; certification at 95% needs a higher true rate
    res = empirical_sample_complexity(noisy, 0.1, 0.05, trials=200, n_min=4, seed=3)
    assert 30 <= res.n_star <= 80


def test_records_resume_without_rerunning(tmp_path):
    store = RecordStore(tmp_path)
    first = empirical_sample_complexity(step, 0.1, 0.05, trials=60, store=store, key="a/b", rel_tol=0.0)

    def boom(n, rng):
        raise AssertionError("trial re-run despite stored record")

    again = empirical_sample_complexity(boom, 0.1, 0.05, trials=60, store=store, key="a/b", rel_tol=0.0)
    assert again.n_star == first.n_star == 37
    assert len(store.records("a")) == len({e.n for e in first.evaluations})


def test_parallel_matches_serial():
    a = success_rate(noisy, 20, 0.1, 0.05, trials=12, seed=9, n_jobs=1)
    b = success_rate(noisy, 20, 0.1, 0.05, trials=12, seed=9, n_jobs=2)
    assert a.successes == b.successes


def test_worst_case_is_max_over_family():
    fam = {"easy": lambda n, rng: 0.0 if n >= 5 else 1.0, "hard": lambda n, rng: 0.0 if n >= 50 else 1.0}
    worst, per = worst_case_sample_complexity(fam, 0.1, 0.05, trials=60, rel_tol=0.0)
    assert worst == 50 and per["easy"].n_star == 5


def test_too_few_trials_rejected():
    with pytest.raises(ValueError, match="raise trials"):
        empirical_sample_complexity(step, 0.1, 0.05, trials=20)
