"""One column of a user's table as an attribute of the domain: its values to codes and back.

An attribute X_j of the domain X = X_1 × … × X_d takes the codes 0 .. |X_j| − 1 (Liu et al.
2021, §2). A table's column becomes one in one of two ways:

* ``Categories`` — a categorical column: code i is the i-th label. A value that is not a label
  is an error, or — when the user names an ``unseen`` label — is given that label's code.
* ``Bins`` — a numerical column cut at edges e_0 < e_1 < … < e_k into the k bins
  [e_0, e_1), [e_1, e_2), …, [e_{k−1}, e_k) (each closed on the left, open on the right; an
  edge may be ±inf). A value outside [e_0, e_k) is an error, or with ``clip`` goes to the first
  or last bin. Each bin also has a representative value, what a synthetic record shows when
  numbers rather than intervals are asked for.

A column's labels, edges and representative values are fixed before any private row is read
(given by the user or read from public data, ``pubpriv_core.data.frames``), so encoding a
private row is a fixed function of that row alone and spends no privacy budget. Decoding a
released code is post-processing (Dwork & Roth 2014, Prop. 2.1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

#: where a column's labels or edges came from, as the printed domain shows it
ORIGINS = ("given", "range", "public")


@dataclass(frozen=True)
class Categories:
    """A categorical column: code i is ``labels[i]``; values outside the labels are an error
    unless ``unseen`` names the label they take."""

    name: str
    labels: tuple
    unseen: Any = None
    origin: str = "given"

    def __post_init__(self):
        if not self.labels:
            raise ValueError(f"column {self.name!r} has no categories; list at least one")
        if any(_missing(label) for label in self.labels):
            raise ValueError(f"column {self.name!r} has a missing value (NaN/None) among its "
                             "categories; fill missing values with a label first")
        if len(set(self.labels)) != len(self.labels):
            raise ValueError(f"column {self.name!r} lists a category twice; list each once")
        if self.unseen is not None and self.unseen not in self.labels:
            raise ValueError(f"column {self.name!r}: unseen={self.unseen!r} is not one of its "
                             "categories; add it to the categories")

    @property
    def size(self) -> int:
        return len(self.labels)

    def encode(self, values: pd.Series, table: str) -> np.ndarray:
        """The codes of ``values`` (a column of ``table``, named in errors)."""
        codes = pd.Index(self.labels).get_indexer(pd.Series(values).to_numpy())
        outside = codes < 0
        if outside.any():
            if self.unseen is None:
                value = pd.Series(values).to_numpy()[np.flatnonzero(outside)[0]]
                raise ValueError(
                    f"column {self.name!r} of the {table} holds {value!r}, which is not one of "
                    f"its {self.size} categories; add it to the categories (from the user, "
                    "never from the private data) or map unseen values with unseen=<label>")
            codes[outside] = self.labels.index(self.unseen)
        return codes.astype(np.int64)

    def decode(self, codes: np.ndarray, numeric: str) -> pd.Categorical:
        """The labels of ``codes`` (``numeric`` applies to binned columns only)."""
        return pd.Categorical.from_codes(codes, categories=list(self.labels))

    def spec(self) -> dict[str, Any]:
        """This column as a domain-file entry."""
        out: dict[str, Any] = {"categories": [_plain(label) for label in self.labels]}
        if self.unseen is not None:
            out["unseen"] = _plain(self.unseen)
        return out

    def describe(self) -> str:
        shown = ", ".join(map(str, self.labels[:6])) + (", …" if self.size > 6 else "")
        return f"categorical  {self.size:>4}  {shown}"


@dataclass(frozen=True)
class Bins:
    """A numerical column cut at ``edges`` into left-closed bins; ``values`` holds each bin's
    representative value; ``clip`` puts values outside [edges[0], edges[-1]) in the first or
    last bin instead of refusing them."""

    name: str
    edges: tuple[float, ...]
    values: tuple[float, ...]
    clip: bool = False
    origin: str = "given"

    def __post_init__(self):
        edges = np.asarray(self.edges, dtype=float)
        if edges.size < 2 or np.isnan(edges).any() or not (np.diff(edges) > 0).all():
            raise ValueError(f"column {self.name!r}: bin edges must be at least two increasing "
                             f"numbers, got {list(self.edges)}")
        if len(self.values) != edges.size - 1:
            raise ValueError(f"column {self.name!r}: {len(self.values)} representative values "
                             f"for {edges.size - 1} bins; give one per bin")

    @property
    def size(self) -> int:
        return len(self.edges) - 1

    def encode(self, values: pd.Series, table: str) -> np.ndarray:
        """The bin of each of ``values`` (a column of ``table``, named in errors)."""
        numbers = as_numbers(values, f"column {self.name!r} of the {table}")
        codes = np.searchsorted(np.asarray(self.edges), numbers, side="right") - 1
        outside = (codes < 0) | (codes >= self.size)
        if outside.any() and not self.clip:
            raise ValueError(
                f"column {self.name!r} of the {table} has values outside its bins "
                f"[{_edge(self.edges[0])}, {_edge(self.edges[-1])}); widen the first or last "
                "edge (-inf and inf are allowed) or set clip: true to put them in the end bins")
        return np.clip(codes, 0, self.size - 1).astype(np.int64)

    def decode(self, codes: np.ndarray, numeric: str) -> pd.Categorical | np.ndarray:
        """``numeric="interval"``: each code's bin as a ``pandas.Interval`` (closed left);
        ``"value"``: its representative value."""
        if numeric == "value":
            return np.asarray(self.values, dtype=float)[codes]
        return pd.Categorical.from_codes(codes, categories=self.intervals())

    def intervals(self) -> pd.IntervalIndex:
        return pd.IntervalIndex.from_breaks(np.asarray(self.edges, dtype=float), closed="left")

    def spec(self) -> dict[str, Any]:
        """This column as a domain-file entry."""
        out: dict[str, Any] = {"bins": [float(e) for e in self.edges],
                               "values": [float(v) for v in self.values]}
        if self.clip:
            out["clip"] = True
        return out

    def describe(self) -> str:
        cuts = [_edge(e) for e in self.edges]
        shown = " ".join(cuts[:8]) + (" …" if len(cuts) > 8 else "")
        return f"numerical    {self.size:>4}  bins at {shown}"


def representatives(edges: np.ndarray, public: np.ndarray | None) -> tuple[float, ...]:
    """Each bin's representative value: the median of the public values in it when public
    data is given and some fall in the bin, else its midpoint (the finite edge of a bin open
    on one side; NaN for (−inf, inf))."""
    edges = np.asarray(edges, dtype=float)
    out = []
    for low, high in zip(edges[:-1], edges[1:]):
        inside = public[(public >= low) & (public < high)] if public is not None else []
        if len(inside):
            out.append(float(np.median(inside)))
        elif math.isfinite(low) and math.isfinite(high):
            out.append((low + high) / 2)
        else:
            out.append(low if math.isfinite(low) else high if math.isfinite(high) else math.nan)
    return tuple(out)


def as_numbers(values: pd.Series, where: str) -> np.ndarray:
    """``values`` as floats; a missing or non-numeric value is a one-line error."""
    numbers = pd.to_numeric(pd.Series(values), errors="coerce")
    bad = numbers.isna().to_numpy()
    if bad.any():
        value = pd.Series(values).to_numpy()[np.flatnonzero(bad)[0]]
        raise ValueError(f"{where} holds {value!r}, which is not a number; numerical columns "
                         "need numbers in every row (fill or drop missing values)")
    return numbers.to_numpy(dtype=float)


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA


def _plain(value: Any) -> Any:
    """A label as a plain Python value (NumPy scalars unwrapped) for JSON and YAML."""
    return value.item() if isinstance(value, np.generic) else value


def _edge(value: float) -> str:
    return f"{value:g}"
