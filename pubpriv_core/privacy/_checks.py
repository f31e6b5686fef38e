"""Argument checks shared by the privacy module: each failure is a one-line ``ValueError``."""
from __future__ import annotations

import math

import numpy as np


def positive(name: str, value: float, fix: str) -> float:
    """Return ``value`` as a float after checking that it is finite and > 0."""
    value = float(value)
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a finite number > 0, got {value}; {fix}")
    return value


def non_negative(name: str, value: float, fix: str) -> float:
    """Return ``value`` as a float after checking that it is finite and >= 0."""
    value = float(value)
    if not (math.isfinite(value) and value >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {value}; {fix}")
    return value


def probability(name: str, value: float, fix: str) -> float:
    """Return ``value`` as a float after checking 0 < value < 1."""
    value = float(value)
    if not 0 < value < 1:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value}; {fix}")
    return value


def count(name: str, value: int, fix: str) -> int:
    """Return ``value`` as an int after checking that it is an integer >= 1."""
    if isinstance(value, bool) or int(value) != value or value < 1:
        raise ValueError(f"{name} must be an integer >= 1, got {value!r}; {fix}")
    return int(value)


def generator(rng: object) -> np.random.Generator:
    """Check that ``rng`` is an explicit ``numpy.random.Generator`` (never the global RNG)."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}; "
                        "pass numpy.random.default_rng(seed)")
    return rng


def score_vector(scores: object) -> tuple[np.ndarray, float]:
    """Return ``scores`` as a 1-D float array and its maximum, checked finite (no NaN, no +inf).

    Entries equal to -inf are allowed: they are candidates that can never be selected.
    """
    scores = np.asarray(scores, dtype=float)
    if scores.ndim != 1 or scores.size == 0:
        raise ValueError(f"scores must be a non-empty 1-D array, got shape {scores.shape}; "
                         "pass one score per candidate")
    best = float(scores.max())
    if not math.isfinite(best):
        raise ValueError("scores contain NaN or +inf (or are all -inf); "
                         "pass finite scores (-inf marks an impossible candidate)")
    return scores, best
