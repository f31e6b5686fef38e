"""Every built-in algorithm's options, declared once: default, accepted values and meaning.

One frozen dataclass per algorithm, its fields made with :func:`pubpriv_core.options.option`. The
algorithms parse their keyword options into these; the runner derives its Hydra schema, its value
rules and the configuration reference from them; the Python API takes its defaults from them.
The module is light (no numerical library beyond NumPy), so reading the options costs nothing at
start-up. Checks that need the problem (a public source, the domain's size) stay beside each
algorithm.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from pubpriv_core.options import integer, option, optional, real

SELECTIONS = ("permute_and_flip", "exponential", "exponential_bounded_range")
MEASUREMENTS = ("gaussian", "laplace")
OUTPUTS = ("paper", "released_code")
REPLAY_VARIANTS = ("paper", "released_code")
INITS = ("public", "uniform")
ACCOUNTING = ("advanced", "zcdp")
METHODS = ("lp", "mw", "both")
PUBLIC_CLIQUES = ("workload", "tree")
RELATION_NAMES = ("replace_one", "add_remove")
ESTIMATORS = ("auto", "full_table", "tree", "mbi")
LOSS_NORMS = (1, 2)
MWEM_MAX_DOMAIN_SIZE = 10_000_000
PEP_MAX_DOMAIN_SIZE = 2_000_000
LP_TIME_LIMIT = 300.0   # seconds


def check_positive_int(name: str, value, allow_none: bool = True) -> None:
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"algo.{name} must be a positive integer{' or null' * allow_none}, "
                         f"got {value!r}; pass e.g. 1000")


def check_fraction(name: str, value: float) -> None:
    if not 0 < value < 1:
        raise ValueError(f"algo.{name} must lie in (0, 1), got {value!r}; pass e.g. 0.9")


def check_choice(name: str, value, allowed: tuple) -> None:
    if value not in allowed:
        raise ValueError(f"unknown algo.{name}={value!r}; choose from {', '.join(allowed)}")


# ----------------------------------------------------------------------------- shared fields
def iters_option(default: int, help: str):
    """A Private-PGM iteration count."""
    return option(default, integer(1, 10 ** 7, "pass Private-PGM iterations such as 1000"), help)


def estimator_option():
    return option("auto", help="Private-PGM: auto (full_table up to 2e6 cells, else tree), "
                  "full_table, tree or mbi", choices=ESTIMATORS)


def share_option(default: float, help: str):
    """A budget share in (0, 1)."""
    return option(default, real(0.0, 1.0, "pass a budget share such as 0.9", open_low=True,
                                open_high=True), help)


def model_size_option():
    return option(80.0, real(0.0, 1e9, "pass MB of model tables such as 80", open_low=True),
                  "MB of junction-tree tables (MAX-SIZE)")


def alpha_option():
    """α, the selection's share of each round's budget (in ε0²)."""
    return option(0.5, real(0.0, 1.0, "pass the selection's share of a round such as 0.5",
                            open_low=True, open_high=True),
                  "share of each round's budget for the selection")


def steps_option(default: int, help: str):
    """Optimisation steps per round."""
    return option(default, integer(1, 10 ** 6, "pass optimisation steps per round, e.g. 100"),
                  help)


def components_option():
    """K, the rows or product components of a generated distribution."""
    return option(1000, integer(1, 10 ** 6, "pass the number of product components, e.g. 1000"),
                  "product components (generator batch) or relaxed rows")


def cells_option(help: str):
    return option(10000, integer(1, 10 ** 8, "pass the cells per loss evaluation, e.g. 10000"),
                  help)


# ----------------------------------------------------------------------------- PMW^Pub, MWEM
@dataclass(frozen=True)
class MWOptions:
    """Options shared by MWEM and PMW^Pub (defaults as in the paper)."""

    selection: str = option("permute_and_flip", help="private selection of each round: "
                            "permute-and-flip, the exponential mechanism (charged as ε-DP), or "
                            "the exponential mechanism at 2ε0 charged as bounded range",
                            choices=SELECTIONS)
    measurement: str = option("gaussian", help="noise of each measurement",
                              choices=MEASUREMENTS)
    replay: bool = option(True, help="§5.3 replay of past measurements")
    output: str = option("paper", help="average of A_0..A_{T-1} (Alg. 1) | released_code: of "
                         "A_1..A_T", choices=OUTPUTS)
    replay_variant: str = option("paper", help="replay on the current answers | released_code "
                                 "(docs/matched-signal.md)", choices=REPLAY_VARIANTS)

    def __post_init__(self):
        for name, allowed in (("output", OUTPUTS), ("replay_variant", REPLAY_VARIANTS)):
            if getattr(self, name) not in allowed:
                raise ValueError(f"unknown {name} {getattr(self, name)!r}; choose one of "
                                 f"{', '.join(allowed)}")
        if self.replay_variant != "paper" and not self.replay:
            raise ValueError(f"replay_variant={self.replay_variant} needs replay=true; set "
                             "replay=true or leave replay_variant at paper")
        if self.selection not in SELECTIONS:
            raise ValueError(f"unknown selection {self.selection!r}; choose one of "
                             f"{', '.join(SELECTIONS)}")
        if self.measurement not in MEASUREMENTS:
            raise ValueError(f"unknown measurement {self.measurement!r}; choose one of "
                             f"{', '.join(MEASUREMENTS)}")


@dataclass(frozen=True)
class PMWPubOptions(MWOptions):
    """PMW^Pub (Liu et al. 2021, Alg. 1) on the public support: the loop's options, the start
    A_0 and the optional quality check."""

    init: str = option("public", help="A_0 = the public distribution | uniform on the public "
                       "support (the §5.3 ablation)", choices=INITS)
    quality_check_eps: float = option(
        0.0, real(0.0, 1e3, "pass 0 (no check) or ε_f such as 0.01"),
        "ε_f > 0: first release the best mixture error of X̂ + Lap(1/(n·ε_f)) (Lemma 4.2), "
        "charged ε_f²/2")

    def __post_init__(self):
        super().__post_init__()
        if self.init not in INITS:
            raise ValueError(f"unknown init {self.init!r}; choose one of {', '.join(INITS)}")


@dataclass(frozen=True)
class MWEMOptions(MWOptions):
    """MWEM (Hardt, Ligett & McSherry 2012) over the full domain: the loop's options and the
    largest domain it holds a weight for each element of."""

    max_domain_size: int = option(MWEM_MAX_DOMAIN_SIZE,
                                  integer(1, 10 ** 12, "pass a cap on |X| such as 10000000"),
                                  "refuse domains larger than this (|X| weights are kept)")


# ----------------------------------------------------------------------------- DualQuery
@dataclass(frozen=True)
class DualQueryOptions:
    """DualQuery (Gaboardi et al. 2014; Liu et al. 2021 §5.3: η = 2, s = 200): (η, s, T)
    calibrated to (ε, δ)."""

    eta: float = option(2.0, real(0.0, 1e3, "pass a learning rate such as 2.0", open_low=True),
                        "learning rate η of the query player")
    samples: int = option(200, integer(1, 10 ** 7, "pass the queries drawn per round, e.g. 200"),
                          "queries s sampled per round")
    max_T: Optional[int] = option(
        None, optional(integer(2, 10 ** 7, "round 1 alone releases nothing; pass a cap >= 2"),
                       "no cap"), "cap on the calibrated number of rounds (null: none)")
    accounting: str = option("advanced", help="advanced composition (the paper's calibration) "
                             "| zcdp (each draw ε_t²/8-zCDP, bounded range)", choices=ACCOUNTING)


# ----------------------------------------------------------------------------- references
@dataclass(frozen=True)
class PublicOnlyOptions:
    """The public distribution A_0 itself (no privacy spent); no options."""


@dataclass(frozen=True)
class BestMixtureOptions:
    """Best mixture error f(X̂) (Liu et al. 2021, Def. 4.1): a non-private reference line."""

    method: str = option("both", help="lp (the exact LP) | mw (the paper's non-private MW "
                         "estimate) | both", choices=METHODS)
    mw_iters: int = option(100, integer(1, 10 ** 6, "pass the MW estimate's rounds, e.g. 100"),
                           "rounds of the paper's non-private MW estimate")
    lp_time_limit: float = option(LP_TIME_LIMIT,
                                  real(0.0, 1e6, "pass seconds, e.g. 300", open_low=True),
                                  "seconds; with method=both the MW estimate stands when the LP "
                                  "times out")


# ----------------------------------------------------------------------------- Private-PGM
@dataclass(frozen=True)
class AIMOptions:
    """AIM (McKenna et al. 2022, §4: T = 16d, α = 0.9, MAX-SIZE = 80 MB) on Private-PGM."""

    rounds: Optional[int] = option(
        None, optional(integer(1, 10 ** 6, "pass AIM's budget scale T, e.g. 144"), "16·d"),
        "budget scale T (null: 16·d); the run-level T is not used")
    alpha: float = share_option(0.9, "share of each round's budget spent on the measurement")
    max_model_size: float = model_size_option()
    iters: int = iters_option(1000, "Private-PGM iterations per round")
    final_iters: int = iters_option(1000, "iterations of the final fit")
    public_init: bool = option(False, help="pre-train on public proxies (see public_cliques)")
    public_stddev: float = option(1.0, real(0.0, 1e12, "pass a public proxy's loss stddev such "
                                                 "as 1", open_low=True),
                                  "loss weight (stddev) of a public proxy, with public_init")
    public_cliques: str = option("workload", help="public proxies: workload marginals, or tree "
                                 "(public spanning tree)", choices=PUBLIC_CLIQUES)
    relation: str = option("replace_one", help="neighbours: replace_one (n public) or "
                           "add_remove (the AIM paper's)", choices=RELATION_NAMES)
    estimator: str = estimator_option()


@dataclass(frozen=True)
class MSTOptions:
    """MST (McKenna, Miklau & Sheldon 2021) on Private-PGM (the authors' code: 1000 and 5000
    iterations)."""

    iters: int = iters_option(1000, "Private-PGM iterations of the one-way model used by the "
                              "selection")
    final_iters: int = iters_option(5000, "iterations of the final fit")
    estimator: str = estimator_option()


@dataclass(frozen=True)
class JAMOptions:
    """JAM-PGM (Fuentes et al. 2024; the authors' defaults: T = 30, α = 0.2, 80 MB): each round
    picks a private measurement or a public marginal in one private selection."""

    rounds: int = option(30, integer(1, 10 ** 6, "pass the number of selections, e.g. 30"),
                         "selections (the run-level T is not used)")
    alpha: float = share_option(0.2, "share of each round's budget spent on the selection")
    max_model_size: float = model_size_option()
    iters: int = iters_option(250, "Private-PGM iterations per round (warm-started)")
    final_iters: int = iters_option(1000, "iterations of the final fit")
    quick_compile: bool = option(True, help="estimator=mbi only: compiled at XLA optimisation "
                                 "level 0 (faster per new clique set)")
    estimator: str = estimator_option()


# ----------------------------------------------------------------------------- successors
@dataclass(frozen=True)
class PEPOptions:
    """PEP (Liu, Vietri & Wu 2021; paper and reference code: α = 0.5, 100 projection steps):
    the histogram covers all of X, refused above ``max_domain_size``."""

    alpha: float = alpha_option()
    max_iters: int = steps_option(100, "projection steps per round")
    max_domain_size: int = option(PEP_MAX_DOMAIN_SIZE,
                                  integer(1, 10 ** 9, "pass a cap on |X| such as 2000000"),
                                  "refused above this |X| (use pep_pub or gem)")

    def __post_init__(self):
        check_positive_int("max_iters", self.max_iters, allow_none=False)
        check_positive_int("max_domain_size", self.max_domain_size, allow_none=False)


@dataclass(frozen=True)
class PEPPubOptions:
    """PEP^Pub: PEP over the public support, starting from ``init``."""

    alpha: float = alpha_option()
    max_iters: int = steps_option(100, "projection steps per round")
    init: str = option("public", help="A_0 = public distribution | uniform on the public "
                       "support", choices=INITS)

    def __post_init__(self):
        check_positive_int("max_iters", self.max_iters, allow_none=False)
        check_choice("init", self.init, INITS)


@dataclass(frozen=True)
class GEMOptions:
    """GEM (Liu, Vietri & Wu 2021): a generator of K product distributions fitted by Adam to the
    measured marginals; defaults: the reference code's ADULT script
    (``examples/scripts/gen_nn/run_adult.sh``) and its GEM defaults."""

    alpha: float = alpha_option()
    K: int = components_option()
    embedding: int = option(256, integer(1, 10 ** 5, "pass the generator's noise dimension, "
                                                    "e.g. 256"), "noise dimension")
    hidden: int = option(256, integer(1, 10 ** 5, "pass the residual layers' width, e.g. 256"),
                         "width of the two residual layers")
    loss_p: int = option(2, integer(1, 2, "pass the loss norm p, 1 or 2"),
                         "loss ‖errors‖_p / |errors|")
    lr: float = option(1e-4, real(0.0, 1e3, "pass an Adam learning rate such as 1e-4",
                                  open_low=True),
                       "Adam learning rate (cosine-annealed to 1e-8 within each round)")
    eta_min: Optional[float] = option(
        None, optional(real(0.0, 1e3, "pass the annealed learning rate such as 1e-5"),
                       "no annealing over rounds"),
        "null: constant over rounds; else cosine-annealed to it over T rounds")
    max_iters: int = steps_option(100, "Adam steps per round at most")
    max_idxs: int = cells_option("largest errors per step at most")
    ema_beta: float = option(0.5, real(0.0, 1.0, "pass the error EMA's weight such as 0.5",
                                       open_high=True), "EMA of the rounds' max measured error")
    ema_error_factor: float = option(
        0.5, real(0.0, 1e3, "pass the threshold's multiple of the error EMA such as 0.5"),
        "fit the measured cells whose error exceeds this × that EMA")
    ema_weights: bool = option(False, help="release the EMA of the last T/2 rounds' weights "
                               "instead of the last")
    ema_weights_beta: float = option(0.9, real(0.0, 1.0, "pass the weight EMA's beta such as "
                                                         "0.9", open_high=True),
                                     "β of that EMA of the weights")

    def __post_init__(self):
        for name in ("K", "embedding", "hidden", "max_iters", "max_idxs"):
            check_positive_int(name, getattr(self, name), allow_none=False)
        if self.loss_p not in LOSS_NORMS:
            raise ValueError(f"algo.loss_p must be 1 or 2, got {self.loss_p!r}; pass 2")


@dataclass(frozen=True)
class GEMPubOptions(GEMOptions):
    """GEM^Pub: GEM from a generator pre-trained on the public data's answers (free), releasing
    the weights' EMA as the authors' GEM^Pub script does."""

    ema_weights: bool = option(True, help="the authors' GEM^Pub script releases the weight EMA "
                               "(beta 0.9)")
    pretrain_steps: int = option(1000, integer(1, 10 ** 7, "pass the public pre-training steps, "
                                                          "e.g. 1000"),
                                 "Adam steps on the public answers")
    pretrain_lr: float = option(5e-4, real(0.0, 1e3, "pass the pre-training learning rate such "
                                                     "as 5e-4", open_low=True),
                                "cosine-annealed to pretrain_eta_min")
    pretrain_eta_min: float = option(1e-7, real(0.0, 1e3, "pass the pre-training's final "
                                                          "learning rate such as 1e-7"),
                                     "end of the pre-training cosine schedule")
    pretrain_refresh: int = option(10, integer(1, 10 ** 7, "pass steps between public error "
                                                           "evaluations, e.g. 10"),
                                   "steps between public-error evaluations (sampling weights, "
                                   "checkpoint)")
    pretrain_seed: int = option(0, integer(0, 2 ** 63 - 1, "pass a non-negative seed"),
                                "the pre-training's generator and draws (no private data)")

    def __post_init__(self):
        super().__post_init__()
        for name in ("pretrain_steps", "pretrain_refresh"):
            check_positive_int(name, getattr(self, name), allow_none=False)


@dataclass(frozen=True)
class RAPOptions:
    """RAP^softmax (Aydore et al. 2021; reference code's ADULT script
    ``examples/scripts/gen_fixed/run_adult.sh``: K = 1000, lr 0.1, 2 marginals per round)."""

    alpha: float = alpha_option()
    K: int = components_option()
    marginals_per_round: int = option(2, integer(1, 10 ** 4, "pass marginals measured per "
                                                             "round, e.g. 2"),
                                      "selections (marginals measured) per round")
    lr: float = option(0.1, real(0.0, 1e3, "pass an Adam learning rate such as 0.1",
                                 open_low=True), "Adam learning rate")
    max_iters: int = steps_option(1000, "Adam steps per round at most (early stop on a "
                                        "plateau)")
    max_idxs: int = cells_option("measured cells per loss evaluation at most")

    def __post_init__(self):
        for name in ("K", "marginals_per_round", "max_iters", "max_idxs"):
            check_positive_int(name, getattr(self, name), allow_none=False)
