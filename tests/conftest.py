"""Shared fixtures: the raw-data root of these machines (``PUBPRIV_DATA`` or ../shared/data),
and no figure left open between tests.

Tests that need a raw file skip only when it is truly absent; the fixtures point the data layer at
the root for the test module and restore the default afterwards.
"""
import os
from pathlib import Path

import experiments  # noqa: F401  (first: it holds OpenBLAS's kernels before NumPy loads)
import pytest

from pubpriv_core.data import load_dataset, paths

SHARED = Path(os.environ.get("PUBPRIV_DATA") or
              Path(__file__).resolve().parents[2] / "shared" / "data")


@pytest.fixture(autouse=True)
def close_figures():
    """Figures a test opens are closed after it (pyplot keeps them otherwise); those of wider
    fixtures, open before it, are left to them."""
    import matplotlib.pyplot as plt

    before = set(plt.get_fignums())
    yield
    for number in set(plt.get_fignums()) - before:
        plt.close(number)


def data_root_with(relative: str) -> Path:
    """The shared data root if it holds ``relative``, else skip the test."""
    if not (SHARED / relative).is_file():
        pytest.skip(f"{relative} not found under {SHARED}")
    return SHARED


@pytest.fixture(scope="module")
def adult():
    """UCI ADULT as loaded by ``load_dataset("adult")`` from the shared data root."""
    paths.set_data_root(data_root_with("adult/adult.data"))
    yield load_dataset("adult")
    paths.set_data_root(None)


@pytest.fixture(scope="module")
def nist_root():
    """The shared data root, set as the data layer's root, when it has the NIST excerpts."""
    paths.set_data_root(data_root_with("nist-acs-excerpts/data_dictionary.json"))
    yield SHARED
    paths.set_data_root(None)
