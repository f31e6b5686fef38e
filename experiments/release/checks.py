"""Value checks of a resolved run config, done before anything is written.

Hydra's structured configs (:mod:`experiments.release.config`) already reject unknown keys and
wrong types; here are the checks on values: every field against its rule
(:mod:`experiments.release.rules`: finite, in range, a writable ``results_dir``), and those that need the data — the dataset is present or
downloadable, 1 ≤ k ≤ d, W ≤ C(d, k), the biased attribute and value exist, MWEM's domain fits,
DualQuery's calibration leaves at least two rounds, the options of AIM, MST and JAM-PGM
parse. Every failure is a
:class:`ConfigError` whose message is one line naming the problem and the fix.
"""
from __future__ import annotations

import math
from dataclasses import fields
from importlib import import_module
from typing import Any

from experiments.release.rules import check_fields
from pubpriv_core.data.paths import DataUnavailableError


#: Private-PGM mechanisms: algorithm -> (module, options class with ``from_config``).
PGM_OPTIONS = {"aim": ("pubpriv_core.algorithms.aim", "AIMOptions"),
               "mst": ("pubpriv_core.algorithms.mst", "MSTOptions"),
               "jam_pgm": ("pubpriv_core.algorithms.jam_pgm", "JAMOptions")}


class ConfigError(ValueError):
    """A run configuration that cannot be run; the message says what to change."""


def check_config(cfg: dict[str, Any]) -> None:
    """All checks: the keys, the scalar values, then those that load the data (cached)."""
    check_keys(cfg)
    check_scalars(cfg)
    check_data(cfg)


def check_keys(cfg: dict[str, Any]) -> None:
    """Exactly the schema's keys: Hydra lets ``+key=value`` add and ``~key`` delete keys even in
    a structured config, and the runner would silently ignore or miss them."""
    from experiments.release.config import SCHEMAS, RunConf, WorkloadConf

    nodes = [("", cfg, RunConf), ("workload.", cfg.get("workload"), WorkloadConf)]
    for group, options in SCHEMAS.items():
        node = cfg.get(group)
        name = node.get("kind" if group == "public" else "name") if isinstance(node, dict) else None
        nodes.append((f"{group}.", node, options.get(name)))
    for prefix, node, schema in nodes:
        if not isinstance(node, dict) or schema is None:
            continue
        expected = {f.name for f in fields(schema)}
        for key in sorted(set(node) - expected):
            raise ConfigError(f"unknown key {prefix}{key}; remove it (`python run.py --cfg job` "
                              "lists the valid keys)")
        for key in sorted(expected - set(node)):
            raise ConfigError(f"missing key {prefix}{key}; do not delete it with ~{prefix}{key}")


def check_scalars(cfg: dict[str, Any]) -> None:
    """Every field against its rule (:mod:`experiments.release.rules`): no data needed."""
    problem = check_fields(cfg)
    if problem:
        raise ConfigError(problem)
    _check_budget_choice(cfg)


def _check_budget_choice(cfg: dict[str, Any]) -> None:
    """``eps_equiv`` replaces ``eps``: both set is ambiguous (eps left at its default is not)."""
    from experiments.release.config import RunConf

    if cfg.get("eps_equiv") is not None and cfg.get("eps", RunConf.eps) != RunConf.eps:
        raise ConfigError(f"eps={cfg['eps']} and eps_equiv={cfg['eps_equiv']} are both set; "
                          f"eps_equiv sets eps = eps_equiv*n_ref/n: pass eps={RunConf.eps} "
                          "(also to pin a preset's eps axis) or drop eps_equiv")


def check_data(cfg: dict[str, Any]) -> None:
    """Checks needing the data: the workload against the domain, then repetition 0's problem is
    built (which catches every data-layer error; the problem is cached for the run itself)."""
    from experiments.release.problems import build_problem, data_context, load

    try:
        with data_context(cfg.get("data_root")):
            domain = load(cfg["dataset"]).domain
            _check_workload(cfg, domain)
            _check_public_attribute(cfg, domain)
            problem = build_problem(cfg, run=0)
    except (DataUnavailableError, ValueError, KeyError) as err:
        raise ConfigError(_one_line(err)) from None
    _check_algorithm(cfg, problem)


def _check_workload(cfg: dict[str, Any], domain) -> None:
    d, k, size = len(domain), cfg["workload"]["k"], cfg["workload"]["size"]
    _require(k <= d, f"workload.k={k} exceeds the {d} attributes of dataset "
                     f"{cfg['dataset']['name']}; choose k <= {d}")
    _require(size is None or size <= math.comb(d, k),
             f"workload.size={size} exceeds C({d},{k})={math.comb(d, k)}; "
             "choose a smaller size or null for all marginals")


def _check_public_attribute(cfg: dict[str, Any], domain) -> None:
    """A biased source's attribute is one of the domain's, and its value within its range."""
    attribute = cfg["public"].get("attribute")
    if attribute is None:
        return
    _require(attribute in domain,
             f"public.attribute={attribute!r} is not an attribute of dataset "
             f"{cfg['dataset']['name']}; choose one of {', '.join(domain.attributes)}")
    size = domain.shape[domain.attributes.index(attribute)]
    _require(cfg["public"]["value"] < size,
             f"public.value={cfg['public']['value']} is outside the {size} values of "
             f"{attribute}; choose a value in 0..{size - 1}")


def _check_algorithm(cfg: dict[str, Any], problem) -> None:
    from pubpriv_core.privacy import default_delta

    from experiments.release.rules import RULES
    from experiments.release.signal import release_eps

    algo, eps = cfg["algo"], release_eps(cfg, problem.n)
    problem_text = RULES["eps"].check("eps", eps)
    _require(problem_text is None, f"eps_equiv={cfg.get('eps_equiv')} gives {problem_text} "
                                   f"(n = {problem.n}); pass a smaller eps_equiv")
    if algo["name"] == "mwem":
        from pubpriv_core.algorithms.mwem import check_domain_size
        try:
            check_domain_size(problem.private.domain.size(), algo["max_domain_size"])
        except ValueError as err:
            raise ConfigError(_one_line(err)) from None
    if algo["name"] in PGM_OPTIONS:
        module, options_class = PGM_OPTIONS[algo["name"]]
        try:
            getattr(import_module(module), options_class).from_config(
                problem, {k: v for k, v in algo.items() if k != "name"})
        except ValueError as err:
            raise ConfigError(_one_line(err)) from None
    if algo["name"] == "dualquery":
        from pubpriv_core.algorithms.dualquery import calibrate_rounds
        delta = cfg["delta"] if cfg["delta"] is not None else default_delta(problem.n)
        rounds = calibrate_rounds(eps, delta, problem.n, algo["eta"], algo["samples"],
                                  algo.get("accounting", "advanced"))
        _require(rounds >= 2, f"DualQuery fits only {rounds} round(s) at eps={eps:g}, "
                              f"eta={algo['eta']}, samples={algo['samples']}, n={problem.n}; "
                              "use a larger eps or a smaller algo.eta / algo.samples")


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ConfigError(message)


def _one_line(err: BaseException) -> str:
    text = str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err)
    text = text.strip() or type(err).__name__
    return " ".join(text.split())
