"""A user's own table as a dataset: the domain of its columns, and its rows as codes.

The domain is fixed before any private row is read, from two sources only:

1. the user's *domain spec* — a mapping column -> entry, given as a dict, a JSON or YAML file,
   or a ``FrameDomain`` of an earlier table; an entry holds any of

   =============  =================================================================================
   key            meaning
   =============  =================================================================================
   kind           ``categorical`` or ``numerical`` (default: from the other keys, else the public
                  column's dtype); an entry may be just that word
   categories     the labels, in code order (categorical; default: the public column's distinct
                  values, sorted, or its declared categories if it is a pandas Categorical)
   unseen         the label a value outside the categories takes (default: such a value is an
                  error); added to the categories when it is not one
   bins           the edges e_0 < … < e_k of k bins [e_i, e_{i+1}) (numerical), or a number k of
                  bins: k equal-width bins over ``range``, or without a range cut at the public
                  column's quantiles j/k, open at both ends (default: 10 such bins)
   range          [low, high] of the equal-width bins
   values         each bin's representative value (default: the median of the public values in
                  the bin, else its midpoint)
   clip           true: values outside the edges go to the first or last bin (default: error)
   =============  =================================================================================

2. the *public* table, for what the spec leaves open.

The private table is never read to choose a label, an edge or a representative value: categories
or bins taken from private rows would release them without budget (the domain is printed and
shipped with every release). ``build_domain`` therefore receives the private table's column
names only; a private value the domain does not cover is a one-line error, or goes where the
user's ``unseen`` / ``clip`` says.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd
import yaml

from .columns import Bins, Categories, as_numbers, representatives
from .domain import Dataset, Domain

#: bins of a numerical column whose entry gives no ``bins``: cut at public deciles
DEFAULT_BINS = 10
KINDS = ("categorical", "numerical")
_CATEGORICAL_KEYS = {"categories", "unseen"}
_NUMERICAL_KEYS = {"bins", "range", "values", "clip"}
KEYS = {"kind"} | _CATEGORICAL_KEYS | _NUMERICAL_KEYS
FILE_SUFFIXES = (".json", ".yaml", ".yml")


class FrameDomain(Domain):
    """A ``Domain`` whose attributes are a table's columns, each with its codebook
    (``Categories`` or ``Bins``); equal to the plain ``Domain`` of the same sizes."""

    def __init__(self, columns: Sequence[Categories | Bins]):
        super().__init__([c.name for c in columns], [c.size for c in columns])
        self.columns = tuple(columns)

    def column(self, name: str) -> Categories | Bins:
        return self.columns[self.axes([name])[0]]

    def spec(self) -> dict[str, dict[str, Any]]:
        """Every column's labels or edges, as a domain spec (a domain file's contents)."""
        return {c.name: c.spec() for c in self.columns}

    def describe(self) -> str:
        """The domain as a table: column, kind, size, labels or edges, where they came from."""
        width = max(len(c.name) for c in self.columns)
        lines = [f"domain: {len(self.columns)} columns, |X| = {self.size():,}"]
        lines += [f"  {c.name:<{width}}  {c.describe()}  ({c.origin})" for c in self.columns]
        return "\n".join(lines)


@dataclass(frozen=True)
class EncodedTables:
    """A private table and (if given) a public one as datasets on one ``FrameDomain``."""

    private: Dataset
    public: Dataset | None
    domain: FrameDomain


def encode_frames(private: pd.DataFrame, public: pd.DataFrame | None = None,
                  domain: Any = None) -> EncodedTables:
    """``private`` (and ``public``) as codes on the domain of ``domain`` (a spec: see the
    module docstring) completed from ``public``; the private rows choose nothing."""
    _check_table(private, "private table")
    if public is not None:
        _check_table(public, "public table")
    fixed = build_domain(list(private.columns), read_spec(domain), public)
    return EncodedTables(encode(private, fixed, "private table"),
                         None if public is None else encode(public, fixed, "public table"), fixed)


def read_spec(domain: Any) -> dict[str, dict[str, Any]]:
    """The domain spec of ``domain``: None (empty), a mapping, a JSON/YAML file, or a
    ``FrameDomain``; every entry checked."""
    if domain is None:
        return {}
    if isinstance(domain, FrameDomain):
        domain = domain.spec()
    if isinstance(domain, (str, Path)):
        domain = read_spec_file(Path(domain))
    if not isinstance(domain, Mapping):
        raise ValueError(f"domain must be a mapping column -> entry, a JSON/YAML file or a "
                         f"FrameDomain, got {type(domain).__name__}")
    return {str(name): _entry(str(name), raw) for name, raw in domain.items()}


def read_spec_file(path: Path) -> Mapping:
    """A domain file's mapping (JSON by suffix ``.json``, else YAML)."""
    if path.suffix.lower() not in FILE_SUFFIXES:
        raise ValueError(f"domain file {path} must end in {', '.join(FILE_SUFFIXES)}")
    if not path.is_file():
        raise ValueError(f"domain file {path} does not exist; pass the path of a JSON or YAML "
                         "file that maps each column to its categories or bins")
    text = path.read_text()
    try:
        content = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except (ValueError, yaml.YAMLError) as err:    # json.JSONDecodeError is a ValueError
        raise ValueError(f"domain file {path} does not parse: {_first_line(err)}") from None
    if not isinstance(content, Mapping):
        raise ValueError(f"domain file {path} must hold a mapping column -> entry")
    return content


