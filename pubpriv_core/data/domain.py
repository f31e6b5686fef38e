"""Domain and Dataset: integer-coded categorical records (the shape of private-pgm's ``mbi``).

A domain X = X_1 × … × X_d is an ordered list of attributes, attribute j taking the codes
0 .. |X_j| − 1 (Liu et al. 2021, §2). A dataset is an (n, d) integer array of such codes.
"""
from __future__ import annotations

import math
from typing import Iterable, Sequence

import numpy as np
import pandas as pd


class Domain:
    """Ordered categorical attributes with their sizes.

    >>> dom = Domain(["sex", "race"], [2, 5])
    >>> dom.size(), dom.project(["race"]).shape
    (10, (5,))
    """

    def __init__(self, attributes: Sequence[str], shape: Sequence[int]):
        attributes, shape = tuple(attributes), tuple(int(s) for s in shape)
        if len(attributes) != len(shape):
            raise ValueError("Domain: attributes and shape must have the same length")
        if len(set(attributes)) != len(attributes):
            raise ValueError("Domain: attribute names must be distinct")
        if any(s < 1 for s in shape):
            raise ValueError("Domain: every attribute needs at least one value")
        self.attributes = attributes
        self.shape = shape

    @classmethod
    def fromdict(cls, sizes: dict[str, int]) -> "Domain":
        return cls(list(sizes), list(sizes.values()))

    @property
    def config(self) -> dict[str, int]:
        return dict(zip(self.attributes, self.shape))

    def size(self, attributes: Iterable[str] | None = None) -> int:
        """|X| (or the size of the projection on ``attributes``) as an exact Python int."""
        shape = self.shape if attributes is None else self.project(attributes).shape
        return math.prod(shape)

    def axes(self, attributes: Iterable[str]) -> tuple[int, ...]:
        """Column positions of ``attributes``."""
        index = {a: i for i, a in enumerate(self.attributes)}
        try:
            return tuple(index[a] for a in attributes)
        except KeyError as err:
            raise KeyError(f"attribute {err.args[0]!r} is not in the domain") from None

    def project(self, attributes: Iterable[str]) -> "Domain":
        attributes = list(attributes)
        return Domain(attributes, [self.shape[i] for i in self.axes(attributes)])

    def __len__(self) -> int:
        return len(self.attributes)

    def __contains__(self, attribute: str) -> bool:
        return attribute in self.attributes

    def __getitem__(self, attribute: str) -> int:
        return self.shape[self.axes([attribute])[0]]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Domain) and self.config == other.config and \
            self.attributes == other.attributes

    def __hash__(self) -> int:
        return hash((self.attributes, self.shape))

    def __repr__(self) -> str:
        inner = ", ".join(f"{a}: {s}" for a, s in self.config.items())
        return f"Domain({inner})"


class Dataset:
    """An (n, d) array of integer codes over a :class:`Domain`; codes are validated."""

    def __init__(self, records: np.ndarray, domain: Domain):
        records = np.asarray(records)
        if records.ndim != 2 or records.shape[1] != len(domain):
            raise ValueError(f"Dataset: records must have shape (n, {len(domain)}), "
                             f"got {records.shape}")
        if records.size and not np.issubdtype(records.dtype, np.integer):
            raise ValueError("Dataset: records must be integer codes")
        if records.size:
            low, high = records.min(axis=0), records.max(axis=0)
            bad = np.flatnonzero((low < 0) | (high >= np.asarray(domain.shape)))
            if bad.size:
                j = int(bad[0])
                raise ValueError(f"Dataset: attribute {domain.attributes[j]!r} has codes outside "
                                 f"0..{domain.shape[j] - 1}")
        dtype = np.int16 if max(domain.shape) < 2 ** 15 else np.int64
        self.records = np.ascontiguousarray(records, dtype=dtype)
        self.domain = domain

    @classmethod
    def from_dataframe(cls, df: pd.DataFrame, domain: Domain) -> "Dataset":
        return cls(df[list(domain.attributes)].to_numpy(), domain)

    def to_dataframe(self) -> pd.DataFrame:
        return pd.DataFrame(self.records, columns=list(self.domain.attributes))

    def project(self, attributes: Iterable[str]) -> "Dataset":
        attributes = list(attributes)
        return Dataset(self.records[:, self.domain.axes(attributes)], self.domain.project(attributes))

    def take(self, rows: np.ndarray) -> "Dataset":
        """The rows at integer positions ``rows`` (repeats allowed: sampling with replacement)."""
        return Dataset(self.records[np.asarray(rows)], self.domain)

    def column(self, attribute: str) -> np.ndarray:
        return self.records[:, self.domain.axes([attribute])[0]]

    def __len__(self) -> int:
        return self.records.shape[0]

    def __repr__(self) -> str:
        return f"Dataset(n={len(self)}, {self.domain!r})"
