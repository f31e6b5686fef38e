"""Public sources of Liu et al. 2021 §5.2 and the load_dataset cache (pubpriv_core.data)."""

import numpy as np
import pytest

from pubpriv_core.data import (PublicSource, biased, fraction, from_dataset, load_dataset, paths,
                               resample, uniform_weights)
from pubpriv_core.data.domain import Dataset, Domain



def test_from_dataset_support_and_weights():
    dom = Domain(["a", "b"], [2, 3])
    rows = np.array([[0, 1], [1, 2], [0, 1], [0, 1], [1, 0]])
    source = from_dataset(Dataset(rows, dom), origin="toy")
    assert source.support.records.tolist() == [[0, 1], [1, 0], [1, 2]]
    assert source.weights.tolist() == [0.6, 0.2, 0.2]
    assert source.n_rows == 5 and source.params == {"kind": "dataset", "origin": "toy"}
    assert sorted(source.rows().records.tolist()) == sorted(rows.tolist())
    assert uniform_weights(source.support).tolist() == [1 / 3] * 3


def test_resample_sizes(adult):
    n = len(adult)
    private, source = resample(adult, np.random.default_rng(0))
    assert len(private) == round(0.9 * n) == 43_911
    assert source.n_rows == round(0.1 * n) == 4_879
    assert len(source.support) < source.n_rows and np.isclose(source.weights.sum(), 1)
    assert private.domain == source.support.domain == adult.domain


@pytest.mark.parametrize("delta", [-0.2, 0.0, 0.1, 0.45, 0.65])
def test_biased_shifts_female_share(adult, delta):
    r = float(np.mean(adult.column("sex") == 0))
    split = biased(adult, np.random.default_rng(1), delta=delta)
    public = split.public.rows()
    share = float(np.mean(public.column("sex") == 0))
    m = split.public.n_rows
    assert abs(share - (r + delta)) < 4 * np.sqrt((r + delta) * (1 - r - delta) / m)
    assert len(split.private) == round(0.9 * len(adult))
    assert split.public.params["share"] == pytest.approx(r)


def test_biased_rejects_impossible_probability(adult):
    with pytest.raises(ValueError, match=r"outside \[0, 1\]; choose delta in \[-0.33"):
        biased(adult, np.random.default_rng(0), delta=0.7)
    with pytest.raises(ValueError, match="outside"):
        biased(adult, np.random.default_rng(0), delta=-0.4)


def test_biased_within_group_sampling_on_synthetic():
    data = load_dataset("synthetic", preset="small", seed=2)
    split = biased(data, np.random.default_rng(3), delta=0.0, attribute="a0", value=1,
                   private_share=0.5, public_share=0.5)
    assert len(split.private) == split.public.n_rows == 5_000
    with pytest.raises(ValueError, match="no rows with a0 = 7"):
        biased(data, np.random.default_rng(3), delta=0.5, attribute="a0", value=7)


def test_fraction_keeps_p_of_rows_without_replacement():
    data = load_dataset("synthetic", preset="small", seed=1, role="public")
    rng = np.random.default_rng(4)
    for p, expected in ((1.0, 10_000), (0.1, 1_000), (0.01, 100), (0.001, 10), (1e-6, 1)):
        source = fraction(data, p, rng)
        assert source.n_rows == expected
    whole = from_dataset(data)
    part = fraction(whole, 0.3, rng)
    assert part.n_rows == 3_000 and part.params["parent"]["kind"] == "dataset"
    counts = dict(zip(map(tuple, whole.support.records), np.rint(whole.weights * 10_000)))
    for row, w in zip(map(tuple, part.support.records), part.weights):
        assert w * 3_000 <= counts[row] + 1e-9  # never more copies than the data holds
    with pytest.raises(ValueError, match=r"must be in \(0, 1\]"):
        fraction(data, 0.0, rng)


def test_builders_are_reproducible():
    data = load_dataset("synthetic", preset="tiny")
    a = resample(data, np.random.default_rng(9))
    b = resample(data, np.random.default_rng(9))
    assert (a.private.records == b.private.records).all()
    assert (a.public.support.records == b.public.support.records).all()


def test_public_source_validates_weights():
    dom = Domain(["a"], [2])
    with pytest.raises(ValueError, match="sum to 1"):
        PublicSource(Dataset(np.array([[0], [1]]), dom), np.array([0.5, 0.6]), 2)


def test_load_dataset_cache_and_errors(tmp_path):
    first = load_dataset("synthetic", preset="tiny", seed=3)
    assert load_dataset("synthetic", seed=3, preset="tiny") is first
    assert not first.records.flags.writeable
    paths.set_data_root(tmp_path)
    try:
        assert load_dataset("synthetic", preset="tiny", seed=3) is not first  # root is in the key
    finally:
        paths.set_data_root(None)
    with pytest.raises(ValueError, match="unknown dataset 'census'; choose one of synthetic, "
                                         "adult, nist_acs, acs"):
        load_dataset("census")
    with pytest.raises(ValueError, match="'adult' has no option 'year'; valid options: none"):
        load_dataset("adult", year=2018)
