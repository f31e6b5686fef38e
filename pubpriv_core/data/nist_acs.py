"""NIST CRC Diverse Communities Data Excerpts (real ACS PUMS 2018/2019) on ONE shared domain.

Six files: ``ma``, ``tx``, ``national`` × 2018, 2019 (spec ``liu2021_pmwpub.md`` §4, the offline
stand-in for Liu et al. 2021, Fig. 1). All six are encoded on the same :class:`Domain`, built from
``data_dictionary.json`` and fixed bin edges only, so it never depends on which file is loaded.
Categorical codes: "N" (not applicable) is code 0 when the dictionary lists it, then the
dictionary's values in increasing numeric order. Numeric columns: "N" is code 0 when allowed,
then the bins ``[b_i, b_{i+1})`` of the lower bounds below.

==============  ====  ==========================================================================
column          size  treatment
==============  ====  ==========================================================================
PUMA               –  dropped: a geographic ID, disjoint across the three regions
AGEP              10  bins 0–9, 10–19, …, 80–89, 90+
SEX                2  dictionary (1 male, 2 female)
MSP                7  dictionary, N + 6
HISP               5  dictionary
RAC1P              9  dictionary
NOC                6  N, 0, 1, 2, 3, 4+
NPF                6  N, 2, 3, 4, 5, 6+
HOUSING_TYPE       3  dictionary
OWN_RENT           3  dictionary
DENSITY            4  persons per sq. mile of the PUMA: <1000, 1000–2999, 3000–9999, 10000+
INDP               –  dropped: 271 detailed industry codes, summarised by INDP_CAT
INDP_CAT          20  dictionary, N + 19 sectors
EDU               13  dictionary, N + 12
PINCP              7  N, ≤ 0, 1–9999, 10000–24999, 25000–49999, 50000–99999, 100000+
PINCP_DECILE      11  dictionary, N + 10
POVPIP             7  N, 0–99, 100–199, 200–299, 300–399, 400–500, 501 (above 5× poverty)
DVET               7  dictionary, N + 6
DREM, DPHY         3  dictionary, N + yes/no
DEYE, DEAR         2  dictionary, yes/no
PWGTP, WGTP        –  dropped: sampling weights (records are used unweighted, as in the paper)
==============  ====  ==========================================================================

``reduced=True`` projects on :data:`REDUCED_ATTRIBUTES` — age, sex, race, Hispanic origin,
tenure and the four disability flags (vision, hearing, ambulatory, cognitive): a demographic ×
disability table with |X| = 10·2·9·5·3·2·2·3·3 = 97,200 ≤ 1e5, small enough for MWEM.
"""
from __future__ import annotations

import json
from functools import lru_cache

import numpy as np
import pandas as pd

from .domain import Dataset, Domain
from .paths import fetch

REGIONS = ("ma", "tx", "national")
YEARS = (2018, 2019)

# Lower bounds of the bins of each numeric column (see the module docstring).
BINS = {
    "AGEP": [0, 10, 20, 30, 40, 50, 60, 70, 80, 90],
    "NOC": [0, 1, 2, 3, 4],
    "NPF": [2, 3, 4, 5, 6],
    "DENSITY": [0, 1000, 3000, 10000],
    "PINCP": [-np.inf, 1, 10000, 25000, 50000, 100000],
    "POVPIP": [0, 100, 200, 300, 400, 501],
}
DROPPED = ("PUMA", "INDP", "PWGTP", "WGTP")
REDUCED_ATTRIBUTES = ("AGEP", "SEX", "RAC1P", "HISP", "OWN_RENT", "DEYE", "DEAR", "DPHY", "DREM")
COLUMNS = ("PUMA", "AGEP", "SEX", "MSP", "HISP", "RAC1P", "NOC", "NPF", "HOUSING_TYPE",
           "OWN_RENT", "DENSITY", "INDP", "INDP_CAT", "EDU", "PINCP", "PINCP_DECILE", "POVPIP",
           "DVET", "DREM", "DPHY", "DEYE", "DEAR", "PWGTP", "WGTP")


