"""Same seed ⇒ identical numbers whatever n_jobs is; common random numbers across algorithms."""
import numpy as np
import pytest

from experiments.release.configure.cli import compose_config
from experiments.release.configure.checks import check_config
from pubpriv_core.harness import release_job
from pubpriv_core.problems import build_problem, config_problem, repetition_streams
from experiments.release.running.repetitions import (repetition_release, run_config,
                                               show_progress)

NUMBERS = ("max_error", "mean_error", "rmse", "last_max_error", "rho", "eps_spent", "delta",
           "n_private", "n_public", "support_size", "num_queries")


def _config(tmp_path, *overrides):
    return compose_config(["dataset.preset=tiny", "workload.size=6", "T=20", "runs=3",
                           f"results_dir={tmp_path}", *overrides])


def test_records_identical_for_any_n_jobs(tmp_path):
    serial = run_config(_config(tmp_path / "serial", "n_jobs=1", "progress=false"))
    parallel = run_config(_config(tmp_path / "parallel", "n_jobs=2", "progress=false"))
    assert [r["run"] for r in parallel] == [0, 1, 2]
    for a, b in zip(serial, parallel):
        assert {k: a[k] for k in NUMBERS} == {k: b[k] for k in NUMBERS}
        assert a["config_hash"] == b["config_hash"]
    assert len({r["max_error"] for r in serial}) == 3  # the repetitions do differ


def test_each_repetition_releases_with_its_own_algorithm_stream(tmp_path):
    """Repetition r's release draws from repetition r's algorithm stream (not another's), so the
    same problem released as repetitions 0 and 1 gives different answers."""
    cfg = _config(tmp_path)
    job = check_config(cfg)
    problem = build_problem(job, 1)
    expected = release_job(job, problem, repetition_streams(cfg["seed"], 1)[1])
    got = repetition_release(job, problem, 1)
    np.testing.assert_array_equal(got.answers, expected.answers)
    other = repetition_release(job, problem, 0)
    assert not np.array_equal(other.answers, got.answers)


def test_rerun_with_force_reproduces_and_skip_reuses(tmp_path, monkeypatch):
    cfg = _config(tmp_path, "runs=2")
    first = run_config(cfg)
    with monkeypatch.context() as patch:
        patch.setattr("experiments.release.running.repetitions.run_repetition",
                      lambda *a: pytest.fail("stored repetitions must be skipped"))
        assert run_config(cfg) == first
    forced = run_config(dict(cfg, force=True))
    assert [{k: r[k] for k in NUMBERS} for r in forced] == \
        [{k: r[k] for k in NUMBERS} for r in first]
    more = run_config(dict(cfg, runs=3))
    assert [r["max_error"] for r in more[:2]] == [r["max_error"] for r in first]


def test_split_depends_on_seed_and_run_only(tmp_path):
    a = config_problem(_config(tmp_path, "algo=pmwpub", "eps=0.1", "T=5"), run=1)
    b = config_problem(_config(tmp_path, "algo=mwem", "eps=1", "T=50"), run=1)
    c = config_problem(_config(tmp_path), run=2)
    d = config_problem(_config(tmp_path, "seed=1"), run=1)
    assert a is b  # the cached problem is shared across algorithms, eps and T
    assert not np.array_equal(a.private.records, c.private.records)
    assert not np.array_equal(a.private.records, d.private.records)


def test_streams_are_independent_children():
    data, algo = repetition_streams(0, 0)
    data2, algo2 = repetition_streams(0, 0)
    assert data.integers(1 << 60) == data2.integers(1 << 60)
    assert algo.integers(1 << 60) == algo2.integers(1 << 60)
    other_run = repetition_streams(0, 1)[0]
    assert other_run.integers(1 << 60) != repetition_streams(0, 0)[0].integers(1 << 60)


@pytest.mark.parametrize("setting, tty, ci, shown", [
    (True, False, "1", True), (False, True, None, False), (None, True, None, True),
    (None, True, "1", False), (None, False, None, False)])
def test_progress_bar_only_on_a_terminal_outside_ci(monkeypatch, setting, tty, ci, shown):
    monkeypatch.setattr("sys.stderr.isatty", lambda: tty)
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    assert show_progress(setting) is shown


def test_problem_cache_evicts_by_memory(tmp_path):
    from pubpriv_core.problems import ProblemCache, problem_bytes, problem_key

    cfg = _config(tmp_path)
    cache = ProblemCache(max_bytes=1)  # keeps only the newest problem
    first = cache.get(problem_key(cfg, 0))
    assert cache.get(problem_key(cfg, 0)) is first and len(cache) == 1
    cache.get(problem_key(cfg, 1))
    assert len(cache) == 1 and cache.get(problem_key(cfg, 0)) is not first
    size = problem_bytes(first)
    roomy = ProblemCache(max_bytes=2 * size + size // 2)
    for run in range(4):
        roomy.get(problem_key(cfg, run))
    assert len(roomy) == 2 and roomy.nbytes <= roomy.max_bytes
