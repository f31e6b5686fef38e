"""The compiled selection path against the same algorithm written with numpy: same winner, and
the same random draws consumed (the generator's state after the call is identical)."""
import math

import numpy as np
import pytest

from pubpriv_core.privacy import exponential_mechanism, permute_and_flip
from pubpriv_core.privacy.noisy_max import EXPONENTIAL, GUMBEL

PILOT = 256
SURVIVOR_COST = 6.0
TINY_SURVIVAL = 1e-9


def numpy_cut(scores, best, scale, rng):
    """The pilot cut heuristic: a pilot of 256 random candidates, the cost of each of their
    gaps below the cap as a cut, the cheapest (the cap when N ≤ 256, no draw)."""
    cap = max(1.0, math.log(scores.size))
    if scores.size <= PILOT:
        return cap
    pilot = rng.integers(scores.size, size=PILOT)
    gaps = np.sort(scale * (best - scores[pilot]))
    gaps = np.append(gaps[gaps < cap], cap)
    weight = scores.size / PILOT
    head_mass = 1.0 + weight * np.cumsum(np.exp(-gaps))
    cost = weight * np.arange(1, gaps.size + 1) + \
        SURVIVOR_COST * scores.size * np.exp(-gaps) / head_mass
    return float(gaps[np.argmin(cost)])


def numpy_ranks(n, q, rng):
    """Bernoulli(q) ranks below n: partial sums of geometric gaps, drawn in batches."""
    if q >= 1:
        return np.arange(n)
    if q < TINY_SURVIVAL:
        k = rng.binomial(n, q)
        return np.sort(rng.choice(n, size=k, replace=False)) if k else np.empty(0, np.int64)
    batch = int(n * q + 4 * math.sqrt(n * q) + 8)
    ranks = np.cumsum(rng.geometric(q, size=batch)) - 1
    while ranks[-1] < n:
        ranks = np.concatenate([ranks, ranks[-1] + np.cumsum(rng.geometric(q, size=batch))])
    return ranks[:np.searchsorted(ranks, n)]


def numpy_noisy_argmax(scores, eps, sensitivity, law, rng, tail_cut=None, ties=None):
    """Noisy max by the head/tail split, every step a numpy expression."""
    scores = np.asarray(scores, dtype=float)
    best, scale, n = float(scores.max()), eps / (2.0 * sensitivity), scores.size
    cut = numpy_cut(scores, best, scale, rng) if tail_cut is None else float(tail_cut)
    head = np.flatnonzero(scores >= best - cut / scale)
    head_values = scale * (scores[head] - best) + law.draw(rng, head.size)
    bar = float(head_values.max()) + cut
    ranks = numpy_ranks(n - head.size, law.survival(bar), rng) if n > head.size else \
        np.empty(0, np.int64)
    survivors = ranks + np.searchsorted(head - np.arange(head.size), ranks, side="right")
    tail_values = scale * (scores[survivors] - best) + law.above(rng, bar, survivors.size)
    values = np.concatenate([head_values, tail_values])
    winner = int(np.concatenate([head, survivors])[np.argmax(values)])
    if ties is None:
        return winner
    tie_values, counts = np.asarray(ties[0], dtype=float), np.asarray(ties[1], dtype=np.int64)
    group_values = scale * (tie_values - best) + law.group_max(rng, counts.astype(float))
    g = int(np.argmax(group_values))
    if group_values[g] <= values.max():
        return winner
    return n + int(counts[:g].sum()) + int(rng.integers(counts[g]))