@lru_cache(maxsize=4)
def _dictionary(path: str) -> dict:
    with open(path) as handle:
        return json.load(handle)


def _categories(entry: dict) -> list[str]:
    """Codes of a dictionary entry: "N" first (if listed), then the others numerically."""
    keys = [k for k in entry["values"] if k not in ("min", "max")]
    return ["N"] * ("N" in keys) + sorted((k for k in keys if k != "N"), key=float)


def encoders() -> dict[str, tuple[str, list, bool]]:
    """For every kept column: (kind, spec, allows "N") with kind "categorical" (spec: the codes)
    or "binned" (spec: the lower bounds)."""
    dictionary = _dictionary(str(fetch("nist_data_dictionary")))
    out = {}
    for column in COLUMNS:
        if column in DROPPED:
            continue
        has_na = "N" in dictionary[column]["values"]
        if column in BINS:
            out[column] = ("binned", BINS[column], has_na)
        else:
            out[column] = ("categorical", _categories(dictionary[column]), has_na)
    return out


def domain() -> Domain:
    """The shared domain of all six excerpts (20 attributes, |X| ≈ 2.88e14)."""
    return _domain(encoders())


def _domain(specs: dict[str, tuple[str, list, bool]]) -> Domain:
    return Domain.fromdict({column: len(spec) + (kind == "binned" and has_na)
                            for column, (kind, spec, has_na) in specs.items()})


def encode(raw: pd.DataFrame) -> Dataset:
    """Encode raw excerpt rows (string columns, "N" kept) onto :func:`domain`."""
    specs = encoders()
    codes = []
    for column, (kind, spec, has_na) in specs.items():
        values = raw[column].astype(str)
        if kind == "categorical":
            codes.append(_categorical(values, spec))
        else:
            codes.append(_binned(values, spec, has_na))
    return Dataset(np.column_stack(codes), _domain(specs))


def load_nist_acs(region: str = "ma", year: int = 2019, reduced: bool = False) -> Dataset:
    """One excerpt file, e.g. ``load_nist_acs("ma", 2019)``; ``reduced`` projects on
    :data:`REDUCED_ATTRIBUTES`."""
    if region not in REGIONS:
        raise ValueError(f"nist_acs region must be one of {REGIONS}, got {region!r}")
    if int(year) not in YEARS:
        raise ValueError(f"nist_acs year must be one of {YEARS}, got {year!r}")
    raw = pd.read_csv(fetch(f"{region}{int(year)}"), dtype=str, keep_default_na=False)
    data = encode(raw)
    return data.project(REDUCED_ATTRIBUTES) if reduced else data


def _categorical(values: pd.Series, categories: list[str]) -> np.ndarray:
    lookup = {value: code for code, value in enumerate(categories)}
    distinct, inverse = np.unique(values.to_numpy(dtype=str), return_inverse=True)
    # '1.0' → '1' so numbers written as floats match the dictionary's keys
    codes = np.array([lookup.get(v[:-2] if v.endswith(".0") else v, -1) for v in distinct])
    if (codes < 0).any():
        bad = distinct[codes < 0][0]
        raise ValueError(f"NIST excerpt column {values.name!r} has value {bad!r} outside the "
                         f"data dictionary {categories}; check the file version")
    return codes[inverse].astype(np.int64)


def _binned(values: pd.Series, lower: list[float], has_na: bool) -> np.ndarray:
    na = values == "N"
    if na.any() and not has_na:
        raise ValueError(f"NIST excerpt column {values.name!r} has 'N' but the dictionary "
                         "does not allow it; check the file version")
    numbers = pd.to_numeric(values.where(~na, "0"), errors="raise").to_numpy(dtype=float)
    bins = np.searchsorted(np.asarray(lower, dtype=float), numbers, side="right") - 1
    if (bins[~na.to_numpy()] < 0).any():
        raise ValueError(f"NIST excerpt column {values.name!r} has values below {lower[0]}; "
                         "check the file version")
    return np.where(na, 0, bins + has_na).astype(np.int64)
