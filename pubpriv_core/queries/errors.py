"""Error metrics of a released answer vector against the true answers (Liu et al. 2021, §5.1).

The paper reports the max error max_{q∈Q} |q(D̃) − q(A)| over all cells of all workloads.
"""
from __future__ import annotations

import numpy as np


def max_error(true: np.ndarray, released: np.ndarray) -> float:
    return float(np.max(np.abs(true - released)))


def mean_error(true: np.ndarray, released: np.ndarray) -> float:
    return float(np.mean(np.abs(true - released)))


def rmse(true: np.ndarray, released: np.ndarray) -> float:
    return float(np.sqrt(np.mean((true - released) ** 2)))


def error_summary(true: np.ndarray, released: np.ndarray) -> dict[str, float]:
    """max, mean and root-mean-square error over all queries."""
    return {"max_error": max_error(true, released), "mean_error": mean_error(true, released),
            "rmse": rmse(true, released)}
