"""Selection mechanisms: sampled frequencies against exact output distributions."""
import functools
import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from pubpriv_core.privacy import (exponential_mechanism, exponential_mechanism_probabilities,
                                  permute_and_flip, permute_and_flip_probabilities,
                                  report_noisy_max)
from pubpriv_core.privacy.noisy_max import bernoulli_ranks

DRAWS = 10_000
ALPHA = 1e-3  # a correct sampler fails a test with this probability (seeds are fixed)

# Gaps u_j = ε(s* − s_j)/(2Δ) with ε = 2, Δ = 1 equal the score differences below.
CLOSE = np.array([0.0, 0.1, 0.3, 0.3, 0.7, 1.0, 1.2])          # no candidate beyond the cut
SPREAD = np.array([0.0, 0.2, 1.1, 1.6, 2.4, 3.0, 4.5, 6.0])  # most candidates in the tail


def sample(mechanism, scores, eps, draws=DRAWS, seed=0, **kwargs):
    rng = np.random.default_rng(seed)
    picks = [mechanism(scores, eps, 1.0, rng, **kwargs) for _ in range(draws)]
    return np.bincount(picks, minlength=len(scores))


def chi_square_pvalue(counts, probabilities):
    """Pearson goodness of fit; cells with expectation < 5 are pooled into one."""
    expected = probabilities / probabilities.sum() * counts.sum()
    if counts[expected == 0].sum() > 0:
        return 0.0
    small = expected < 5
    observed = np.append(counts[~small], counts[small].sum())
    expected = np.append(expected[~small], expected[small].sum())
    if expected[-1] == 0:
        observed, expected = observed[:-1], expected[:-1]
    return stats.chisquare(observed, expected).pvalue


def literal_permute_and_flip(scores, eps, sensitivity, rng):
    """McKenna & Sheldon 2020, Alg. 1, verbatim: random order, flip a p_r-coin, first heads wins."""
    scores = np.asarray(scores, dtype=float)
    for r in rng.permutation(scores.size):
        if rng.random() <= math.exp(eps * (scores[r] - scores.max()) / (2 * sensitivity)):
            return int(r)
    raise AssertionError("the best candidate always accepts")


@functools.cache
def literal_counts(name):
    return sample(literal_permute_and_flip, -{"close": CLOSE, "spread": SPREAD}[name], 2.0, seed=4)


def enumerated_pf_probabilities(scores, eps):
    """Exact PF distribution by summing over all orders (tiny N only)."""
    p = np.exp(eps * (scores - scores.max()) / 2)
    result = np.zeros(len(scores))
    orders = list(itertools.permutations(range(len(scores))))
    for order in orders:
        reach = 1.0
        for r in order:
            result[r] += reach * p[r]
            reach *= 1 - p[r]
    return result / len(orders)


def laplace_rnm_probabilities(scores, eps):
    """P(argmax s_j + Lap(b) = r) = ∫ f(x − s_r) Π_{j≠r} F(x − s_j) dx, b = 2/ε (quadrature)."""
    b = 2 / eps

    def cdf(z):
        return np.where(z < 0, 0.5 * np.exp(np.minimum(z, 0) / b), 1 - 0.5 * np.exp(-np.abs(z) / b))

    def density(x, r):
        others = np.delete(scores, r)
        return math.exp(-abs(x - scores[r]) / b) / (2 * b) * np.prod(cdf(x - others))

    low, high = scores.min() - 40 * b, scores.max() + 40 * b  # e^-40 of the mass lies beyond
    return np.array([integrate.quad(density, low, high, args=(r,), points=scores, limit=200)[0]
                     for r in range(len(scores))])


def test_pf_formula_matches_enumeration_over_orders():
    scores = np.array([0.0, -0.4, -1.0, -1.0, -3.0, -0.1])
    exact = permute_and_flip_probabilities(scores, 1.3, 1.0)
    np.testing.assert_allclose(exact, enumerated_pf_probabilities(scores, 1.3), rtol=1e-12)


def test_pf_formula_is_a_distribution_for_many_candidates():
    rng = np.random.default_rng(1)
    probabilities = permute_and_flip_probabilities(rng.uniform(0, 1, 1001), 20.0, 1.0)
    assert probabilities.sum() == pytest.approx(1.0, abs=1e-10)
    assert np.all(probabilities > 0)


@pytest.mark.parametrize("gaps", [CLOSE, SPREAD], ids=["close", "spread"])
def test_literal_pf_matches_exact_formula(gaps):
    scores = -gaps
    counts = sample(literal_permute_and_flip, scores, 2.0, seed=2)
    assert chi_square_pvalue(counts, permute_and_flip_probabilities(scores, 2.0, 1.0)) > ALPHA


