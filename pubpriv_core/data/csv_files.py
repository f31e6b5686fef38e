"""A user's CSV files as datasets (``dataset=csv`` and ``public=csv`` of the runner).

``load_csv(path, domain, columns, public_path)`` reads the private CSV at ``path`` with pandas'
default parsing, as a user would (``pandas.read_csv``), and encodes it on the domain of a spec
(``pubpriv_core.data.frames``): the entries of the domain file ``domain`` (JSON or YAML), then
the entries ``columns`` given in the config, each replacing the file's entry of its column; what
they leave open is read from the public CSV at ``public_path`` (never from ``path``). The domain
is built, and printed, once per process. ``load_public_csv(path, domain)`` encodes the public
CSV on that same domain, so both tables share it.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from .domain import Dataset, Domain
from .frames import FrameDomain, build_domain, encode, read_spec


def load_csv(path: str | None = None, domain: str | None = None,
             columns: dict[str, Any] | None = None, public_path: str | None = None) -> Dataset:
    """The rows of the CSV at ``path`` as codes on the domain of the spec (file ``domain``,
    then ``columns``) completed from the public CSV at ``public_path``."""
    if path is None:
        raise ValueError("dataset=csv reads your CSV file: pass dataset.path=<file.csv>")
    table = read_table(path)
    fixed = csv_domain(domain, json.dumps(columns or {}, sort_keys=True), public_path,
                       tuple(table.columns))
    return encode(table, fixed, f"file {path}")


def load_public_csv(path: str | None, domain: Domain) -> Dataset:
    """The rows of the public CSV at ``path`` on ``domain``, the private CSV's."""
    if path is None:
        raise ValueError("public=csv reads the public rows from a CSV file: pass "
                         "public.path=<file.csv>")
    if not isinstance(domain, FrameDomain):
        raise ValueError("public=csv encodes its file on the private table's columns and labels; "
                         "use it with dataset=csv")
    return encode(read_table(path), domain, f"file {path}")


@lru_cache(maxsize=16)
def csv_domain(domain: str | None, columns: str, public_path: str | None,
               names: tuple[str, ...]) -> FrameDomain:
    """The domain of a CSV with columns ``names``: spec file ``domain`` updated by the JSON
    entries ``columns``, completed from the public CSV at ``public_path``; printed."""
    spec = {**read_spec(domain), **read_spec(json.loads(columns))}
    public = None if public_path is None else read_table(public_path)
    fixed = build_domain(list(names), spec, public)
    print(fixed.describe(), flush=True)
    return fixed


def read_table(path: str | Path) -> pd.DataFrame:
    """The CSV at ``path`` as pandas parses it; a missing or unreadable file is one line."""
    path = Path(path).expanduser()
    if not path.is_file():
        raise ValueError(f"no CSV file at {path}; pass the path of an existing file "
                         "(dataset.path for the private table, public.path for the public one)")
    try:
        return pd.read_csv(path)
    except ValueError as err:   # pandas' parser, empty-file and decoding errors
        text = " ".join(str(err).split()) or type(err).__name__
        raise ValueError(f"{path} is not a readable CSV file ({text}); save it as "
                         "comma-separated text with a header row") from None
