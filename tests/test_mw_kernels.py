"""The compiled MW and selection steps against the numpy expressions they replace: same bits."""
import math

import numpy as np
import pytest

from pubpriv_core.algorithms import mw_kernels
from pubpriv_core.privacy import noisy_max


@pytest.mark.parametrize("seed", range(4))
def test_pairwise_sum_is_numpys_sum(seed):
    rng = np.random.default_rng(seed)
    u = rng.random(5000) * 10.0 ** rng.integers(-8, 8, 5000)
    for size in list(range(0, 140)) + [255, 256, 257, 1000, 1023, 4999]:
        rows = np.sort(rng.choice(u.size, size=size, replace=False))
        assert 0.0 + mw_kernels._pairwise_sum(u, rows, 0, size) == u[rows].sum()


def numpy_updates(u, pending, touched, blocks, measurements, Z, bound, limit):
    """The MW update written with numpy, one query at a time."""
    for rows, a in zip(blocks, measurements):
        block = u[rows]
        mass = float(block.sum())
        factor = math.exp((a - mass / Z) / 2.0)
        Z += mass * (factor - 1.0)
        if bound <= limit:
            bound += block.size
            pending[rows] += block * (factor - 1.0)
            touched[rows] = True
        u[rows] = block * factor
    return Z, bound


@pytest.mark.parametrize("limit", [0, 50, 10 ** 9])
def test_apply_updates_matches_numpy_updates(limit):
    rng = np.random.default_rng(limit)
    size = 3000
    blocks = [np.sort(rng.choice(size, size=int(k), replace=False))
              for k in rng.integers(1, 700, 25)] + [np.empty(0, dtype=np.int64)]
    measurements = rng.random(len(blocks))
    states = []
    for apply in ("numpy", "kernel"):
        u = rng.random(size) if apply == "numpy" else states[0][0].copy()
        state = [u, np.zeros(size), np.zeros(size, dtype=bool)]
        if apply == "numpy":
            states.append([u.copy(), *state[1:]])
            Z, bound = numpy_updates(*state, blocks, measurements, float(u.sum()), 0, limit)
        else:
            starts = np.concatenate([[0], np.cumsum([b.size for b in blocks])])
            order = rng.permutation(len(blocks))     # spans of a shared buffer, any order
            shuffled = np.concatenate([blocks[j] for j in order]).astype(np.int64)
            at = np.empty(len(blocks), dtype=np.int64)
            at[order] = np.concatenate([[0], np.cumsum([blocks[j].size for j in order])])[:-1]
            sizes = np.diff(starts)
            Z, bound = mw_kernels.apply_updates(*state, shuffled, at, at + sizes,
                                                measurements, float(u.sum()), 0, limit)
        states.append([*state, Z, bound])
    _, expected, got = states
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a, b)


def test_answer_gaps_match_numpy():
    rng = np.random.default_rng(1)
    y, targets, out = rng.random(1000) * 3, rng.random(1000), np.empty(1000)
    mw_kernels.answer_gaps(y, 2.7, targets, out)
    np.testing.assert_array_equal(out, np.abs(y / 2.7 - targets))


def numpy_cut(scores, pilot, best, scale, cap):
    """The cut heuristic written with numpy."""
    gaps = np.sort(scale * (best - scores[pilot]))
    gaps = np.append(gaps[gaps < cap], cap)
    weight = scores.size / pilot.size
    head_mass = 1.0 + weight * np.cumsum(np.exp(-gaps))
    cost = weight * np.arange(1, gaps.size + 1) + \
        noisy_max._SURVIVOR_COST * scores.size * np.exp(-gaps) / head_mass
    return float(gaps[np.argmin(cost)])


@pytest.mark.parametrize("seed", range(20))
def test_pilot_cut_matches_numpy(seed):
    rng = np.random.default_rng(seed)
    scores = rng.random(int(rng.integers(300, 5000))) ** int(rng.integers(1, 8))
    scale, cap = float(rng.uniform(1, 3000)), max(1.0, math.log(scores.size))
    pilot = rng.integers(scores.size, size=256)
    best = float(scores.max())
    assert noisy_max._pilot_cut(scores, pilot, best, scale, cap) == \
        numpy_cut(scores, pilot, best, scale, cap)


@pytest.mark.parametrize("seed", range(10))
def test_tail_indices_and_best_group_match_numpy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 3000))
    head = np.sort(rng.choice(n, size=int(rng.integers(1, n + 1)), replace=False))
    ranks = np.sort(rng.choice(n - head.size + 1, size=min(20, n - head.size + 1),
                               replace=False))[:max(0, n - head.size)]
    np.testing.assert_array_equal(
        noisy_max._tail_indices(head, ranks),
        ranks + np.searchsorted(head - np.arange(head.size), ranks, side="right"))
    values, noise = rng.random(int(rng.integers(1, 60))), rng.standard_exponential(60)
    noise = noise[:values.size]
    expected = 7.5 * (values - 0.9) + noise
    g, top = noisy_max._best_group(values, 0.9, 7.5, noise)
    assert (g, top) == (int(np.argmax(expected)), expected.max())


@pytest.mark.parametrize("limit", [0, 10 ** 9])
def test_update_many_equals_updates_one_by_one(limit):
    """One compiled call over the spans of the rows buffer (queries met for the first time,
    twice in one call, and again later) gives the bits of MWState.update applied in turn."""
    from pubpriv_core.algorithms.multiplicative_weights import MWState
    from pubpriv_core.data.domain import Domain
    from pubpriv_core.queries import MarginalWorkload, SupportAnswerer

    rng = np.random.default_rng(limit)
    domain = Domain(list("abcde"), [3, 4, 2, 5, 3])
    workload = MarginalWorkload.random(domain, 2, 6, 1)
    records = np.unique(np.column_stack([rng.integers(0, s, 300) for s in domain.shape]), axis=0)
    answerer = SupportAnswerer(workload, records, present_only=True)
    answerer.incremental_limit = limit
    init = rng.random(answerer.size)
    batched, single = MWState(answerer, init), MWState(answerer, init)
    for _ in range(6):
        queries = rng.choice(answerer.num_queries, 5)
        queries[1] = queries[0]
        measurements = rng.random(queries.size)
        assert batched.update_many(queries, measurements) == queries.size
        for q, a in zip(queries, measurements):
            single.update(int(q), float(a))
        np.testing.assert_array_equal(batched.u, single.u)
        assert batched.Z == single.Z
        np.testing.assert_array_equal(batched.answers(), single.answers())


@pytest.mark.parametrize("seed", range(5))
def test_far_measurements_match_numpy(seed):
    rng = np.random.default_rng(seed)
    y, Z = rng.random(500) * 4, float(rng.uniform(0.5, 4))
    queries = rng.integers(500, size=int(rng.integers(0, 60)))
    measured = np.round(rng.random(queries.size), 2)
    measured[::3] = y[queries[::3]] / Z + 0.125           # gaps exactly at the threshold
    for threshold in (0.0, 0.125, float(rng.random()), 2.0):
        np.testing.assert_array_equal(
            mw_kernels.far_measurements(y, Z, queries, measured, threshold),
            np.flatnonzero(np.abs(y[queries] / Z - measured) >= threshold))
