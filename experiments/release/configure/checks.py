"""Value checks of a resolved run config, done before anything is written.

Hydra's structured configs (:mod:`experiments.release.configure.schema`) already reject unknown keys and
wrong types; here are the checks on values: every field against its rule
(:mod:`experiments.release.configure.rules`: finite, in range, a writable ``results_dir``), and those that
need the data — the dataset is present or downloadable, 1 ≤ k ≤ d, W ≤ C(d, k), the biased
attribute and value exist — and the quantities derived from the values together: δ = 1/n² below
1, and every check the algorithm's run would make (its module's ``check``: options, ρ(ε, δ) not
underflowing, per-round budgets, MWEM's domain size, DualQuery's calibrated rounds, JAM-PGM's
first-round size limit). Every failure is a :class:`ConfigError` whose message is one line
naming the problem and the fix.
"""
from __future__ import annotations

import math
from dataclasses import fields
from typing import Any

from experiments.release.configure.rules import check_fields
from pubpriv_core.data.paths import DataUnavailableError
from pubpriv_core.job import Job


class ConfigError(ValueError):
    """A run configuration that cannot be run; the message says what to change."""


def check_config(cfg: dict[str, Any]) -> Job:
    """All checks — the keys, the scalar values, then those that load the data (cached) — and
    the config's resolved :class:`~pubpriv_core.job.Job` (the edge: below it everything takes
    the job)."""
    check_keys(cfg)
    check_scalars(cfg)
    return check_data(cfg)


def resolve_job(cfg: dict[str, Any]) -> Job:
    """The :class:`~pubpriv_core.job.Job` of a config already checked (a sweep's task in a
    worker): its n from repetition 0's problem (cached)."""
    from pubpriv_core.problems import config_problem, data_context

    with data_context(cfg.get("data_root")):
        return Job.from_config(cfg, config_problem(cfg, 0).n)


def check_keys(cfg: dict[str, Any]) -> None:
    """Exactly the schema's keys: Hydra lets ``+key=value`` add and ``~key`` delete keys even in
    a structured config, and the runner would silently ignore or miss them."""
    from experiments.release.configure.schema import SCHEMAS, RunConf, WorkloadConf

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
    """Every field against its rule (:mod:`experiments.release.configure.rules`): no data needed."""
    problem = check_fields(cfg)
    if problem:
        raise ConfigError(problem)
    _check_budget_choice(cfg)
    _check_public_of_own_table(cfg)


def _check_budget_choice(cfg: dict[str, Any]) -> None:
    """``eps_equiv`` replaces ``eps``: both set is ambiguous (eps left at its default is not)."""
    from experiments.release.configure.schema import RunConf

    if cfg.get("eps_equiv") is not None and cfg.get("eps", RunConf.eps) != RunConf.eps:
        raise ConfigError(f"eps={cfg['eps']} and eps_equiv={cfg['eps_equiv']} are both set; "
                          f"eps_equiv sets eps = eps_equiv*n_ref/n: pass eps={RunConf.eps} "
                          "(also to pin a preset's eps axis) or drop eps_equiv")


def _check_public_of_own_table(cfg: dict[str, Any]) -> None:
    """A user's CSV is private whole: no public rows are drawn from it."""
    kind = cfg["public"]["kind"]
    if cfg["dataset"]["name"] == "csv" and kind in ("resample", "biased"):
        raise ConfigError(f"public={kind} would draw public rows from your private CSV; pass "
                          "public=csv public.path=<public CSV>, or public=none for no public "
                          "data")


def check_data(cfg: dict[str, Any]) -> Job:
    """Checks needing the data: the workload against the domain, then repetition 0's problem is
    built (which catches every data-layer error; the problem is cached for the run itself); its
    n private rows resolve the job's ε and δ, checked with the algorithm's own checks."""
    from pubpriv_core.problems import config_problem, data_context, load

    try:
        with data_context(cfg.get("data_root")):
            domain = load(cfg["dataset"]).domain
            _check_workload(cfg, domain)
            _check_public_attribute(cfg, domain)
            problem = config_problem(cfg, run=0)
    except (DataUnavailableError, ValueError, KeyError) as err:
        raise ConfigError(_one_line(err)) from None
    return check_algorithm(cfg, problem)


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


def check_algorithm(cfg: dict[str, Any], problem) -> Job:
    """The job's derived quantities and the algorithm's own checks, as its run would make them:
    δ (null: 1/n² of the problem's n private rows) in (0, 1), then the algorithm module's
    ``check`` (:func:`pubpriv_core.algorithms.check_algorithm`: options, ρ(ε, δ), per-round
    budgets, size limits), for any algorithm of the registry, at the ε the job spends (set by
    ``eps_equiv`` when given)."""
    from experiments.release.configure.rules import RULES
    from pubpriv_core.algorithms import check_algorithm as algorithm_checks

    n = problem.n
    if cfg["delta"] is None:
        _require(1.0 / n ** 2 < 1, f"delta = 1/n^2 = {1.0 / n ** 2:g} for the n={n} private "
                                   f"row(s) of dataset {cfg['dataset']['name']}; pass "
                                   "delta=1e-6 or use a larger dataset")
    job = Job.from_config(cfg, n)
    problem_text = RULES["eps"].check("eps", job.eps)
    _require(problem_text is None, f"eps_equiv={cfg.get('eps_equiv')} gives {problem_text} "
                                   f"(n = {n}); pass a smaller eps_equiv")
    try:
        algorithm_checks(job.algo, problem.public, eps=job.eps, delta=job.delta, T=job.T,
                         **job.plain_options)
    except (ValueError, TypeError) as err:
        raise ConfigError(_one_line(err)) from None
    _check_plugin(cfg["algo"], problem)
    return job


def _check_plugin(algo: dict[str, Any], problem) -> None:
    """An algorithm plugin's own data check (:class:`pubpriv_core.algorithms.plugins.AlgorithmPlugin`)."""
    from pubpriv_core.algorithms.plugins import PLUGINS

    plugin = PLUGINS.get(algo["name"])
    if plugin is not None and plugin.check is not None:
        try:
            plugin.check(problem.public, {k: v for k, v in algo.items() if k != "name"})
        except ValueError as err:
            raise ConfigError(_one_line(err)) from None


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ConfigError(message)


def _one_line(err: BaseException) -> str:
    text = str(err.args[0]) if isinstance(err, KeyError) and err.args else str(err)
    text = text.strip() or type(err).__name__
    return " ".join(text.split())