@pytest.mark.parametrize("tail_cut", [None, 0.0, 0.5, 1.5, 4.0, np.inf])
@pytest.mark.parametrize("gaps", [CLOSE, SPREAD], ids=["close", "spread"])
def test_fast_pf_matches_exact_formula_and_literal_sampler(gaps, tail_cut):
    scores = -gaps
    fast = sample(permute_and_flip, scores, 2.0, seed=3, tail_cut=tail_cut)
    exact = permute_and_flip_probabilities(scores, 2.0, 1.0)
    assert chi_square_pvalue(fast, exact) > ALPHA
    literal = literal_counts("close" if gaps is CLOSE else "spread")
    table = np.array([fast, literal])
    table = table[:, table.min(axis=0) >= 5]
    assert stats.chi2_contingency(table).pvalue > ALPHA


def test_fast_pf_tail_candidates_do_win():
    """With cut 0.5 every candidate but the best two is in the tail: all their wins come from the
    survivors of the bar (best head value + cut), and their frequencies match the formula."""
    scores = -SPREAD
    counts = sample(permute_and_flip, scores, 2.0, seed=5, tail_cut=0.5)
    exact = permute_and_flip_probabilities(scores, 2.0, 1.0)
    tail = np.abs(scores - scores.max()) > 0.5
    assert counts[tail].sum() > 0.1 * DRAWS
    assert counts[tail].sum() == pytest.approx(exact[tail].sum() * DRAWS, rel=0.03)


def test_fast_pf_with_pilot_cut_on_many_candidates():
    """N > 256 takes the pilot-chosen cut; group candidates by score to test the counts."""
    rng = np.random.default_rng(6)
    levels = np.array([0.0, -0.5, -1.5, -3.0, -6.0, -12.0])
    scores = np.repeat(levels, [1, 3, 20, 100, 400, 2000])
    scores = scores[rng.permutation(scores.size)]
    exact = permute_and_flip_probabilities(scores, 2.0, 1.0)
    counts = sample(permute_and_flip, scores, 2.0, seed=7, draws=4000)
    group = np.searchsorted(-levels, -scores)
    grouped_exact = np.bincount(group, weights=exact)
    assert chi_square_pvalue(np.bincount(group, weights=counts), grouped_exact) > ALPHA


@pytest.mark.parametrize("gaps", [CLOSE, SPREAD], ids=["close", "spread"])
def test_pf_test_has_power_against_doubled_eps(gaps):
    scores = -gaps
    wrong = sample(permute_and_flip, scores, 4.0, seed=8)
    assert chi_square_pvalue(wrong, permute_and_flip_probabilities(scores, 2.0, 1.0)) < 1e-6


def test_pf_test_has_power_against_exponential_mechanism():
    scores = -CLOSE
    counts = sample(exponential_mechanism, scores, 2.0, seed=9, draws=40_000)
    assert chi_square_pvalue(counts, permute_and_flip_probabilities(scores, 2.0, 1.0)) < 1e-6


@pytest.mark.parametrize("tail_cut", [None, 0.0, 2.5])
@pytest.mark.parametrize("gaps", [CLOSE, SPREAD], ids=["close", "spread"])
def test_exponential_mechanism_matches_softmax(gaps, tail_cut):
    scores = -gaps
    counts = sample(exponential_mechanism, scores, 2.0, seed=10, tail_cut=tail_cut)
    exact = exponential_mechanism_probabilities(scores, 2.0, 1.0)
    np.testing.assert_allclose(exact, np.exp(-gaps / 1.0) / np.exp(-gaps).sum())
    assert chi_square_pvalue(counts, exact) > ALPHA


def test_exponential_mechanism_test_has_power_against_doubled_eps():
    scores = -SPREAD
    wrong = sample(exponential_mechanism, scores, 4.0, seed=11)
    assert chi_square_pvalue(wrong, exponential_mechanism_probabilities(scores, 2.0, 1.0)) < 1e-6


def test_exponential_mechanism_with_pilot_cut_on_many_candidates():
    rng = np.random.default_rng(15)
    levels = np.array([0.0, -0.5, -1.5, -3.0, -6.0, -12.0])
    scores = np.repeat(levels, [1, 3, 20, 100, 400, 2000])
    scores = scores[rng.permutation(scores.size)]
    exact = exponential_mechanism_probabilities(scores, 2.0, 1.0)
    counts = sample(exponential_mechanism, scores, 2.0, seed=16, draws=4000)
    group = np.searchsorted(-levels, -scores)
    assert chi_square_pvalue(np.bincount(group, weights=counts),
                             np.bincount(group, weights=exact)) > ALPHA


