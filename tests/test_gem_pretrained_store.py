"""GEM^Pub's public pre-training shared on disk (:mod:`pubpriv_core.algorithms.pretrained_store`):
fitted once, read back bit for bit by the next process, refitted when the file is damaged or of
another structure, and kept by the runner under ``<results_dir>/cache``."""
from __future__ import annotations

import json
import os

import jax
import numpy as np
import pytest

from experiments.release.configure.checks import check_config
from experiments.release.configure.cli import compose_config
from experiments.release.running import repetitions as query_release
from pubpriv_core.algorithms import gem
from pubpriv_core.harness import run_algorithm
from pubpriv_core.algorithms.pretrained_store import PretrainedStore
from pubpriv_core.algorithms.shared_cache import shared_folder, shared_under
from test_privacy_successors import FAST, problem  # noqa: F401  (problem: fixture)

OPTS = gem.GEMPubOptions(**{**FAST["gem_pub"], "pretrain_steps": 6, "pretrain_refresh": 2})


def _leaves(tree) -> list[np.ndarray]:
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(tree)]


@pytest.fixture
def counted(monkeypatch):
    """gem's public fit, counted; the in-process cache emptied before and after."""
    calls, fit = [], gem._fit_public
    monkeypatch.setattr(gem, "_fit_public", lambda *a: calls.append(1) or fit(*a))
    gem._PRETRAINED.clear()
    yield calls
    gem._PRETRAINED.clear()


@pytest.fixture
def shared(tmp_path):
    """Shared work kept under ``tmp_path`` for the test; yields the pre-trainings' folder."""
    with shared_under(tmp_path):
        yield shared_folder("gem_pretrain")


def test_a_second_process_reads_the_fit_bit_for_bit(problem, shared, counted):  # noqa: F811
    first = gem.pretrain(problem, OPTS)
    gem._PRETRAINED.clear()                      # as in another process
    second = gem.pretrain(problem, OPTS)
    assert len(counted) == 1
    assert all(np.array_equal(a, b) and a.dtype == b.dtype
               for a, b in zip(_leaves(first[:2]), _leaves(second[:2])))
    assert second[2] == first[2]
    [stored] = shared.glob("*.npz")
    assert not list(shared.glob(".tmp-*")) and stored.stem == gem._fingerprint(problem, OPTS)
    mask = os.umask(0)
    os.umask(mask)
    assert stored.stat().st_mode & 0o777 == 0o666 & ~mask     # an ordinary new file


def test_without_a_shared_folder_nothing_is_written(problem, tmp_path, monkeypatch,  # noqa: F811
                                                     counted):
    monkeypatch.chdir(tmp_path)
    gem.pretrain(problem, OPTS)
    gem._PRETRAINED.clear()
    gem.pretrain(problem, OPTS)
    assert len(counted) == 2 and not list(tmp_path.iterdir())


def test_other_options_are_other_fits(problem, shared, counted):  # noqa: F811
    gem.pretrain(problem, OPTS)
    gem.pretrain(problem, gem.GEMPubOptions(**{**FAST["gem_pub"], "pretrain_steps": 7}))
    assert len(counted) == 2 and len(list(shared.glob("*.npz"))) == 2


@pytest.mark.parametrize("damage", ["truncated", "other structure"])
def test_a_damaged_or_foreign_file_is_fitted_again_and_replaced(damage, problem,  # noqa: F811
                                                                shared, counted):
    fitted = gem.pretrain(problem, OPTS)
    [path] = shared.glob("*.npz")
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:100])
    else:
        np.savez(path, leaf0=np.zeros(3), info=np.array(json.dumps({})))
    gem._PRETRAINED.clear()
    again = gem.pretrain(problem, OPTS)
    assert len(counted) == 2
    assert all(np.array_equal(a, b) for a, b in zip(_leaves(fitted[:2]), _leaves(again[:2])))
    assert PretrainedStore(path.parent).get(path.stem, fitted[0], lambda: pytest.fail("refit"))


def test_the_file_holds_the_fit_not_the_recomputed_noise(problem, shared, counted):  # noqa: F811
    """z is drawn again from the pre-training seed in every process; only the fitted leaves and
    the fit's information are stored."""
    params, _, _ = gem.pretrain(problem, OPTS)
    [path] = shared.glob("*.npz")
    with np.load(path) as stored:
        assert sorted(stored.files) == sorted(["info", *(f"leaf{i}" for i in
                                                         range(len(_leaves(params))))])


def test_the_release_is_the_same_from_a_stored_fit(problem, tmp_path, counted):  # noqa: F811
    def release():
        return run_algorithm("gem_pub", problem, eps=1.0, delta=1e-6, T=3,
                             rng=np.random.default_rng(5), **FAST["gem_pub"])
    fresh = release().answers
    with shared_under(tmp_path):
        gem._PRETRAINED.clear()
        stored = release().answers
        gem._PRETRAINED.clear()
        read = release().answers
    assert np.array_equal(read, fresh) and np.array_equal(stored, fresh)
    assert len(counted) == 3 - 1        # fresh, then stored once and read once


def test_the_runner_shares_under_the_results_dir_while_it_computes(tmp_path, monkeypatch):
    seen, real = [], query_release.release_job

    def spy(*args, **kwargs):
        seen.append(shared_folder("gem_pretrain"))
        return real(*args, **kwargs)
    monkeypatch.setattr(query_release, "release_job", spy)
    cfg = compose_config(["dataset.preset=tiny", "T=2", "workload.size=4", "runs=1",
                          f"results_dir={tmp_path}"])
    assert query_release.run_repetition(check_config(cfg), 0) is not None
    assert seen == [tmp_path / "cache" / "gem_pretrain"]
    assert shared_folder("gem_pretrain") is None            # only while it computes
