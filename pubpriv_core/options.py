"""Options declared once: a field's default, the values it accepts and its meaning, together.

Every option of an algorithm, a dataset, a public source, the workload and a run is a field of a
dataclass made with :func:`option`. The field carries its :class:`Rule` (what values it accepts,
with the one-line error and fix) and its help text in the field's metadata, and its vocabulary
(``choices``) when it has one. Everything else is derived from these fields: the runner's Hydra
schema (an enumeration per vocabulary, so Hydra refuses an unknown choice itself), the value
checks of every job (:func:`check_values`), the defaults of the Python API (:func:`defaults`) and
the configuration reference (:func:`help_of`).
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import MISSING, dataclass
from typing import Any, Callable, Iterator


@dataclass(frozen=True)
class Rule:
    """``accepts(value)`` is true for a valid value; ``requirement`` and ``fix`` make the error."""

    accepts: Callable[[Any], bool]
    requirement: str
    fix: str

    def check(self, path: str, value: Any) -> str | None:
        """None when ``value`` is valid, else the one-line error for field ``path``."""
        if self.accepts(value):
            return None
        return f"{path} must be {self.requirement}, got {value!r}; {self.fix}"


def is_number(value: Any) -> bool:
    """A finite int or float (not a bool; NumPy scalars count as numbers)."""
    import numpy as np
    return (isinstance(value, (int, float, np.integer, np.floating))
            and not isinstance(value, (bool, np.bool_)) and math.isfinite(value))


def is_integer(value: Any) -> bool:
    import numpy as np
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def real(low: float, high: float, fix: str, *, open_low: bool = False,
         open_high: bool = False) -> Rule:
    """A finite number in [low, high]; ``open_low`` / ``open_high`` exclude the ends."""
    def accepts(v):
        return is_number(v) and (v > low if open_low else v >= low) \
            and (v < high if open_high else v <= high)
    interval = f"{'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
    return Rule(accepts, f"a finite number in {interval}", fix)


def integer(low: int, high: int, fix: str) -> Rule:
    """An integer in [low, high]."""
    return Rule(lambda v: is_integer(v) and low <= v <= high, f"an integer in [{low}, {high}]",
                fix)


def choice(options, fix: str) -> Rule:
    options = tuple(options)
    return Rule(lambda v: v in options, f"one of {', '.join(map(str, options))}", fix)


def optional(rule: Rule, meaning: str) -> Rule:
    """None (which means ``meaning``) or a value ``rule`` accepts."""
    return Rule(lambda v: v is None or rule.accepts(v), f"null ({meaning}) or {rule.requirement}",
                rule.fix)


def flag(fix: str = "pass true or false") -> Rule:
    return Rule(lambda v: isinstance(v, bool), "true or false", fix)


def text(requirement: str, fix: str) -> Rule:
    """A non-blank string."""
    return Rule(lambda v: isinstance(v, str) and bool(v.strip()), requirement, fix)


def option(default: Any = MISSING, rule: Rule | None = None, help: str = "", *,
           choices: tuple | None = None, factory: Callable[[], Any] | None = None):
    """A dataclass field with its default (or ``factory``), its rule, its help text and its
    vocabulary. A field with ``choices`` and no rule gets the rule "one of the choices"."""
    if choices is not None and rule is None:
        rule = choice(choices, f"choose one of {', '.join(map(str, choices))}")
        if default is None:
            rule = optional(rule, "the default")
    metadata = {"rule": rule, "help": help, "choices": choices}
    if factory is not None:
        return dataclasses.field(default_factory=factory, metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


def rule_of(item: dataclasses.Field) -> Rule | None:
    return item.metadata.get("rule")


def help_of(item: dataclasses.Field) -> str:
    return item.metadata.get("help", "")


def choices_of(item: dataclasses.Field) -> tuple | None:
    return item.metadata.get("choices")


def default_of(item: dataclasses.Field) -> Any:
    if item.default is not MISSING:
        return item.default
    return item.default_factory() if item.default_factory is not MISSING else None


def defaults(cls: type | None) -> dict[str, Any]:
    """Every field of options dataclass ``cls`` at its default (None: no options)."""
    if cls is None:
        return {}
    return {item.name: default_of(item) for item in dataclasses.fields(cls)}


def value_errors(cls, values: dict[str, Any], prefix: str = "") -> Iterator[str]:
    """The one-line error of every field of ``values`` that its rule in ``cls`` refuses (path
    ``prefix`` + field, as the user writes it)."""
    known = {item.name: item for item in dataclasses.fields(cls)}
    for name, value in values.items():
        item = known.get(name)
        rule = rule_of(item) if item is not None else None
        if rule is not None:
            problem = rule.check(prefix + name, value)
            if problem:
                yield problem


def check_values(cls, values: dict[str, Any], prefix: str = "") -> None:
    """Refuse the first value of ``values`` its rule in ``cls`` refuses (one-line ValueError);
    an unknown key is refused too."""
    known = {item.name for item in dataclasses.fields(cls)}
    for name in values:
        if name not in known:
            raise ValueError(f"unknown option {prefix}{name}; choose from "
                             f"{', '.join(sorted(known)) or 'none'}")
    for problem in value_errors(cls, values, prefix):
        raise ValueError(problem)


def build(cls, values: dict[str, Any], prefix: str = ""):
    """``cls(**values)`` after :func:`check_values`."""
    check_values(cls, values, prefix)
    return cls(**values)