@pytest.mark.parametrize("n, q", [(20, 0.3), (20, 1.0), (2_000_000_000, 5e-10)])
def test_tail_survivors_form_an_iid_bernoulli_process(n, q):
    """Both routes of the survivor draw (geometric gaps; tiny q: binomial count + uniform
    subset): each rank kept with probability q, independently, so counts are Binomial(n, q)."""
    rng = np.random.default_rng(17)
    draws = [bernoulli_ranks(n, q, rng) for _ in range(3000)]
    sizes = np.array([d.size for d in draws])
    assert all(np.all(np.diff(d) > 0) and (d.size == 0 or 0 <= d[0] and d[-1] < n) for d in draws)
    if q == 1:
        assert np.all(sizes == n)
        return
    support = np.arange(sizes.max() + 1)
    probabilities = stats.binom(n, q).pmf(support)
    probabilities[-1] += stats.binom(n, q).sf(support[-1])
    assert chi_square_pvalue(np.bincount(sizes), probabilities) > ALPHA
    positions = np.concatenate(draws)
    if n <= 1000:
        uniform = np.full(n, 1 / n)
        assert chi_square_pvalue(np.bincount(positions, minlength=n), uniform) > ALPHA
    else:
        assert stats.kstest(positions / n, "uniform").pvalue > ALPHA


def test_report_noisy_max_uses_laplace_scale_two_delta_over_eps():
    scores = -CLOSE
    exact = laplace_rnm_probabilities(scores, 2.0)
    assert exact.sum() == pytest.approx(1.0, abs=1e-9)
    assert chi_square_pvalue(sample(report_noisy_max, scores, 2.0, seed=12), exact) > ALPHA
    assert chi_square_pvalue(sample(report_noisy_max, scores, 4.0, seed=13), exact) < 1e-6


def test_neg_inf_candidates_are_never_selected():
    scores = np.array([-np.inf, 0.0, -0.5, -np.inf])
    for mechanism in (permute_and_flip, exponential_mechanism, report_noisy_max):
        counts = sample(mechanism, scores, 2.0, draws=2000, seed=14)
        assert counts[[0, 3]].sum() == 0
    assert permute_and_flip_probabilities(scores, 2.0, 1.0)[[0, 3]].sum() == 0


def test_selection_scales_with_sensitivity():
    """Only ε/Δ matters: scores·10 with Δ = 10 give the same exact distribution."""
    scores = -SPREAD
    np.testing.assert_allclose(permute_and_flip_probabilities(scores * 10, 2.0, 10.0),
                               permute_and_flip_probabilities(scores, 2.0, 1.0))


@pytest.mark.parametrize("call, error", [
    (lambda rng: permute_and_flip([0.0, 1.0], 0.0, 1.0, rng), ValueError),
    (lambda rng: permute_and_flip([0.0, np.nan], 1.0, 1.0, rng), ValueError),
    (lambda rng: permute_and_flip([], 1.0, 1.0, rng), ValueError),
    (lambda rng: permute_and_flip([[0.0, 1.0]], 1.0, 1.0, rng), ValueError),
    (lambda rng: permute_and_flip([0.0, 1.0], 1.0, -1.0, rng), ValueError),
    (lambda rng: permute_and_flip([0.0, 1.0], 1.0, 1.0, rng, tail_cut=-1), ValueError),
    (lambda rng: exponential_mechanism([0.0, np.inf], 1.0, 1.0, rng), ValueError),
    (lambda rng: report_noisy_max([0.0, 1.0], 1.0, 1.0, None), TypeError),
    (lambda rng: exponential_mechanism([0.0, 1.0], 1.0, 1.0, np.random.RandomState(0)),
     TypeError),
])
def test_bad_input_raises_one_line_error(call, error):
    with pytest.raises(error) as err:
        call(np.random.default_rng(0))
    assert "\n" not in str(err.value) and ";" in str(err.value)


@pytest.mark.parametrize("mechanism, exact_law", [
    (permute_and_flip, permute_and_flip_probabilities),
    (exponential_mechanism, exponential_mechanism_probabilities),
], ids=["pf", "em"])
def test_default_path_at_pmwpub_scale(mechanism, exact_law):
    """ADULT-like setting (ε0 = 0.012, Δ = 1/43944, scores on [0, 0.3]) on 3000 candidates: the
    pilot-chosen cut and the tail survivors are exercised; candidates are grouped by score rank."""
    rng = np.random.default_rng(18)
    scores = rng.uniform(0.0, 0.3, 3000)
    eps0, delta = 0.012, 1 / 43944
    exact = exact_law(scores, eps0, delta)
    draw_rng = np.random.default_rng(19)
    picks = np.array([mechanism(scores, eps0, delta, draw_rng) for _ in range(4000)])
    group = np.minimum(np.argsort(np.argsort(-scores)) // 10, 30)  # 30 top groups + the rest
    counts = np.bincount(group[picks], minlength=31)
    assert chi_square_pvalue(counts, np.bincount(group, weights=exact, minlength=31)) > ALPHA
