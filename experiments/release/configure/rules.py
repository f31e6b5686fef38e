"""What every config field accepts: one rule per field, checked before any job runs.

Hydra's structured configs check types (and the vocabularies of enum fields); a type says nothing
about ε = inf, T = 0 or a share of −1, so every other field has a rule here. :data:`RULES` maps a
field path to its rule; a group field is looked up as ``<group>.<option>.<field>`` first, then as
``<group>.<field>`` (a field every option of the group shares, such as ``public.fraction``).
To add an algorithm, dataset or public source with options, add a rule per option here:
``tests/test_runner_rules.py`` walks the config schema and fails for a field without one.
Checks that need the data (k ≤ d, the biased attribute's values, MWEM's domain size) live in
:mod:`experiments.release.configure.checks`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any, Callable, Iterator

from folktables.load_acs import state_list

from experiments.outputs import folder_problem
from pubpriv_core.data.frames import FILE_SUFFIXES
from pubpriv_core.data.nist_acs import YEARS as NIST_YEARS
from pubpriv_core.data.synthetic import PRESETS

ACS_FIRST_YEAR = 2014


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


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def real(low: float, high: float, fix: str, *, open_low: bool = False,
         open_high: bool = False) -> Rule:
    """A finite number in [low, high]; ``open_low`` / ``open_high`` exclude the ends."""
    def accepts(v):
        return _is_number(v) and (v > low if open_low else v >= low) \
            and (v < high if open_high else v <= high)
    interval = f"{'(' if open_low else '['}{low:g}, {high:g}{')' if open_high else ']'}"
    return Rule(accepts, f"a finite number in {interval}", fix)


def integer(low: int, high: int, fix: str) -> Rule:
    """An integer in [low, high]."""
    def accepts(v):
        return isinstance(v, int) and not isinstance(v, bool) and low <= v <= high
    return Rule(accepts, f"an integer in [{low}, {high}]", fix)


def choice(options, fix: str) -> Rule:
    options = tuple(options)
    return Rule(lambda v: v in options, f"one of {', '.join(map(str, options))}", fix)


def optional(rule: Rule, meaning: str) -> Rule:
    """None (which means ``meaning``) or a value ``rule`` accepts."""
    return Rule(lambda v: v is None or rule.accepts(v), f"null ({meaning}) or {rule.requirement}",
                rule.fix)


def _writable(path: Any) -> bool:
    """``path`` is a folder (or can become one) in which a file can be created right now."""
    return isinstance(path, str) and folder_problem(path) is None


def _folder_or_none(path: Any) -> bool:
    """None, or a non-empty path that is not an existing non-folder (it may be created later:
    an ACS download fills an empty data root)."""
    if path is None:
        return True
    if not isinstance(path, str) or not path.strip():
        return False
    try:
        folder = Path(path).expanduser()
        return folder.is_dir() or not folder.exists()
    except OSError:   # a name too long, a loop of links
        return False


def _acs_state(value: Any) -> bool:
    return isinstance(value, str) and value.upper() in state_list


def _file_or_none(value: Any, suffixes: tuple[str, ...] = ()) -> bool:
    """None, or a non-blank path ending in one of ``suffixes`` (any when empty); whether the
    file exists is checked when it is read, in one line naming it."""
    if value is None:
        return True
    return isinstance(value, str) and bool(value.strip()) and \
        (not suffixes or value.lower().endswith(suffixes))


def _column_entries(value: Any) -> bool:
    """A mapping column -> entry (a mapping of categories, bins, … or the word categorical or
    numerical); the entries' keys and values are checked when the domain is built."""
    return isinstance(value, dict) and all(
        isinstance(k, str) and k.strip() and isinstance(v, (dict, str)) for k, v in value.items())


WRITABLE = Rule(_writable, "a folder that exists or can be created, and is writable",
                "pass a writable results_dir (check its permissions, free space and mount)")
DATA_ROOT = Rule(_folder_or_none, "null ($PUBPRIV_DATA, else the per-user cache) or a folder",
                 "pass the folder that holds adult/, nist-acs-excerpts/ or acs/ (or set "
                 "PUBPRIV_DATA)")
ACS_STATE = Rule(_acs_state, "a US postal code such as PA", "pass e.g. state=PA")
CSV_FILE = Rule(_file_or_none, "the path of a CSV file", "pass the path of your CSV file")
ACS_YEAR = integer(ACS_FIRST_YEAR, date.today().year, "pass a year whose ACS 1-Year file exists")
SEED = integer(0, 2 ** 63 - 1, "pass a non-negative seed")

_DATASET = {
    "preset": choice(PRESETS, "pick a synthetic preset"),
    "role": choice(("private", "public"), "pick the synthetic model to sample"),
    "n": optional(integer(1, 10 ** 8, "pass a row count"), "the preset's rows"),
    "shift": real(0.0, 1.0, "pass the weight of the public model's independent part"),
    "seed": SEED,
    "concentration": real(0.0, 1e6, "pass a positive Dirichlet concentration such as 0.5",
                          open_low=True),
    "draw": integer(0, 2 ** 31, "pass 0 (the default sample) or another sample's number"),
}

