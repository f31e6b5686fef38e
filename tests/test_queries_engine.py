"""The answer engine against brute-force pandas group-bys on random data."""
import itertools
import math

import numpy as np
import pytest

from pubpriv_core.data.domain import Dataset, Domain
from pubpriv_core.queries import (MarginalWorkload, SupportAnswerer, answer_dataset,
                                  answer_histogram, choose_marginals, error_summary)


@pytest.fixture
def random_data():
    rng = np.random.default_rng(7)
    domain = Domain(["a", "b", "c", "d", "e"], [3, 2, 4, 5, 2])
    records = np.column_stack([rng.integers(0, s, 500) for s in domain.shape])
    return Dataset(records, domain)


def brute_force(data: Dataset, workload: MarginalWorkload, weights=None) -> np.ndarray:
    """Answers by pandas group-by over every cell (in the engine's cell order)."""
    df = data.to_dataframe()
    df["w"] = np.full(len(df), 1 / len(df)) if weights is None else weights
    out = []
    for w in range(workload.num_marginals):
        names = list(workload.attribute_names(w))
        sums = df.groupby(names)["w"].sum()
        for cell in itertools.product(*[range(data.domain[n]) for n in names]):
            out.append(sums.get(cell if len(cell) > 1 else cell[0], 0.0))
    return np.array(out)


def test_choose_marginals_all_and_sampled():
    assert len(choose_marginals(13, 3, None, 0)) == math.comb(13, 3)
    sets = choose_marginals(13, 3, 256, seed=1)
    assert len(set(sets)) == 256 and all(len(s) == 3 and list(s) == sorted(s) for s in sets)
    assert sets == choose_marginals(13, 3, 256, seed=1)
    assert sets != choose_marginals(13, 3, 256, seed=2)


def test_bad_workload_sizes_are_refused():
    with pytest.raises(ValueError, match="k=6"):
        choose_marginals(5, 6, None, 0)
    with pytest.raises(ValueError, match="W=11"):
        choose_marginals(5, 3, 11, 0)


def test_dataset_answers_match_groupby(random_data):
    for k in (1, 2, 3):
        wl = MarginalWorkload.random(random_data.domain, k)
        np.testing.assert_allclose(answer_dataset(wl, random_data), brute_force(random_data, wl))


def test_support_weights_match_groupby(random_data):
    wl = MarginalWorkload.random(random_data.domain, 3, size=6, seed=3)
    weights = np.random.default_rng(1).random(len(random_data))
    expected = brute_force(random_data, wl, weights)
    np.testing.assert_allclose(SupportAnswerer(wl, random_data.records).answer(weights), expected)


def test_histogram_answers_match_dataset(random_data):
    wl = MarginalWorkload.random(random_data.domain, 2)
    hist = np.zeros(random_data.domain.shape)
    np.add.at(hist, tuple(random_data.records.T), 1 / len(random_data))
    np.testing.assert_allclose(answer_histogram(wl, hist), answer_dataset(wl, random_data))


def test_indicator_and_decode_agree(random_data):
    wl = MarginalWorkload.random(random_data.domain, 2, size=4, seed=0)
    df = random_data.to_dataframe()
    for q in range(0, wl.num_queries, 5):
        cell = wl.decode(q)
        expected = np.logical_and.reduce([df[a].to_numpy() == v for a, v in cell.items()])
        np.testing.assert_array_equal(wl.indicator(q, random_data.records), expected)
        eng = SupportAnswerer(wl, random_data.records)
        np.testing.assert_array_equal(eng.rows_of(q), np.flatnonzero(expected))


def test_error_summary():
    errs = error_summary(np.array([0.1, 0.5, 0.2]), np.array([0.1, 0.2, 0.3]))
    assert errs["max_error"] == pytest.approx(0.3)
    assert errs["mean_error"] == pytest.approx(0.4 / 3)
    assert errs["rmse"] == pytest.approx(np.sqrt(0.1 / 3))


def test_present_only_answerer_keeps_the_satisfiable_queries(random_data):
    wl = MarginalWorkload.random(random_data.domain, 3, size=5, seed=1)
    support = random_data.records[:40]
    full = SupportAnswerer(wl, support)
    compact = SupportAnswerer(wl, support, present_only=True)
    weights = np.random.default_rng(4).random(len(support))
    answers = full.answer(weights)
    np.testing.assert_array_equal(compact.queries, np.flatnonzero(answers > 0))
    np.testing.assert_allclose(compact.answer(weights), answers[compact.queries])
    np.testing.assert_allclose(compact.expand(compact.answer(weights)), answers)
    for own in (0, compact.num_queries // 2, compact.num_queries - 1):
        np.testing.assert_array_equal(compact.rows_of(own), full.rows_of(int(compact.queries[own])))
