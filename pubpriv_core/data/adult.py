"""UCI ADULT as in Liu et al. 2021, §5.2: 13 attributes, one-hot dimension 146, |X| ≈ 7.32e11.

Preprocessing (spec ``liu2021_pmwpub.md`` §4): read ``adult.data`` and ``adult.test`` (skip the
test file's first line, strip the trailing "." of its labels), concatenate, drop exact duplicate
rows over all 15 raw columns (``fnlwgt`` included), drop ``fnlwgt`` (a sampling weight) and
``education`` (the same information as ``education-num``), then encode:

=================  ====  =====================================================================
attribute          size  encoding
=================  ====  =====================================================================
age_10               10  floor(age / 10)
workclass             9  label-encoded, sorted string values ("?" is a value, code 0)
education-num        16  value − 1 (the 16 levels in their numeric order)
marital-status        7  label-encoded, sorted string values
occupation           15  label-encoded, sorted string values ("?" = 0)
relationship          6  label-encoded, sorted string values
race                  5  label-encoded, sorted string values
sex                   2  Female = 0, Male = 1
capital-gain         16  0 → 0; (0, 10000) → 1 + floor(v / 1000); [10000, 15000) → 11,
                         [15000, 20000) → 12, [20000, 30000) → 13, [30000, 50000) → 14,
                         ≥ 50000 → 15
capital-loss          6  0 → 0; otherwise 1 + floor(v / 1000)
hours-per-week       10  floor(h / 10)
native-country       42  label-encoded, sorted string values ("?" = 0)
income>50K            2  "<=50K" = 0, ">50K" = 1
=================  ====  =====================================================================

The value sets are those of ``adult.names`` plus "?", so the domain does not depend on the rows.
Sizes sum to 146 and multiply to 731,566,080,000. ``education-num`` is encoded in numeric order
rather than by sorting its digits as strings; any bijection gives the same marginals.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .domain import Dataset, Domain
from .paths import fetch

RAW_COLUMNS = ["age", "workclass", "fnlwgt", "education", "education-num", "marital-status",
               "occupation", "relationship", "race", "sex", "capital-gain", "capital-loss",
               "hours-per-week", "native-country", "income>50K"]

_CATEGORIES = {
    "workclass": ["Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov",
                  "State-gov", "Without-pay", "Never-worked", "?"],
    "marital-status": ["Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed",
                       "Married-spouse-absent", "Married-AF-spouse"],
    "occupation": ["Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial",
                   "Prof-specialty", "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical",
                   "Farming-fishing", "Transport-moving", "Priv-house-serv", "Protective-serv",
                   "Armed-Forces", "?"],
    "relationship": ["Wife", "Own-child", "Husband", "Not-in-family", "Other-relative",
                     "Unmarried"],
    "race": ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"],
    "sex": ["Female", "Male"],
    "native-country": [
        "United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany",
        "Outlying-US(Guam-USVI-etc)", "India", "Japan", "Greece", "South", "China", "Cuba", "Iran",
        "Honduras", "Philippines", "Italy", "Poland", "Jamaica", "Vietnam", "Mexico", "Portugal",
        "Ireland", "France", "Dominican-Republic", "Laos", "Ecuador", "Taiwan", "Haiti",
        "Columbia", "Hungary", "Guatemala", "Nicaragua", "Scotland", "Thailand", "Yugoslavia",
        "El-Salvador", "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands", "?"],
    "income>50K": ["<=50K", ">50K"],
}
CATEGORIES = {name: sorted(values) for name, values in _CATEGORIES.items()}

# Capital-gain bin edges at and above 10000 (Liu et al. §5.2 preprocessing, spec §4).
_GAIN_EDGES = np.array([10000, 15000, 20000, 30000, 50000])

DOMAIN = Domain(
    ["age_10", "workclass", "education-num", "marital-status", "occupation", "relationship",
     "race", "sex", "capital-gain", "capital-loss", "hours-per-week", "native-country",
     "income>50K"],
    [10, 9, 16, 7, 15, 6, 5, 2, 16, 6, 10, 42, 2])


def read_raw() -> pd.DataFrame:
    """adult.data + adult.test as strings/ints, test labels without the trailing ".",
    exact duplicates (all 15 raw columns) dropped."""
    parts = [pd.read_csv(fetch(name), header=None, names=RAW_COLUMNS, skipinitialspace=True,
                         skiprows=skip, na_filter=False)
             for name, skip in (("adult.data", 0), ("adult.test", 1))]
    parts[1]["income>50K"] = parts[1]["income>50K"].str.rstrip(".")
    raw = pd.concat(parts, ignore_index=True)
    return raw.drop_duplicates(ignore_index=True)


def encode(raw: pd.DataFrame) -> Dataset:
    """Encode raw ADULT rows (columns :data:`RAW_COLUMNS`) onto :data:`DOMAIN`."""
    codes = {name: _label(raw[name], values) for name, values in CATEGORIES.items()}
    codes["age_10"] = _int(raw["age"]) // 10
    codes["education-num"] = _int(raw["education-num"]) - 1
    codes["capital-gain"] = _capital_gain(_int(raw["capital-gain"]))
    codes["capital-loss"] = _capital_loss(_int(raw["capital-loss"]))
    codes["hours-per-week"] = _int(raw["hours-per-week"]) // 10
    records = np.column_stack([codes[a] for a in DOMAIN.attributes])
    return Dataset(records, DOMAIN)


def load_adult() -> Dataset:
    """The deduplicated, encoded ADULT dataset (train + test)."""
    return encode(read_raw())


def _label(column: pd.Series, values: list[str]) -> np.ndarray:
    column = column.astype(str).str.strip()
    codes = column.map({value: code for code, value in enumerate(values)})
    if codes.isna().any():
        bad = column[codes.isna()].iloc[0]
        raise ValueError(f"ADULT column {column.name!r} has unknown value {bad!r}; "
                         f"expected one of {values}")
    return codes.to_numpy(dtype=np.int64)


def _int(column: pd.Series) -> np.ndarray:
    return pd.to_numeric(column, errors="raise").to_numpy(dtype=np.int64)


def _capital_gain(v: np.ndarray) -> np.ndarray:
    small = 1 + v // 1000
    large = 10 + np.searchsorted(_GAIN_EDGES, v, side="right")
    return np.where(v == 0, 0, np.where(v < 10000, small, large))


def _capital_loss(v: np.ndarray) -> np.ndarray:
    if v.max(initial=0) >= 5000:
        raise ValueError(f"ADULT capital-loss {v.max()} ≥ 5000 does not fit the 6 bins; "
                         "check the raw file")
    return np.where(v == 0, 0, 1 + v // 1000)
