"""Sample-complexity, privacy-conversion and cover bounds of the five papers, as named calculators.

``evaluate("beimel2014.thm7.2", d=8, alpha=0.1, beta=0.05, eps=1.0).value`` → 28.3;
``list_bounds()`` lists every registered id (one module per paper registers its results).
"""
from . import alon2019, bassily2020, beimel2014, liu2021, nandi2020  # noqa: F401  (registers)
from .registry import VOCABULARY, Bound, BoundResult, evaluate, get_bound, list_bounds

__all__ = ["VOCABULARY", "Bound", "BoundResult", "evaluate", "get_bound", "list_bounds"]
