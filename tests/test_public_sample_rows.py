"""Which rows enter each sample of the public-source builders (:mod:`pubpriv_core.data.public`).

The dataset here has one attribute per row id (plus a group attribute), so every sampled row can
be traced to the data row it copies. The paper's design draws both samples from all N rows: the
public sample must reach rows the private sample does not hold, at the rate of independent draws
(a public row is a private record with probability 1 − (1 − 1/N)^{0.9N} ≈ 1 − e^{−0.9}); the
disjoint design shares no row at all. A builder that drew the public rows from the private sample
(every public row a private record) fails both."""
from __future__ import annotations

import math

import numpy as np
import pytest

from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.data.public import biased, resample

N = 20_000


@pytest.fixture(scope="module")
def traced() -> Dataset:
    """N rows: ``id`` (split as hi·200 + lo) and ``g``, the group (0 for the first 30%)."""
    ids = np.arange(N)
    domain = Domain(["hi", "lo", "g"], [N // 200, 200, 2])
    return Dataset(np.column_stack([ids // 200, ids % 200, (ids >= 0.3 * N).astype(int)]),
                   domain)


def row_ids(records: np.ndarray) -> np.ndarray:
    return records[:, 0] * 200 + records[:, 1]


def public_ids(split) -> np.ndarray:
    """The id of every public row (support rows repeated by their weights)."""
    return row_ids(split.public.rows().records)


def shared_share(split) -> float:
    """The share of public rows that are private records."""
    private = set(row_ids(split.private.records).tolist())
    return float(np.mean([i in private for i in public_ids(split)]))


PAPER_SHARE = 1 - math.exp(-0.9)      # ≈ 0.593


def test_resample_draws_both_samples_from_all_rows(traced):
    split = resample(traced, np.random.default_rng(0))
    assert len(split.private) == 0.9 * N and split.public.n_rows == 0.1 * N
    assert shared_share(split) == pytest.approx(PAPER_SHARE, abs=0.03)
    private = row_ids(split.private.records)
    assert len(np.unique(private)) / N == pytest.approx(PAPER_SHARE, abs=0.01)


def test_disjoint_resample_shares_no_row(traced):
    split = resample(traced, np.random.default_rng(0), disjoint=True)
    assert shared_share(split) == 0.0
    assert len(np.unique(row_ids(split.private.records))) / (0.9 * N) == pytest.approx(
        1 - math.exp(-1.0), abs=0.01)     # 0.9N draws from its own 0.9N rows


def test_biased_draws_from_all_rows_at_the_group_rate(traced):
    split = biased(traced, np.random.default_rng(1), delta=0.2, attribute="g", value=0)
    public = split.public.rows().records
    assert float(np.mean(public[:, 2] == 0)) == pytest.approx(0.5, abs=0.03)
    assert shared_share(split) == pytest.approx(PAPER_SHARE, abs=0.03)


def test_disjoint_biased_shares_no_row_and_keeps_the_rate(traced):
    split = biased(traced, np.random.default_rng(1), delta=0.2, attribute="g", value=0,
                   disjoint=True)
    public = split.public.rows().records
    assert float(np.mean(public[:, 2] == 0)) == pytest.approx(0.5, abs=0.03)
    assert shared_share(split) == 0.0


def test_the_default_design_draws_what_it_drew_before(traced):
    """``disjoint=False`` takes no extra draw: the split equals the plain with-replacement
    draws of the generator (private first, then public)."""
    split = resample(traced, np.random.default_rng(7))
    rng = np.random.default_rng(7)
    np.testing.assert_array_equal(row_ids(split.private.records), rng.integers(0, N, 18_000))
    expected = np.sort(rng.integers(0, N, 2_000))
    np.testing.assert_array_equal(np.sort(public_ids(split)), expected)