#: the Adaptive Measurements algorithms (Liu, Vietri & Wu 2021) and their shared options
SUCCESSORS = ("pep", "pep_pub", "gem", "gem_pub", "rap")
_MIXTURE = {
    "K": integer(1, 10 ** 6, "pass the number of product components, e.g. 1000"),
    "max_idxs": integer(1, 10 ** 8, "pass the cells per loss evaluation, e.g. 10000"),
}
_GEM = {
    "embedding": integer(1, 10 ** 5, "pass the generator's noise dimension, e.g. 256"),
    "hidden": integer(1, 10 ** 5, "pass the residual layers' width, e.g. 256"),
    "loss_p": integer(1, 2, "pass the loss norm p, 1 or 2"),
    "lr": real(0.0, 1e3, "pass an Adam learning rate such as 1e-4", open_low=True),
    "eta_min": optional(real(0.0, 1e3, "pass the annealed learning rate such as 1e-5"),
                        "no annealing over rounds"),
    "ema_beta": real(0.0, 1.0, "pass the error EMA's weight such as 0.5", open_high=True),
    "ema_error_factor": real(0.0, 1e3, "pass the threshold's multiple of the error EMA such "
                                       "as 0.5"),
    "ema_weights_beta": real(0.0, 1.0, "pass the weight EMA's beta such as 0.9",
                             open_high=True),
}
_GEM_PUB = {
    "pretrain_steps": integer(1, 10 ** 7, "pass the public pre-training steps, e.g. 1000"),
    "pretrain_lr": real(0.0, 1e3, "pass the pre-training learning rate such as 5e-4",
                        open_low=True),
    "pretrain_eta_min": real(0.0, 1e3, "pass the pre-training's final learning rate such as "
                                       "1e-7"),
    "pretrain_refresh": integer(1, 10 ** 7, "pass steps between public error evaluations, "
                                            "e.g. 10"),
    "pretrain_seed": SEED,
}

