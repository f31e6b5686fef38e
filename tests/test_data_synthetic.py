"""Synthetic chain models: exact pmf, marginals, sampling and Rényi divergences vs brute force."""
import itertools

import numpy as np
import pytest

from pubpriv_core.data import load_dataset
from pubpriv_core.data.domain import Domain
from pubpriv_core.data.synthetic import (PRESETS, ChainModel, SyntheticPair, make_pair,
                                         renyi_divergence)


def _all_records(domain):
    return np.array(list(itertools.product(*[range(k) for k in domain.shape])))


def _brute(p, q, alpha):
    if alpha == 1:
        return float(np.sum(p * np.log(p / q)))
    if np.isinf(alpha):
        return float(np.log(np.max(p / q)))
    return float(np.log(np.sum(p ** alpha * q ** (1 - alpha))) / (alpha - 1))


@pytest.mark.parametrize("shape,shift,seed", [((2, 3, 4, 2, 3), 0.3, 1), ((4, 2, 5, 3), 0.05, 2),
                                              ((3, 3, 3, 3, 3, 3), 0.8, 3)])
@pytest.mark.parametrize("alpha", [0.5, 1.0, 2.0, 3.0, np.inf])
def test_renyi_exact_vs_brute_force(shape, shift, seed, alpha):
    domain = Domain([f"x{i}" for i in range(len(shape))], shape)
    pair = SyntheticPair.build(domain, shift, np.random.default_rng(seed), concentration=0.3)
    X = _all_records(domain)
    p, q = pair.private.pmf(X), pair.public.pmf(X)
    assert np.isclose(p.sum(), 1) and np.isclose(q.sum(), 1)
    exact = renyi_divergence(pair.private, pair.public, alpha)
    assert exact == pytest.approx(_brute(p, q, alpha), rel=1e-9, abs=1e-12)


def test_d2_and_dinf_shortcuts_and_bound():
    pair = make_pair("tiny", shift=0.2, seed=5)
    X = _all_records(pair.private.domain)
    p, q = pair.private.pmf(X), pair.public.pmf(X)
    assert pair.d2() == pytest.approx(np.log(np.sum(p ** 2 / q)), rel=1e-12)
    assert pair.dinf() == pytest.approx(np.log(np.max(p / q)), rel=1e-12)
    assert 0 < pair.d2() <= pair.dinf() <= 5 * np.log(1 / 0.8) + 1e-12


def test_zero_shift_is_identical():
    pair = make_pair("small", shift=0.0, seed=0)
    assert pair.d2() == pytest.approx(0, abs=1e-12) and pair.dinf() == pytest.approx(0, abs=1e-12)


def test_divergence_grows_with_shift():
    values = [make_pair("small", shift=s, seed=4).d2() for s in (0.05, 0.2, 0.5, 0.9)]
    assert values == sorted(values) and values[0] > 0


def test_acs_full_shaped_divergences_are_finite():
    pair = make_pair("acs_full", shift=0.1, seed=0)
    d = len(pair.private.domain)
    assert d == 67
    assert 0 < pair.d2() <= pair.dinf() <= d * np.log(1 / 0.9) + 1e-9


def test_marginal_matches_brute_force():
    model = make_pair("tiny", shift=0.1, seed=7).private
    joint = model.pmf(_all_records(model.domain)).reshape(model.domain.shape)
    assert np.allclose(model.marginal(["a3", "a0"]), joint.sum(axis=(1, 2, 4)).T)
    assert np.allclose(model.marginal(["a1", "a4", "a2"]),
                       joint.sum(axis=(0, 3)).transpose(0, 2, 1))
    assert np.allclose(model.marginal(["a2"]), model.node_marginals()[2])


def test_sampling_follows_the_pmf():
    model = make_pair("tiny", shift=0.1, seed=3).private
    n = 200_000
    sample = model.sample(n, np.random.default_rng(0))
    cells = np.ravel_multi_index(sample.records.T, model.domain.shape)
    empirical = np.bincount(cells, minlength=model.domain.size()) / n
    exact = model.pmf(_all_records(model.domain))
    assert np.all(np.abs(empirical - exact) <= 5 * np.sqrt(exact * (1 - exact) / n) + 1e-4)


def test_loader_is_seeded_and_roles_differ():
    a = load_dataset("synthetic", preset="tiny", seed=11, n=500)
    b = load_dataset("synthetic", preset="tiny", seed=11, n=500, role="public")
    fresh = make_pair("tiny", shift=0.1, seed=11).private.sample(
        500, np.random.default_rng(np.random.SeedSequence([11, 1])))
    assert (a.records == fresh.records).all()
    assert len(a) == len(b) == 500 and not (a.records == b.records).all()
    assert len(load_dataset("synthetic", preset="tiny")) == PRESETS["tiny"].rows == 1000


def test_bad_arguments():
    model = make_pair("tiny").private
    with pytest.raises(ValueError, match="unknown synthetic preset 'huge'"):
        make_pair("huge")
    with pytest.raises(ValueError, match="role must be one of"):
        load_dataset("synthetic", role="both")
    with pytest.raises(ValueError, match=r"mixing weight must be in \[0, 1\]"):
        model.mixed(model, 1.5)
    with pytest.raises(ValueError, match="row-stochastic"):
        ChainModel(model.domain, np.ones(2), [t for t in model.tables[1:]])
