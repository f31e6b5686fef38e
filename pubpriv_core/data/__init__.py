"""Data layer: domains, datasets, loaders, the embedded synthetic generator and public sources.

``load_dataset(name, **options)`` loads one of

=============  ==========================================================================
name           options (defaults)
=============  ==========================================================================
synthetic      preset ("tiny"), role ("private"), n (preset's), shift (0.1), seed (0),
               concentration (0.5), draw (0) — :mod:`.synthetic`, no files
adult          none — UCI ADULT, :mod:`.adult`
nist_acs       region ("ma"; or tx, national), year (2019; or 2018), reduced (False)
               — :mod:`.nist_acs`
acs            state ("PA"), year (2018), reduced (False), download (True) — :mod:`.acs`
csv            path (None), domain (None), columns (None), public_path (None) — a user's own
               CSV on a domain fixed without it, ``csv_files``
=============  ==========================================================================

Parsed datasets are cached in-process per (name, options, data root), since sweeps reload them;
the cached records are read-only. Options are JSON values (a user's CSV takes a mapping of
column entries); the cache key is their canonical JSON.
"""
from __future__ import annotations

import json
from functools import lru_cache

from . import public
from .acs import load_acs
from .adult import load_adult
from .csv_files import load_csv
from .domain import Dataset, Domain
from .nist_acs import load_nist_acs
from .paths import DataUnavailableError, data_root, fetch, set_data_root
from .public import PublicSource, Split, biased, fraction, from_dataset, resample, uniform_weights
from .synthetic import load_synthetic

_LOADERS = {
    "synthetic": (load_synthetic, ("preset", "role", "n", "shift", "seed", "concentration",
                                   "draw")),
    "adult": (load_adult, ()),
    "nist_acs": (load_nist_acs, ("region", "year", "reduced")),
    "acs": (load_acs, ("state", "year", "reduced", "download")),
    "csv": (load_csv, ("path", "domain", "columns", "public_path")),
}


def load_dataset(name: str, **options) -> Dataset:
    """The dataset ``name`` with ``options`` (see the module docstring), cached in-process."""
    if name not in _LOADERS:
        raise ValueError(f"unknown dataset {name!r}; choose one of {', '.join(_LOADERS)}")
    allowed = _LOADERS[name][1]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise ValueError(f"dataset {name!r} has no option {unknown[0]!r}; valid options: "
                         f"{', '.join(allowed) or 'none'}")
    plain = {k: getattr(v, "value", v) for k, v in options.items()}
    try:
        key = json.dumps(plain, sort_keys=True)
    except TypeError:
        raise ValueError(f"dataset {name!r} options must be JSON values (numbers, text, lists, "
                         f"mappings), got {plain}") from None
    return _load_cached(name, str(data_root()), key)


@lru_cache(maxsize=32)
def _load_cached(name: str, root: str, key: str) -> Dataset:
    data = _LOADERS[name][0](**json.loads(key))
    data.records.flags.writeable = False
    return data


__all__ = ["Domain", "Dataset", "load_dataset", "PublicSource", "Split", "from_dataset",
           "resample", "biased", "fraction", "uniform_weights", "DataUnavailableError",
           "data_root", "set_data_root", "fetch", "public"]