def build_domain(columns: Sequence[str], spec: dict[str, dict[str, Any]],
                 public: pd.DataFrame | None) -> FrameDomain:
    """The domain of the private table's ``columns`` from the user's ``spec`` and the
    ``public`` table (None: the spec must settle every column)."""
    unknown = [name for name in spec if name not in columns]
    if unknown:
        raise ValueError(f"the domain names column {unknown[0]!r}, which the private table does "
                         f"not have; its columns: {', '.join(map(str, columns))}")
    if public is not None:
        missing = [name for name in columns if name not in public.columns]
        if missing:
            raise ValueError(f"the public table has no column {missing[0]!r}; it needs every "
                             "column of the private table")
    return FrameDomain([_column(name, spec.get(name, {}),
                                None if public is None else public[name]) for name in columns])


def encode(table: pd.DataFrame, domain: FrameDomain, label: str) -> Dataset:
    """The rows of ``table`` (``label`` names it in errors) as codes on ``domain``."""
    missing = [name for name in domain.attributes if name not in table.columns]
    if missing:
        raise ValueError(f"the {label} has no column {missing[0]!r} of the domain")
    return Dataset(np.column_stack([column.encode(table[column.name], label)
                                    for column in domain.columns]), domain)


def _column(name: str, entry: dict[str, Any], public: pd.Series | None) -> Categories | Bins:
    kind = entry.get("kind") or _kind_from_public(name, public)
    if kind == "categorical":
        return _categories(name, entry, public)
    return _bins(name, entry, public)


def _kind_from_public(name: str, public: pd.Series | None) -> str:
    if public is None:
        raise ValueError(f"column {name!r} has no categories or bins, and there is no public "
                         "table to read them from (never from the private one); give them in "
                         "the domain, or give public data")
    numeric = pd.api.types.is_numeric_dtype(public) and not pd.api.types.is_bool_dtype(public)
    return "numerical" if numeric else "categorical"


def _categories(name: str, entry: dict[str, Any], public: pd.Series | None) -> Categories:
    if "categories" in entry:
        labels, origin = list(entry["categories"]), "given"
    elif public is None:
        raise ValueError(f"column {name!r} is categorical without categories, and there is no "
                         "public table to read them from; list them in the domain")
    else:
        labels, origin = _public_categories(name, public), "public"
    unseen = entry.get("unseen")
    if unseen is not None and unseen not in labels:
        labels.append(unseen)
    return Categories(name, tuple(labels), unseen, origin)


def _public_categories(name: str, public: pd.Series) -> list:
    """The public column's declared categories (a pandas Categorical) or its distinct values,
    sorted (by text when the values do not compare)."""
    if isinstance(public.dtype, pd.CategoricalDtype):
        return list(public.cat.categories)
    if public.isna().any():
        raise ValueError(f"column {name!r} of the public table has missing values; fill them "
                         "with a label (e.g. .fillna('missing')) or list the categories")
    values = list(pd.unique(public.to_numpy()))
    try:
        return sorted(values)
    except TypeError:
        return sorted(values, key=str)


