"""Released codes back as a table in the user's own terms: column names and labels.

A synthetic record is a row of codes on the domain. On a ``FrameDomain`` (a table given by the
user, ``pubpriv_core.data.frames``) each code becomes its column's label: a category as it was
given, a bin as a ``pandas.Interval`` [e_i, e_{i+1}) or as the bin's representative value
(``numeric="value"``). Decoding reads only the released codes and the domain, which was fixed
without the private rows: post-processing, no privacy spent (Dwork & Roth 2014, Prop. 2.1).
On the project's own datasets (a plain ``Domain``) the codes are the labels.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from .domain import Domain
from .frames import FrameDomain

#: how a binned column is shown: its interval, or its representative value
NUMERIC = ("interval", "value")


def decode(codes: np.ndarray, domain: Domain, numeric: str = "interval") -> pd.DataFrame:
    """The (n, d) ``codes`` as a DataFrame with the domain's column names and labels
    (categorical columns as pandas Categoricals of the labels; binned ones as Categoricals of
    Intervals, or floats with ``numeric="value"``)."""
    if numeric not in NUMERIC:
        raise ValueError(f"numeric must be one of {', '.join(NUMERIC)}, got {numeric!r}")
    codes = np.asarray(codes, dtype=np.int64).reshape(-1, len(domain))
    if not isinstance(domain, FrameDomain):
        return pd.DataFrame(codes, columns=list(domain.attributes))
    return pd.DataFrame({column.name: column.decode(codes[:, j], numeric)
                         for j, column in enumerate(domain.columns)})