RULES: dict[str, Rule] = {
    "eps": real(0.0, 1e3, "pass a privacy budget such as 1 (above 1000 nothing is private)",
                open_low=True),
    "delta": optional(real(0.0, 1.0, "pass e.g. 1e-9", open_low=True, open_high=True), "1/n^2"),
    "eps_equiv": optional(real(0.0, 1e3, "pass a paper-equivalent budget such as 0.25",
                               open_low=True), "use eps"),
    "n_ref": integer(1, 10 ** 9, "pass the reference private size, e.g. 100000"),
    "T": integer(1, 10 ** 6, "pass the number of rounds, e.g. 50"),
    "runs": integer(1, 10 ** 4, "pass the number of repetitions, e.g. 5"),
    "seed": SEED,
    "n_jobs": Rule(lambda v: isinstance(v, int) and not isinstance(v, bool)
                   and (1 <= v <= 4096 or v == -1), "-1 (all cores) or an integer in [1, 4096]",
                   "pass a worker count"),
    "results_dir": WRITABLE,
    "data_root": DATA_ROOT,
    "cache_gb": real(0.0, 1e4, "pass a memory budget in GB such as 4", open_low=True),
    "release_rows": optional(integer(0, 10 ** 9, "pass the number of synthetic records to draw "
                                                 "from each saved release, e.g. 10000"),
                             "n records for a graphical model, none for a weighted release"),
    "workload.k": integer(1, 1000, "pass the marginal order, e.g. 3"),
    "workload.size": optional(integer(1, 10 ** 7, "pass e.g. 64"), "all C(d, k) marginals"),
    "workload.seed": SEED,
    **{f"dataset.synthetic.{k}": rule for k, rule in _DATASET.items()},
    "dataset.nist_acs.year": choice(NIST_YEARS, "pick a year of the NIST excerpts"),
    "dataset.acs.state": ACS_STATE,
    "dataset.acs.year": ACS_YEAR,
    "dataset.csv.path": CSV_FILE,
    "dataset.csv.public_path": CSV_FILE,
    "dataset.csv.domain": Rule(lambda v: _file_or_none(v, FILE_SUFFIXES),
                               f"null (no domain file) or a {'/'.join(FILE_SUFFIXES)} file",
                               "pass a JSON or YAML file mapping each column to its entry"),
    "dataset.csv.columns": Rule(_column_entries, "a mapping column -> entry (categories, bins, "
                                "range, unseen, clip, values, kind)",
                                "write e.g. dataset.columns={age:{bins:[0,30,60,inf]}}"),
    "public.csv.path": CSV_FILE,
    "public.none.fraction": choice((1.0,), "leave it at 1: there are no public rows"),
    "public.fraction": real(0.0, 1.0, "pass the share of public rows kept, e.g. 0.01",
                            open_low=True),
    "public.private_share": real(0.0, 100.0, "pass a share of the dataset's rows such as 0.9",
                                 open_low=True),
    "public.public_share": real(0.0, 100.0, "pass a share of the dataset's rows such as 0.1",
                                open_low=True),
    "public.biased.delta": real(-1.0, 1.0, "pass the bias Δ of the group's share, e.g. 0.1"),
    "public.biased.attribute": Rule(lambda v: isinstance(v, str) and bool(v.strip()),
                                    "an attribute name", "pass e.g. attribute=sex"),
    "public.biased.value": integer(0, 10 ** 6, "pass a value code of the attribute"),
    "public.dataset.name": optional(choice(("synthetic", "adult", "nist_acs", "acs"),
                                           "pick the public dataset"), "the private dataset's"),
    "public.dataset.state": optional(ACS_STATE, "the private dataset's"),
    "public.dataset.year": optional(integer(ACS_FIRST_YEAR, date.today().year,
                                            "pass the public dataset's year"),
                                    "the private dataset's"),
    **{f"public.dataset.{k}": optional(rule, "the private dataset's")
       for k, rule in _DATASET.items() if k not in ("seed", "concentration", "draw")},
    "algo.mwem.max_domain_size": integer(1, 10 ** 12, "pass a cap on |X| such as 10000000"),
    "algo.dualquery.eta": real(0.0, 1e3, "pass a learning rate such as 2.0", open_low=True),
    "algo.dualquery.samples": integer(1, 10 ** 7, "pass the queries drawn per round, e.g. 200"),
    "algo.dualquery.max_T": optional(integer(2, 10 ** 7, "round 1 alone releases nothing; "
                                                         "pass a cap >= 2"), "no cap"),
    "algo.best_mixture.mw_iters": integer(1, 10 ** 6, "pass the MW estimate's rounds, e.g. 100"),
    "algo.best_mixture.lp_time_limit": real(0.0, 1e6, "pass seconds, e.g. 300", open_low=True),
    "algo.aim.rounds": optional(integer(1, 10 ** 6, "pass AIM's budget scale T, e.g. 144"),
                                "16·d"),
    "algo.aim.public_stddev": real(0.0, 1e12, "pass a public proxy's loss stddev such as 1",
                                   open_low=True),
    "algo.jam_pgm.rounds": integer(1, 10 ** 6, "pass the number of selections, e.g. 30"),
    **{f"algo.{algo}.{field}": rule for algo in ("aim", "jam_pgm") for field, rule in {
        "alpha": real(0.0, 1.0, "pass a budget share such as 0.9", open_low=True, open_high=True),
        "max_model_size": real(0.0, 1e9, "pass MB of model tables such as 80", open_low=True),
    }.items()},
    **{f"algo.{algo}.{field}": integer(1, 10 ** 7, "pass Private-PGM iterations such as 1000")
       for algo in ("aim", "mst", "jam_pgm") for field in ("iters", "final_iters")},
    **{f"algo.{algo}.alpha": real(0.0, 1.0, "pass the selection's share of a round such as 0.5",
                                  open_low=True, open_high=True)
       for algo in SUCCESSORS},
    **{f"algo.{algo}.max_iters": integer(1, 10 ** 6, "pass optimisation steps per round, e.g. 100")
       for algo in SUCCESSORS},
    "algo.pep.max_domain_size": integer(1, 10 ** 9, "pass a cap on |X| such as 2000000"),
    **{f"algo.{algo}.{field}": rule for algo in ("gem", "gem_pub", "rap")
       for field, rule in _MIXTURE.items()},
    **{f"algo.{algo}.{field}": rule for algo in ("gem", "gem_pub")
       for field, rule in _GEM.items()},
    **{f"algo.gem_pub.{field}": rule for field, rule in _GEM_PUB.items()},
    "algo.rap.marginals_per_round": integer(1, 10 ** 4, "pass marginals measured per round, "
                                                        "e.g. 2"),
    "algo.rap.lr": real(0.0, 1e3, "pass an Adam learning rate such as 0.1", open_low=True),
}


def rule_for(path: str) -> Rule | None:
    """The rule of field ``path`` (``<group>.<option>.<field>`` falls back to ``<group>.<field>``)."""
    if path in RULES:
        return RULES[path]
    parts = path.split(".")
    return RULES.get(f"{parts[0]}.{parts[-1]}") if len(parts) == 3 else None


def field_paths(cfg: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    """(rule path, value) of every field of a resolved run config."""
    for key, value in cfg.items():
        if key in ("dataset", "public", "algo"):
            option = value.get("kind" if key == "public" else "name")
            for field, sub in value.items():
                yield f"{key}.{option}.{field}", sub
        elif key == "workload":
            for field, sub in value.items():
                yield f"workload.{field}", sub
        else:
            yield key, value


def check_fields(cfg: dict[str, Any]) -> str | None:
    """The first rule violation of ``cfg`` as one line (paths as the user writes them), or None."""
    for path, value in field_paths(cfg):
        rule = rule_for(path)
        if rule is not None:
            parts = path.split(".")
            shown = f"{parts[0]}.{parts[-1]}" if len(parts) == 3 else path
            problem = rule.check(shown, value)
            if problem:
                return problem
    return None

