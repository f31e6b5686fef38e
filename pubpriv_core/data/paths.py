"""Where raw data lives, and how a raw file is fetched and verified.

The *data root* is, in order of precedence: the path given to :func:`set_data_root` (the Hydra
runner passes its ``data_root`` config here), the environment variable ``PUBPRIV_DATA``, or the
per-user cache ``pooch.os_cache("pubpriv")``. Its layout mirrors ``/work/shared/data``::

    adult/adult.data, adult/adult.test                   UCI Adult (Liu et al. 2021, §5.2)
    nist-acs-excerpts/<region><year>.csv                 NIST CRC Diverse Communities Excerpts
    nist-acs-excerpts/data_dictionary.json
    acs/<year>/1-Year/psam_p<fips>.csv                   ACS PUMS, folktables' own layout

Every file of the first two groups is listed in :data:`REGISTRY` with its canonical URL and md5.
:func:`fetch` uses the local copy when its checksum matches, otherwise downloads it with pooch
(which verifies the hash); when that fails it raises :class:`DataUnavailableError`, one line
naming the file, its URL and where to put it. ACS PUMS files are fetched by folktables (see
``acs.py``), which publishes no checksums.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pooch

_ROOT_OVERRIDE: Path | None = None

_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases/adult"
# Files of the SDNist v2.2.0 tag; the same files ship in the release asset
# https://github.com/usnistgov/SDNist/releases/download/v2.2.0/diverse_communities_data_excerpts.zip
_SDNIST = ("https://raw.githubusercontent.com/usnistgov/SDNist/v2.2.0/"
           "nist%20diverse%20communities%20data%20excerpts")
_NIST_DIR = {"ma": "massachusetts", "tx": "texas", "national": "national"}


class DataUnavailableError(FileNotFoundError):
    """A raw data file is neither in the data root nor downloadable (e.g. offline)."""


@dataclass(frozen=True)
class RawFile:
    """One raw file: its path under the data root, canonical URL and md5 checksum."""

    relpath: str
    url: str
    md5: str


def _nist(region: str, year: int, md5: str) -> RawFile:
    name = f"{region}{year}.csv"
    return RawFile(f"nist-acs-excerpts/{name}", f"{_SDNIST}/{_NIST_DIR[region]}/{name}", md5)


REGISTRY: dict[str, RawFile] = {
    "adult.data": RawFile("adult/adult.data", f"{_UCI}/adult.data",
                          "5d7c39d7b8804f071cdd1f2a7c460872"),
    "adult.test": RawFile("adult/adult.test", f"{_UCI}/adult.test",
                          "35238206dfdf7f1fe215bbb874adecdc"),
    "nist_data_dictionary": RawFile("nist-acs-excerpts/data_dictionary.json",
                                    f"{_SDNIST}/data_dictionary.json",
                                    "57a286735ec68713863aaf0fdb847b5b"),
    "ma2018": _nist("ma", 2018, "478dea10442d74299c7b25f4af09ea1e"),
    "ma2019": _nist("ma", 2019, "8871fa7fb31f70534b1b9d9a4b72baf2"),
    "tx2018": _nist("tx", 2018, "e5b850807e745349a743b52b66adb840"),
    "tx2019": _nist("tx", 2019, "87fcfd227aa7240177fd80eb9192351d"),
    "national2018": _nist("national", 2018, "8e1d0c84eabba79c2d083bda14233d78"),
    "national2019": _nist("national", 2019, "5e9c5b3b8f36d765db8655fff71b7133"),
}


def set_data_root(path: str | os.PathLike | None) -> None:
    """Use ``path`` as the data root from now on (``None`` restores env/cache lookup)."""
    global _ROOT_OVERRIDE
    _ROOT_OVERRIDE = None if path is None else Path(path).expanduser().resolve()


def data_root() -> Path:
    """The current data root (see the module docstring for the precedence)."""
    if _ROOT_OVERRIDE is not None:
        return _ROOT_OVERRIDE
    env = os.environ.get("PUBPRIV_DATA")
    if env:
        return Path(env).expanduser().resolve()
    return Path(pooch.os_cache("pubpriv"))


def local_path(name: str) -> Path:
    """Where the registered file ``name`` lives (or should live) under the data root."""
    return data_root() / _entry(name).relpath


def fetch(name: str) -> Path:
    """Path of the registered raw file ``name``, verified by md5; download it if needed.

    Raises :class:`DataUnavailableError` (one line: file, URL, destination) when the file is
    missing or corrupt locally and cannot be downloaded.
    """
    entry, target = _entry(name), local_path(name)
    if target.is_file() and pooch.file_hash(str(target), alg="md5") == entry.md5:
        return target
    created = _missing_folders(target.parent)
    try:
        pooch.retrieve(entry.url, known_hash=f"md5:{entry.md5}", fname=target.name,
                       path=target.parent, progressbar=False)
    except Exception as err:  # network, HTTP or checksum failure: all mean "not available"
        _remove_empty(created)
        state = ("is missing" if not target.is_file() else "is empty"
                 if target.stat().st_size == 0 else "does not match its md5 (truncated or altered)")
        reason = str(err).splitlines()[0][:120] if str(err) else type(err).__name__
        raise DataUnavailableError(
            f"{entry.relpath} {state} and could not be downloaded ({reason}); download "
            f"{entry.url} and save it as {target}, or set PUBPRIV_DATA (or data_root=) to a "
            f"folder that has {entry.relpath}") from None
    return target


def _missing_folders(folder: Path) -> list[Path]:
    """``folder`` and its ancestors that do not exist yet, deepest first (a failed download
    removes those it created, so a wrong data root leaves nothing behind)."""
    missing = []
    while not folder.exists() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    return missing


def _remove_empty(folders: list[Path]) -> None:
    """Remove each of ``folders`` (deepest first) that is still empty."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:     # not empty (another process wrote there) or already gone
            return


def _entry(name: str) -> RawFile:
    if name not in REGISTRY:
        raise KeyError(f"unknown raw file {name!r}; registered files: {', '.join(REGISTRY)}")
    return REGISTRY[name]