def random_scores(rng):
    """Score vectors with ties, -inf entries and spreads from tiny to huge against the scale."""
    n = int(rng.choice([1, 2, 7, 256, 257, 3000, 40_000]))
    kind = rng.integers(4)
    if kind == 0:        # few distinct values: many exact ties
        scores = rng.integers(0, 5, n) / 4.0
    elif kind == 1:      # continuous, skewed towards 0
        scores = rng.random(n) ** float(rng.integers(1, 8))
    elif kind == 2:      # all equal
        scores = np.full(n, float(rng.random()))
    else:                # spread over many orders of magnitude
        scores = rng.random(n) * 10.0 ** rng.integers(-12, 3, n)
    if n > 1 and rng.random() < 0.5:
        scores[rng.integers(n, size=max(1, n // 10))] = -np.inf
        scores[rng.integers(n)] = 0.5
    return scores


CASES = [(seed, mechanism) for seed in range(150) for mechanism in ("pf", "em")]


@pytest.mark.parametrize("seed, mechanism", CASES)
def test_fused_path_equals_numpy_path(seed, mechanism):
    rng = np.random.default_rng(seed)
    scores = random_scores(rng)
    eps = float(10.0 ** rng.uniform(-3, 3))
    sensitivity = float(10.0 ** rng.uniform(-6, 1))
    tail_cut = None if rng.random() < 0.7 else float(rng.choice([0.0, 0.5, 3.0, 40.0]))
    ties = None
    if rng.random() < 0.5:
        groups = int(rng.integers(1, 60))
        ties = (np.sort(rng.random(groups) * scores[np.isfinite(scores)].max()),
                rng.integers(1, 10 ** int(rng.integers(1, 7)), groups))
    fused, law = (permute_and_flip, EXPONENTIAL) if mechanism == "pf" else \
        (exponential_mechanism, GUMBEL)
    for draw in range(5):
        mine, theirs = np.random.default_rng([seed, draw]), np.random.default_rng([seed, draw])
        got = fused(scores, eps, sensitivity, mine, tail_cut=tail_cut, ties=ties)
        expected = numpy_noisy_argmax(scores, eps, sensitivity, law, theirs, tail_cut, ties)
        assert got == expected
        assert mine.bit_generator.state == theirs.bit_generator.state


@pytest.mark.parametrize("q", [1.0, 0.7, 0.3, 1e-3, 1e-8, 1e-12, 1e-300])
def test_tail_ranks_equal_numpy_ranks(q):
    """Survival probabilities on every branch of the rank sampler (all kept, geometric gaps in
    one or several batches, counted by a binomial)."""
    from pubpriv_core.privacy.noisy_max import bernoulli_ranks

    for seed in range(20):
        n = int(np.random.default_rng(seed).integers(1, 10 ** 6))
        mine, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
        np.testing.assert_array_equal(bernoulli_ranks(n, q, mine), numpy_ranks(n, q, theirs))
        assert mine.bit_generator.state == theirs.bit_generator.state


def test_scores_at_pmwpub_scale_equal_numpy_path():
    """ADULT-like round: 47K present scores on [0, 0.04], ε0 = 0.012, Δ = 1/43944 (the pilot
    cut, a head of hundreds and the tail survivors all exercised), with 50 tied groups."""
    rng = np.random.default_rng(7)
    scores = 0.04 * rng.random(47_000) ** 3
    ties = (np.sort(rng.random(50) * 0.03), rng.integers(1, 20_000, 50))
    for draw in range(200):
        mine, theirs = np.random.default_rng(draw), np.random.default_rng(draw)
        assert permute_and_flip(scores, 0.012, 1 / 43944, mine, ties=ties) == \
            numpy_noisy_argmax(scores, 0.012, 1 / 43944, EXPONENTIAL, theirs, ties=ties)
        assert mine.bit_generator.state == theirs.bit_generator.state


def test_ranks_below_continue_a_previous_batch():
    """The compiled partial sums that stay below n, started from the last sum of a batch (the
    rare case of a geometric batch that does not reach n)."""
    from pubpriv_core.privacy.noisy_max import _ranks_below

    rng = np.random.default_rng(3)
    for start, n in [(-1, 50), (40, 50), (10, 10**6), (99, 100)]:
        gaps = rng.geometric(0.3, size=int(rng.integers(1, 40)))
        sums = start + np.cumsum(gaps)
        ranks, last = _ranks_below(gaps, start, n)
        np.testing.assert_array_equal(ranks, sums[sums < n])
        assert last == sums[-1]


def same_state(a, b):
    """Equal bit generator states (MT19937's holds an array)."""
    def flat(state):
        return {k: (flat(v) if isinstance(v, dict) else np.asarray(v).tolist())
                for k, v in state.items()}
    return flat(a.bit_generator.state) == flat(b.bit_generator.state)


@pytest.mark.parametrize("bits", [np.random.PCG64, np.random.MT19937, np.random.Philox])
def test_uniform_integers_are_numpys(bits):
    """Same numbers and same state as Generator.integers, across the ranges where numpy draws
    32-bit (with heavy rejection near 2^32), the no-draw range n = 1, 64-bit ranges, and after an
    odd number of 32-bit draws (PCG64 keeps half an output buffered)."""
    from pubpriv_core.privacy.uniform_integers import uniform_integers

    for seed, n in enumerate([1, 2, 3, 257, 47_044, 2**31 + 1, 3 * 2**30 + 7, 2**32 - 1,
                              2**32, 2**40 + 3]):
        mine, theirs = (np.random.Generator(bits(seed)) for _ in range(2))
        for size in (1, 3, 256, 1000):
            np.testing.assert_array_equal(uniform_integers(mine, n, size),
                                          theirs.integers(n, size=size))
            assert same_state(mine, theirs)
            assert mine.integers(2**20) == theirs.integers(2**20)    # leaves half a word
