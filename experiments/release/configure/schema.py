"""Structured configs (dataclasses) of the query-release runner, registered with Hydra.

Each config group option of ``conf/`` extends one schema below
(``defaults: [/schema/<group>/<option>@_here_]``), so
Hydra rejects an unknown key or a wrong type with its own message before anything runs. Choices
that have a fixed vocabulary are :class:`enum.Enum` fields. Value checks that need the data (k
against the number of attributes, W against C(d, k), MWEM's domain size) live in
:mod:`experiments.release.configure.checks`.

The groups mirror Liu et al. 2021 §5: a private ``dataset`` (one of the project's, or a user's
CSV), a ``public`` source built from it (resample, biased, another dataset, a user's public CSV;
any of them thinned to a ``fraction``; or none), an ``algo`` with its options, and a k-way
marginal ``workload`` of W attribute sets drawn with a seed.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Dict, Optional

from hydra.core.config_store import ConfigStore
from omegaconf import MISSING


# ----------------------------------------------------------------------------- datasets
@dataclass
class DatasetConf:
    """A private dataset, loaded by ``pubpriv_core.data.load_dataset(name, **options)``."""

    name: str = MISSING


@dataclass
class SyntheticConf(DatasetConf):
    """The embedded seeded generator (no files): ``n`` rows (null: the preset's) of the private
    (``role``) or public chain model of ``preset``; the public model is the private one mixed
    with an independent chain by ``shift`` (``pubpriv_core.data.synthetic``); ``draw`` > 0
    samples the same models again (validation releases)."""

    name: str = "synthetic"
    preset: str = "small"
    role: str = "private"
    n: Optional[int] = None
    shift: float = 0.1
    seed: int = 0
    concentration: float = 0.5
    draw: int = 0


@dataclass
class AdultConf(DatasetConf):
    """UCI ADULT, 13 attributes, |X| ≈ 7.32e11 (Liu et al. 2021, §5.2)."""

    name: str = "adult"


class Region(Enum):
    ma = "ma"
    tx = "tx"
    national = "national"


@dataclass
class NistAcsConf(DatasetConf):
    """NIST CRC Diverse Communities excerpts (real ACS 2018/2019), one shared domain."""

    name: str = "nist_acs"
    region: Region = Region.ma
    year: int = 2019
    reduced: bool = True


@dataclass
class AcsConf(DatasetConf):
    """ACS PUMS persons through folktables (downloaded from the Census Bureau on first use)."""

    name: str = "acs"
    state: str = "PA"
    year: int = 2018
    reduced: bool = True
    download: bool = True


@dataclass
class CsvConf(DatasetConf):
    """A user's own CSV file (``pubpriv_core.data.csv_files``) on a domain fixed without its
    rows: the domain file ``domain`` (JSON/YAML), then the entries ``columns``, each a column's
    categories or bins; what they leave open is read from the public CSV ``public_path``
    (``conf/dataset/csv.yaml``: ``public.path`` when ``public=csv``)."""

    name: str = "csv"
    path: Optional[str] = None
    domain: Optional[str] = None
    columns: Dict[str, Any] = field(default_factory=dict)
    public_path: Optional[str] = None


# ----------------------------------------------------------------------------- public sources
@dataclass
class PublicConf:
    """How the public dataset D̂ is built; ``fraction`` keeps that share of its rows (Fig. 3)."""

    kind: str = MISSING
    fraction: float = 1.0


@dataclass
class ResampleConf(PublicConf):
    """Private and public drawn with replacement from one dataset (ADULT: 0.9N and 0.1N), both
    from all rows (the paper's design: about 59% of public rows are private records too), or
    with ``disjoint`` each from its own part of the rows."""

    kind: str = "resample"
    private_share: float = 0.9
    public_share: float = 0.1
    disjoint: bool = False


@dataclass
class BiasedConf(ResampleConf):
    """As resample, but rows with ``attribute`` = ``value`` are drawn with probability r + Δ."""

    kind: str = "biased"
    delta: float = 0.0
    attribute: str = "sex"
    value: int = 0


@dataclass
class OtherDatasetConf(PublicConf):
    """Another dataset on the same domain (another year, state or region); the private dataset
    is used whole. Fields left ``null`` are copied from the private ``dataset`` config."""

    kind: str = "dataset"
    name: Optional[str] = None
    region: Optional[Region] = None
    state: Optional[str] = None
    year: Optional[int] = None
    reduced: Optional[bool] = None
    role: Optional[str] = None
    preset: Optional[str] = None
    n: Optional[int] = None
    shift: Optional[float] = None


@dataclass
class CsvPublicConf(PublicConf):
    """The public rows of a CSV file at ``path``, on the domain of the private ``dataset=csv``
    (same columns); the private table is used whole."""

    kind: str = "csv"
    path: Optional[str] = None


@dataclass
class NoPublicConf(PublicConf):
    """No public data: the private dataset is used whole, and algorithms that need public data
    are refused. ``fraction`` stays 1 (there are no rows to thin)."""

    kind: str = "none"


# ----------------------------------------------------------------------------- algorithms
class Selection(Enum):
    permute_and_flip = "permute_and_flip"
    exponential = "exponential"
    exponential_bounded_range = "exponential_bounded_range"


class Measurement(Enum):
    gaussian = "gaussian"
    laplace = "laplace"


class Variant(Enum):
    """The paper's Algorithm 1 / §5.3, or as the authors' released code runs it."""

    paper = "paper"
    released_code = "released_code"


class Init(Enum):
    public = "public"
    uniform = "uniform"


class DualQueryAccounting(Enum):
    advanced = "advanced"
    zcdp = "zcdp"


class MixtureMethod(Enum):
    lp = "lp"
    mw = "mw"
    both = "both"


@dataclass
class AlgoConf:
    """An algorithm of :data:`pubpriv_core.algorithms.ALGORITHMS`; other fields are its options."""

    name: str = MISSING


@dataclass
class PMWPubConf(AlgoConf):
    """PMW^Pub (Liu et al. 2021, Alg. 1) on the public support. ``output``: the average of
    A_0..A_{T−1} (``paper``, Alg. 1) or of A_1..A_T (``released_code``); ``replay_variant``: the
    §5.3 replay on the current answers (``paper``) or as the authors' released code runs it
    (:mod:`pubpriv_core.algorithms.multiplicative_weights`)."""

    name: str = "pmwpub"
    selection: Selection = Selection.permute_and_flip
    measurement: Measurement = Measurement.gaussian
    replay: bool = True
    init: Init = Init.public
    output: Variant = Variant.paper
    replay_variant: Variant = Variant.paper


@dataclass
class MWEMConf(AlgoConf):
    """MWEM (Hardt, Ligett & McSherry 2012) over the full domain; refused on large domains."""

    name: str = "mwem"
    selection: Selection = Selection.permute_and_flip
    measurement: Measurement = Measurement.gaussian
    replay: bool = True
    max_domain_size: int = 10_000_000
    output: Variant = Variant.paper
    replay_variant: Variant = Variant.paper


@dataclass
class DualQueryConf(AlgoConf):
    """DualQuery (Gaboardi et al. 2014): (η, s, T) calibrated to (ε, δ); ``max_T`` caps T;
    ``accounting``: advanced composition (the paper's) or zCDP with bounded-range draws."""

    name: str = "dualquery"
    eta: float = 2.0
    samples: int = 200
    max_T: Optional[int] = None
    accounting: DualQueryAccounting = DualQueryAccounting.advanced


@dataclass
class PublicOnlyConf(AlgoConf):
    """The public distribution A_0 itself (no privacy spent)."""

    name: str = "public_only"


@dataclass
class BestMixtureConf(AlgoConf):
    """Best mixture error f(X̂) (Liu et al. 2021, Def. 4.1): a non-private reference line."""

    name: str = "best_mixture"
    method: MixtureMethod = MixtureMethod.both
    mw_iters: int = 100
    lp_time_limit: float = 300.0


class PublicCliques(Enum):
    workload = "workload"
    tree = "tree"


class Neighbours(Enum):
    replace_one = "replace_one"
    add_remove = "add_remove"


class PGMEstimator(Enum):
    auto = "auto"
    full_table = "full_table"
    tree = "tree"
    mbi = "mbi"


@dataclass
class AIMConf(AlgoConf):
    """AIM (McKenna et al. 2022) on Private-PGM, replace-one neighbours (``relation``: or
    add/remove, the paper's); ``rounds`` null: 16·d. ``public_init`` pre-trains the model on
    public proxies: of the workload marginals, or of the pairs of a spanning tree of the public
    data (``public_cliques``)."""

    name: str = "aim"
    rounds: Optional[int] = None
    alpha: float = 0.9
    max_model_size: float = 80.0
    iters: int = 1000
    final_iters: int = 1000
    public_init: bool = False
    public_stddev: float = 1.0
    public_cliques: PublicCliques = PublicCliques.workload
    relation: Neighbours = Neighbours.replace_one
    estimator: PGMEstimator = PGMEstimator.auto


@dataclass
class MSTConf(AlgoConf):
    """MST (McKenna, Miklau & Sheldon 2021) on Private-PGM, replace-one neighbours."""

    name: str = "mst"
    iters: int = 1000
    final_iters: int = 5000
    estimator: PGMEstimator = PGMEstimator.auto


@dataclass
class JAMPGMConf(AlgoConf):
    """JAM-PGM (Fuentes et al. 2024): each round picks a private measurement or a public
    marginal in one private selection."""

    name: str = "jam_pgm"
    rounds: int = 30
    alpha: float = 0.2
    max_model_size: float = 80.0
    iters: int = 250
    final_iters: int = 1000
    quick_compile: bool = True
    estimator: PGMEstimator = PGMEstimator.auto


class PEPInit(Enum):
    public = "public"
    uniform = "uniform"


@dataclass
class PEPConf(AlgoConf):
    """PEP (Liu, Vietri & Wu 2021): entropy projection onto all past measurements, over the
    whole domain (refused above ``max_domain_size``)."""

    name: str = "pep"
    alpha: float = 0.5
    max_iters: int = 100
    max_domain_size: int = 2_000_000


@dataclass
class PEPPubConf(AlgoConf):
    """PEP^Pub: PEP over the public support, starting from the public distribution."""

    name: str = "pep_pub"
    alpha: float = 0.5
    max_iters: int = 100
    init: PEPInit = PEPInit.public


@dataclass
class GEMConf(AlgoConf):
    """GEM (Liu, Vietri & Wu 2021): a generator of K product distributions fitted by Adam to
    the measured marginals; release: last generator or (``ema_weights``) the EMA of the last
    T/2 rounds' weights."""

    name: str = "gem"
    alpha: float = 0.5
    K: int = 1000
    embedding: int = 256
    hidden: int = 256
    loss_p: int = 2
    lr: float = 1e-4
    eta_min: Optional[float] = None
    max_iters: int = 100
    max_idxs: int = 10000
    ema_beta: float = 0.5
    ema_error_factor: float = 0.5
    ema_weights: bool = False
    ema_weights_beta: float = 0.9


@dataclass
class GEMPubConf(GEMConf):
    """GEM^Pub: GEM from a generator pre-trained on the public data's answers (free)."""

    name: str = "gem_pub"
    ema_weights: bool = True
    pretrain_steps: int = 1000
    pretrain_lr: float = 5e-4
    pretrain_eta_min: float = 1e-7
    pretrain_refresh: int = 10
    pretrain_seed: int = 0


@dataclass
class RAPConf(AlgoConf):
    """RAP^softmax (Aydore et al. 2021, softmax rows): K relaxed rows fitted by Adam to the
    squared error of the measured marginals, ``marginals_per_round`` selections per round."""

    name: str = "rap"
    alpha: float = 0.5
    K: int = 1000
    marginals_per_round: int = 2
    lr: float = 0.1
    max_iters: int = 1000
    max_idxs: int = 10000


# ----------------------------------------------------------------------------- workload, run
@dataclass
class WorkloadConf:
    """W = ``size`` k-way marginals drawn without replacement with ``seed`` (null: all C(d, k))."""

    k: int = 3
    size: Optional[int] = 64
    seed: int = 0


@dataclass
class RunConf:
    """Top level. ``delta`` null means 1/n² (n private rows); ``eps_equiv`` (null: unused) sets
    ε = eps_equiv · n_ref / n instead of ``eps``, the ε at which n private rows carry the signal
    (n·ε) of ``n_ref`` rows at ``eps_equiv``; ``runs`` repetitions, seeded from (``seed``, run
    index); ``n_jobs`` joblib workers over repetitions; ``progress`` null means a bar only on a
    terminal outside CI; ``cache_gb`` bounds the in-process problem cache;
    ``save_release`` writes what each computed repetition released, with ``release_rows``
    synthetic records (:mod:`experiments.release.running.releases`)."""

    dataset: DatasetConf = MISSING
    public: PublicConf = MISSING
    algo: AlgoConf = MISSING
    workload: WorkloadConf = field(default_factory=WorkloadConf)
    eps: float = 1.0
    delta: Optional[float] = None
    eps_equiv: Optional[float] = None
    n_ref: int = 100_000
    T: int = 50
    runs: int = 5
    seed: int = 0
    n_jobs: int = 1
    results_dir: str = "runs"
    data_root: Optional[str] = None
    force: bool = False
    progress: Optional[bool] = None
    cache_gb: float = 4.0
    save_release: bool = False
    release_rows: Optional[int] = None


SCHEMAS: dict[str, dict[str, Any]] = {
    "dataset": {"synthetic": SyntheticConf, "adult": AdultConf, "nist_acs": NistAcsConf,
                "acs": AcsConf, "csv": CsvConf},
    "public": {"resample": ResampleConf, "biased": BiasedConf, "dataset": OtherDatasetConf,
               "csv": CsvPublicConf, "none": NoPublicConf},
    "algo": {"pmwpub": PMWPubConf, "mwem": MWEMConf, "dualquery": DualQueryConf,
             "public_only": PublicOnlyConf, "best_mixture": BestMixtureConf, "aim": AIMConf,
             "mst": MSTConf, "jam_pgm": JAMPGMConf, "pep": PEPConf, "pep_pub": PEPPubConf,
             "gem": GEMConf, "gem_pub": GEMPubConf, "rap": RAPConf},
}


def register_configs() -> None:
    """Store the schemas as ``schema/run`` and ``schema/<group>/<option>``; the YAML files
    extend them (``defaults: [/schema/<group>/<option>@_here_, _self_]``). Installed algorithm
    plugins are stored as ``algo/<name>`` (:mod:`experiments.release.configure.plugins`)."""
    from experiments.release.configure.plugins import install_plugins

    store = ConfigStore.instance()
    store.store(group="schema", name="run", node=RunConf)
    for group, options in SCHEMAS.items():
        for option, node in options.items():
            store.store(group=f"schema/{group}", name=option, node=node)
    install_plugins()   # algorithms of other packages: algo/<name> (pubpriv.algorithms)
