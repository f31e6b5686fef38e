"""Registry of named bounds: ``evaluate(id, **params)`` and ``list_bounds()``.

Every bound is a keyword-only function registered under ``<paper>.<result>[.<variant>]``
(e.g. ``beimel2014.thm7.2``, ``liu2021.prop4.3.n``). Its docstring states the result it
implements (paper, theorem, equation); its parameters come from one vocabulary (``VOCABULARY``)
plus ``c``, the user constant of an O(·)/Ω(·) shape (default 1). ``explicit`` tells whether the
paper states the constants (True) or only the shape (False).
"""
from __future__ import annotations

import difflib
import inspect
import math
from dataclasses import dataclass, field
from typing import Callable

VOCABULARY = ("d", "p", "alpha", "beta", "eps", "delta", "rho", "m", "n", "n_pub", "n_priv",
              "X_size", "H_size", "Q_size", "T", "D2", "Dinf")
SHAPE_CONSTANT = "c"
VARIANTS = ("paper", "corrected", "derived")


@dataclass(frozen=True)
class Bound:
    """One registered bound: id, function, parameter names, defaults and provenance."""

    id: str
    func: Callable
    params: tuple[str, ...]
    defaults: dict
    explicit: bool
    variant: str

    @property
    def paper(self) -> str:
        return self.id.split(".", 1)[0]

    @property
    def summary(self) -> str:
        """First line of the docstring: the statement in one line."""
        return (self.func.__doc__ or "").strip().splitlines()[0]

    @property
    def statement(self) -> str:
        return inspect.cleandoc(self.func.__doc__ or "")

    def signature(self) -> str:
        return ", ".join(p if p not in self.defaults else f"{p}={self.defaults[p]}"
                         for p in self.params)


@dataclass(frozen=True)
class BoundResult:
    """Value of a bound at given parameters; ``details`` holds intermediate quantities."""

    id: str
    value: float
    explicit: bool
    variant: str
    params: dict
    details: dict = field(default_factory=dict)

    def __float__(self) -> float:
        return self.value


_REGISTRY: dict[str, Bound] = {}


def register(bound_id: str, *, explicit: bool, variant: str = "paper") -> Callable:
    """Decorator registering a keyword-only bound function under ``bound_id``."""
    def wrap(func: Callable) -> Callable:
        _REGISTRY[bound_id] = _make_bound(bound_id, func, explicit, variant)
        return func
    return wrap


def _make_bound(bound_id: str, func: Callable, explicit: bool, variant: str) -> Bound:
    sig = inspect.signature(func)
    names = tuple(sig.parameters)
    allowed = set(VOCABULARY) | {SHAPE_CONSTANT}
    bad = [p for p in names if p not in allowed]
    if bad or bound_id in _REGISTRY or variant not in VARIANTS or not func.__doc__:
        raise RuntimeError(f"cannot register {bound_id}: parameters {bad} outside the vocabulary, "
                           "duplicate id, unknown variant or missing docstring")
    if not explicit and SHAPE_CONSTANT not in names:
        raise RuntimeError(f"cannot register {bound_id}: a shape bound needs the constant 'c'")
    defaults = {k: v.default for k, v in sig.parameters.items()
                if v.default is not inspect.Parameter.empty}
    return Bound(bound_id, func, names, defaults, explicit, variant)


def get_bound(bound_id: str) -> Bound:
    """The registered bound ``bound_id``; unknown ids raise a one-line ``KeyError``."""
    if bound_id in _REGISTRY:
        return _REGISTRY[bound_id]
    paper = bound_id.split(".", 1)[0]
    same = sorted(b for b in _REGISTRY if b.startswith(paper + "."))
    hint = same or difflib.get_close_matches(bound_id, list(_REGISTRY), n=8) or sorted(
        {b.split(".", 1)[0] for b in _REGISTRY})
    raise KeyError(f"unknown bound id {bound_id!r}; expected one of: {', '.join(hint)} "
                   "(see pubpriv_core.bounds.list_bounds())")


def list_bounds(paper: str | None = None) -> list[Bound]:
    """All registered bounds (optionally of one paper), sorted by id."""
    return [b for k, b in sorted(_REGISTRY.items()) if paper is None or b.paper == paper]


def evaluate(bound_id: str, **params) -> BoundResult:
    """Evaluate bound ``bound_id`` at ``params`` (names from ``VOCABULARY`` plus ``c``)."""
    bound = get_bound(bound_id)
    unknown = [k for k in params if k not in bound.params]
    missing = [k for k in bound.params if k not in params and k not in bound.defaults]
    if unknown or missing:
        what = (f"unknown parameter(s) {', '.join(unknown)}" if unknown
                else f"missing parameter(s) {', '.join(missing)}")
        raise TypeError(f"{bound_id}: {what}; expected {bound.signature()}")
    checked = {k: check_param(bound_id, k, v) for k, v in params.items()}
    out = bound.func(**checked)
    value, details = out if isinstance(out, tuple) else (out, {})
    return BoundResult(bound_id, float(value), bound.explicit, bound.variant,
                       {**bound.defaults, **checked}, dict(details))


_OPEN_UNIT = {"alpha", "beta", "delta"}
_INTEGER = {"d", "p"}
_NONNEGATIVE = {"D2", "Dinf"}


def check_param(bound_id: str, name: str, value) -> float | int:
    """Validate one parameter by its vocabulary meaning; a bad value raises a one-line error.

    Python ints are kept exact (so sizes such as ``X_size=2**2000`` work through ``math.log``).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(
            value, "__float__"):
        raise TypeError(f"{bound_id}: parameter {name} must be a number, got {value!r}")
    x = value if isinstance(value, int) else float(value)
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"{bound_id}: parameter {name} must be finite, got {value}")
    if name in _OPEN_UNIT and not 0 < x < 1:
        raise ValueError(f"{bound_id}: {name} must lie strictly between 0 and 1, got {value}")
    if name in _INTEGER and (x != int(x) or x < 1):
        raise ValueError(f"{bound_id}: {name} must be an integer >= 1, got {value}")
    if name in _NONNEGATIVE and x < 0:
        raise ValueError(f"{bound_id}: {name} must be >= 0, got {value}; divergences are >= 0")
    if name not in _OPEN_UNIT | _NONNEGATIVE and x <= 0:
        raise ValueError(f"{bound_id}: {name} must be > 0, got {value}")
    return int(x) if name in _INTEGER else x
