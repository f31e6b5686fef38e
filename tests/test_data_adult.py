"""ADULT preprocessing (Liu et al. 2021, §5.2; spec liu2021_pmwpub.md §4)."""
import math

import numpy as np
import pandas as pd
import pytest

from pubpriv_core.data import adult

SIZES = {"age_10": 10, "workclass": 9, "education-num": 16, "marital-status": 7,
         "occupation": 15, "relationship": 6, "race": 5, "sex": 2, "capital-gain": 16,
         "capital-loss": 6, "hours-per-week": 10, "native-country": 42, "income>50K": 2}


@pytest.fixture(scope="module")
def data(adult):
    return adult


def test_domain_sizes_sum_and_product(data):
    assert data.domain.config == SIZES
    assert sum(data.domain.shape) == 146
    assert data.domain.size() == math.prod(SIZES.values()) == 731_566_080_000


def test_rows_after_duplicate_removal(data):
    assert len(data) == 48_790  # 32,561 + 16,281 raw rows, 52 exact duplicates


def test_first_raw_row_encoding(data):
    # 39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White,
    # Male, 2174, 0, 40, United-States, <=50K
    assert data.records[0].tolist() == [3, 7, 12, 4, 1, 1, 4, 1, 3, 0, 4, 39, 0]


def test_sex_and_income_codes(data):
    female = data.column("sex") == 0
    assert 0.32 < female.mean() < 0.34  # r ≈ 0.33 (spec §4)
    assert 0.23 < data.column("income>50K").mean() < 0.25  # test labels lost their "."


def test_encode_bins_by_hand():
    gains = [0, 1, 999, 1000, 9999, 10000, 14999, 15000, 19999, 20000, 29999, 30000, 49999,
             50000, 99999]
    losses = [0, 1, 999, 1000, 4356] + [0] * 10
    raw = pd.DataFrame({
        "age": [17, 90] + [39] * 13, "workclass": ["?", "Without-pay"] + ["Private"] * 13,
        "fnlwgt": 1, "education": "x", "education-num": [1, 16] + [9] * 13,
        "marital-status": "Divorced", "occupation": "?", "relationship": "Wife",
        "race": "Black", "sex": ["Female", "Male"] + ["Female"] * 13, "capital-gain": gains,
        "capital-loss": losses, "hours-per-week": [1, 99] + [40] * 13,
        "native-country": "Vietnam", "income>50K": [">50K"] + ["<=50K"] * 14})
    d = adult.encode(raw)
    assert d.column("capital-gain").tolist() == [0, 1, 1, 2, 10, 11, 11, 12, 12, 13, 13, 14, 14,
                                                 15, 15]
    assert d.column("capital-loss")[:5].tolist() == [0, 1, 1, 2, 5]
    assert d.column("age_10")[:2].tolist() == [1, 9]
    assert d.column("hours-per-week")[:2].tolist() == [0, 9]
    assert d.column("education-num")[:2].tolist() == [0, 15]
    assert d.column("workclass")[:2].tolist() == [0, 8]  # "?" first, "Without-pay" last
    assert d.column("sex")[:2].tolist() == [0, 1]
    assert d.column("income>50K")[:2].tolist() == [1, 0]
    assert set(d.column("native-country")) == {40}


def test_unknown_category_is_rejected():
    raw = pd.DataFrame({c: [0] for c in adult.RAW_COLUMNS})
    for name, values in adult.CATEGORIES.items():
        raw[name] = values[0]
    raw["race"] = "Martian"
    with pytest.raises(ValueError, match="'race' has unknown value 'Martian'"):
        adult.encode(raw)


def test_capital_loss_out_of_bins_is_rejected():
    with pytest.raises(ValueError, match="capital-loss"):
        adult._capital_loss(np.array([0, 5000]))
