"""Nandi & Bassily 2020 on unions of K intervals: exact relabelling law, chunk learners, runs."""
import itertools
import math

import numpy as np
import pytest

from pubpriv_core.learning import nandi2020_unions as U
from pubpriv_core.learning.nandi2020 import AgPrivClParams, subsamp_answer, subsamp_answer_counts


def _runs(labels) -> int:
    l = np.asarray(labels)
    return int(np.sum((l == 1) & (np.concatenate([[0], l[:-1]]) == 0)))


def test_relabel_union_samples_the_exponential_mechanism_exactly():
    y, K, eps = np.array([1, 0, 1, 1, 0, 1], np.int8), 2, 1.0
    pats = [p for p in itertools.product([0, 1], repeat=len(y)) if _runs(p) <= K]
    w = np.array([math.exp(-eps * np.sum(np.array(p) != y) / 2) for p in pats])
    w /= w.sum()
    index = {p: i for i, p in enumerate(pats)}
    rng, R = np.random.default_rng(1), 20000
    counts = np.zeros(len(pats))
    for _ in range(R):
        counts[index[tuple(U.relabel_union(y, K, rng, eps))]] += 1
    assert np.all(np.abs(counts / R - w) < 5 * np.sqrt(w * (1 - w) / R) + 1e-3)


def test_relabel_union_crosses_checkpoint_blocks():
    task = U.NoisyUnion.spaced(2, 0.05)
    rng = np.random.default_rng(2)
    x, y = task.sample_sorted(3 * U._BLOCK + 17, rng)
    labels = U.relabel_union(y, 2, rng)
    assert _runs(labels) <= 2 and np.mean(labels != task.target(x)) < 1e-3


def test_viterbi_is_a_minimum_mistake_union():
    rng = np.random.default_rng(3)
    y = (rng.random((40, 7)) < 0.5).astype(np.int8)
    out = U._viterbi_rows(y, 2)
    for row, lab in zip(y, out):
        best = min(np.sum(np.array(p) != row) for p in itertools.product([0, 1], repeat=7) if _runs(p) <= 2)
        assert _runs(lab) <= 2 and np.sum(lab != row) == best


def test_chunk_votes_count_intervals_containing_queries():
    x = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    y = np.array([[0, 1, 1, 0, 1, 0]], np.int8)
    q = np.array([0.05, 0.2, 0.34, 0.36, 0.5, 0.56])
    assert U.erm_union_votes(x[None, :], y, 2, q).tolist() == [0, 1, 1, 0, 1, 0]
    assert U.erm_union_votes(x[None, :], y, 1, q).sum() <= 4  # one interval: a run is dropped or merged
    labels = np.array([0, 1, 1, 0, 0, 1], np.int8)
    ct = U.consistent_union_votes(50, 200, labels, x, np.array([0.05, 0.25, 0.45, 0.95]), np.random.default_rng(4))
    assert ct.tolist() == [0, 50, 0, 50]


def test_counts_path_matches_threshold_path():
    rng_a, rng_b = np.random.default_rng(5), np.random.default_rng(5)
    chunk_t, q = np.random.default_rng(6).random(301), np.random.default_rng(7).random(200)
    a = subsamp_answer(chunk_t, q, 5, 3.0, 20.0, rng_a)
    b = subsamp_answer_counts(np.searchsorted(np.sort(chunk_t), q, side="right"), 301, 5, 3.0, 20.0, rng_b)
    assert np.array_equal(a.labels, b.labels) and a.c == b.c


def test_union_runs_learn_with_large_chunks_and_fail_with_tiny_ones():
    task = U.NoisyUnion.spaced(2, 0.05)
    p = AgPrivClParams(1000, 1.0, 1e-3, 0.1, 0.1)
    k = int(2 * p.subsamp.w)
    good = U.ag_priv_cl_union(task, k, 160, p, np.random.default_rng(8))
    bad = U.ag_priv_cl_union(task, k, 8, p, np.random.default_rng(8))
    assert good.expected_error <= 0.15 < bad.expected_error and bad.halted
    b_good = U.btt18_union(task, 6000, 200, 1000, 1.0, 1e-3, 0.1, 0.1, np.random.default_rng(9))
    b_bad = U.btt18_union(task, 6000, 6, 1000, 1.0, 1e-3, 0.1, 0.1, np.random.default_rng(9))
    assert b_good.expected_error <= 0.15 < b_bad.expected_error


def test_noisy_union_validates_and_labels():
    task = U.NoisyUnion.spaced(3, 0.0)
    assert task.vc_dim == 6 and task.K == 3
    assert task.target(np.array([0.1, 1.5 / 7, 2.5 / 7, 3.5 / 7])).tolist() == [0, 1, 0, 1]
    with pytest.raises(ValueError, match="edges"):
        U.NoisyUnion((0.2, 0.1))
    with pytest.raises(ValueError, match="eta"):
        U.NoisyUnion((0.1, 0.2), 0.5)


def test_compiled_labels_and_sorted_sample_equal_the_numpy_forms():
    task = U.NoisyUnion.spaced(3, 0.1)
    x = np.random.default_rng(1).random((30, 7))
    fast, ref = np.random.default_rng(2), np.random.default_rng(2)
    assert np.array_equal(task.labels(x, fast), task.target(x) ^ (ref.random(x.shape) < 0.1).astype(np.int8))
    xs, _ = task.sample_sorted(1000, fast)
    gaps = ref.standard_exponential(1001)
    ref.random(1000)
    assert np.array_equal(xs, np.cumsum(gaps[:-1]) / gaps.sum()) and fast.random() == ref.random()