def _bins(name: str, entry: dict[str, Any], public: pd.Series | None) -> Bins:
    bins = entry.get("bins", DEFAULT_BINS)
    numbers = None if public is None else as_numbers(public,
                                                     f"column {name!r} of the public table")
    if isinstance(bins, list):
        edges, origin = np.asarray(bins, dtype=float), "given"
    elif "range" in entry:
        low, high = entry["range"]
        edges, origin = np.linspace(low, high, bins + 1), "range"
    elif numbers is None:
        raise ValueError(f"column {name!r}: bins={bins} without a range needs a public table "
                         "to place the edges (never the private one); give the edges, or "
                         "bins and range: [low, high]")
    else:
        cuts = np.quantile(numbers, np.arange(1, bins) / bins, method="inverted_cdf")
        inner = np.unique(cuts)
        edges, origin = np.concatenate([[-np.inf], inner, [np.inf]]), "public"
    values = entry.get("values") or representatives(edges, numbers)
    return Bins(name, tuple(float(e) for e in edges), tuple(float(v) for v in values),
                bool(entry.get("clip", False)), origin)


def _entry(name: str, raw: Any) -> dict[str, Any]:
    """One column's entry, checked: known keys, one kind, well-formed values."""
    entry = {"kind": raw} if isinstance(raw, str) else raw
    if not isinstance(entry, Mapping):
        raise ValueError(f"domain entry of column {name!r} must be a mapping (categories, bins, "
                         f"…) or the word categorical/numerical, got {raw!r}")
    entry = {key: list(value) if isinstance(value, (tuple, np.ndarray)) else value
             for key, value in entry.items()}
    unknown = sorted(set(entry) - KEYS)
    if unknown:
        raise ValueError(f"domain entry of column {name!r} has no key {unknown[0]!r}; its keys: "
                         f"{', '.join(sorted(KEYS))}")
    kind = entry.get("kind")
    if kind is not None and kind not in KINDS:
        raise ValueError(f"column {name!r}: kind must be categorical or numerical, got {kind!r}")
    implied = {k for k, keys in (("categorical", _CATEGORICAL_KEYS),
                                 ("numerical", _NUMERICAL_KEYS)) if keys & set(entry)}
    if len(implied | ({kind} if kind else set())) > 1:
        raise ValueError(f"column {name!r} mixes categorical keys (categories, unseen) with "
                         "numerical ones (bins, range, values, clip); keep one kind")
    if implied:
        entry["kind"] = implied.pop()
    _check_entry_values(name, entry)
    return entry


def _check_entry_values(name: str, entry: dict[str, Any]) -> None:
    where = f"column {name!r}"
    if "categories" in entry and (not isinstance(entry["categories"], list)
                                  or not entry["categories"]):
        raise ValueError(f"{where}: categories must be a non-empty list of labels")
    bins = entry.get("bins")
    if bins is not None and not (_count(bins) or (isinstance(bins, list)
                                                  and all(_number(e) for e in bins))):
        raise ValueError(f"{where}: bins must be a list of edges (numbers; -inf and inf allowed) "
                         f"or a number of bins >= 1, got {bins!r}")
    if "range" in entry:
        low_high = entry["range"]
        if not (isinstance(low_high, list) and len(low_high) == 2
                and all(_finite(v) for v in low_high) and low_high[0] < low_high[1]):
            raise ValueError(f"{where}: range must be [low, high] with finite low < high, got "
                             f"{low_high!r}")
        if not _count(bins):
            raise ValueError(f"{where}: range needs bins: <number of bins>, got bins={bins!r}")
    if "clip" in entry and not isinstance(entry["clip"], bool):
        raise ValueError(f"{where}: clip must be true or false, got {entry['clip']!r}")
    if "values" in entry and not (isinstance(entry["values"], list)
                                  and all(_number(v) for v in entry["values"])):
        raise ValueError(f"{where}: values must be a list of numbers, one per bin")


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _finite(value: Any) -> bool:
    return _number(value) and np.isfinite(value)


def _check_table(table: Any, label: str) -> None:
    if not isinstance(table, pd.DataFrame):
        raise ValueError(f"the {label} must be a pandas DataFrame, got {type(table).__name__}")
    named = [c for c in table.columns if not isinstance(c, str)]
    if named:
        raise ValueError(f"the {label} has a column named {named[0]!r}; name every column with "
                         "text (e.g. frame.columns = frame.columns.astype(str))")
    if table.columns.duplicated().any():
        raise ValueError(f"the {label} has two columns named "
                         f"{table.columns[table.columns.duplicated()][0]!r}; rename one")
    if len(table.columns) == 0:
        raise ValueError(f"the {label} has no columns")


def _first_line(err: BaseException) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return lines[0] if lines else type(err).__name__
