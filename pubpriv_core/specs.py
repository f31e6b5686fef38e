"""What a release is made of, declared once: the private dataset, the public source, the workload
and the run's budget and seeds, each field with its default, accepted values and meaning.

The groups mirror Liu et al. 2021 §5: a private dataset (one of the project's, or a user's CSV),
a public source built from it (resample, biased, another dataset, a user's public CSV; any of
them thinned to a ``fraction``; or none), a k-way marginal workload of W attribute sets drawn
with a seed, and the target (ε, δ) with T rounds, repetitions and a base seed. The runner derives
its Hydra schema and value checks from these classes; the Python API takes its defaults and
checks from them; :class:`~pubpriv_core.job.Job` holds them resolved. The algorithms' own
options are in :mod:`pubpriv_core.algorithms.settings`.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any, Dict, Optional

from pubpriv_core.data.frames import FILE_SUFFIXES
from pubpriv_core.data.nist_acs import YEARS as NIST_YEARS
from pubpriv_core.data.synthetic import PRESETS
from pubpriv_core.options import Rule, choice, integer, option, optional, real, text

ACS_FIRST_YEAR = 2014
REGIONS = ("ma", "tx", "national")
ROLES = ("private", "public")


@lru_cache(maxsize=1)
def _us_states() -> frozenset[str]:
    """The postal codes folktables downloads person files for (imported when first needed)."""
    from folktables.load_acs import state_list
    return frozenset(state_list)


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


SEED = integer(0, 2 ** 63 - 1, "pass a non-negative seed")
ACS_STATE = Rule(lambda v: isinstance(v, str) and v.upper() in _us_states(),
                 "a US postal code such as PA", "pass e.g. state=PA")
ACS_YEAR = integer(ACS_FIRST_YEAR, date.today().year, "pass a year whose ACS 1-Year file exists")
CSV_FILE = Rule(_file_or_none, "the path of a CSV file", "pass the path of your CSV file")
DOMAIN_FILE = Rule(lambda v: _file_or_none(v, FILE_SUFFIXES),
                   f"null (no domain file) or a {'/'.join(FILE_SUFFIXES)} file",
                   "pass a JSON or YAML file mapping each column to its entry")
COLUMNS = Rule(_column_entries, "a mapping column -> entry (categories, bins, range, unseen, "
               "clip, values, kind)", "write e.g. dataset.columns={age:{bins:[0,30,60,inf]}}")
PRESET = choice(PRESETS, "pick a synthetic preset")
ROLE = choice(ROLES, "pick the synthetic model to sample")
ROWS = integer(1, 10 ** 8, "pass a row count")
SHIFT = real(0.0, 1.0, "pass the weight of the public model's independent part")


# ----------------------------------------------------------------------------- datasets
@dataclass(frozen=True)
class SyntheticSpec:
    """The embedded seeded generator (no files; :mod:`pubpriv_core.data.synthetic`): ``n`` rows
    (null: the preset's) of the private (``role``) or public chain model of ``preset``; the
    public model is the private one mixed with an independent chain by ``shift``; ``draw`` > 0
    samples the same models again (validation releases)."""

    name: str = "synthetic"
    preset: str = option("small", PRESET, "tiny | small (10 attributes, |X| = 17,280) | adult | "
                         "acs_reduced | acs_full")
    role: str = option("private", ROLE, "draw from the private model P or the public model Q")
    n: Optional[int] = option(None, optional(ROWS, "the preset's rows"),
                              "rows (null: the preset's, small = 10,000)")
    shift: float = option(0.1, SHIFT, "Q mixes P's conditionals with an independent chain's by "
                          "this weight")
    seed: int = option(0, SEED, "seed of the models and of the draw")
    concentration: float = option(0.5, real(0.0, 1e6, "pass a positive Dirichlet concentration "
                                                      "such as 0.5", open_low=True),
                                  "Dirichlet concentration of the random conditional tables")
    draw: int = option(0, integer(0, 2 ** 31, "pass 0 (the default sample) or another sample's "
                                              "number"),
                       "0: the default sample; another number samples the same models again")


@dataclass(frozen=True)
class AdultSpec:
    """UCI ADULT (Liu et al. 2021 §5.2): adult/adult.data + adult/adult.test under the data
    root; 13 attributes, |X| ≈ 7.32e11."""

    name: str = "adult"


@dataclass(frozen=True)
class NistAcsSpec:
    """NIST CRC Diverse Communities excerpts (real ACS 2018/2019, one shared domain):
    nist-acs-excerpts/<region><year>.csv under the data root."""

    name: str = "nist_acs"
    region: str = option("ma", help="ma | tx | national", choices=REGIONS)
    year: int = option(2019, choice(NIST_YEARS, "pick a year of the NIST excerpts"),
                       "2018 | 2019")
    reduced: bool = option(True, help="the small projection (|X| ≤ 1e5, MWEM-feasible); false: "
                           "all attributes")


@dataclass(frozen=True)
class AcsSpec:
    """ACS PUMS persons via folktables; downloaded to <data root>/acs/ on first use (needs the
    internet)."""

    name: str = "acs"
    state: str = option("PA", ACS_STATE, "state of the person file (postal code)")
    year: int = option(2018, ACS_YEAR, "ACS 1-Year file (2014 onwards)")
    reduced: bool = option(True, help="15 attributes, |X| = 98,304 (Liu et al. §5.2); false: "
                           "the full domain")
    download: bool = option(True, help="false: use only files already under <data root>/acs "
                            "(offline)")


@dataclass(frozen=True)
class CsvSpec:
    """Your own CSV file (docs: "Your own data") on a domain fixed without its rows: the domain
    file ``domain`` (JSON/YAML), then the entries ``columns``, each a column's categories or
    bins; what they leave open is read from the public CSV ``public_path``. Its rows are
    private: use public=csv or public=none."""

    name: str = "csv"
    path: Optional[str] = option(None, CSV_FILE, "the private CSV file")
    domain: Optional[str] = option(None, DOMAIN_FILE, "JSON/YAML file: each column's categories "
                                   "or bins (null: none)")
    columns: Dict[str, Any] = option(rule=COLUMNS, help="column entries given here; each "
                                     "replaces the domain file's entry", factory=dict)
    public_path: Optional[str] = option(None, CSV_FILE, "public CSV settling what the domain "
                                        "leaves open (public.path with public=csv)")


# ----------------------------------------------------------------------------- public sources
FRACTION = option(1.0, real(0.0, 1.0, "pass the share of public rows kept, e.g. 0.01",
                            open_low=True),
                  "keep this share of the public rows (without replacement; Fig. 3)")


def _share(default: float, which: str):
    return option(default, real(0.0, 100.0, f"pass a share of the dataset's rows such as "
                                            f"{default}", open_low=True),
                  f"{which} rows = {which}_share · N")


@dataclass(frozen=True)
class ResampleSpec:
    """Private and public both drawn with replacement from the dataset (Liu et al. §5.2, ADULT:
    0.9N and 0.1N), both from all rows (the paper's design: about 59% of public rows are private
    records too), or with ``disjoint`` each from its own part of the rows."""

    kind: str = "resample"
    fraction: float = FRACTION
    private_share: float = _share(0.9, "private")
    public_share: float = _share(0.1, "public")
    disjoint: bool = option(False, help="true: each sample from its own part of the rows (no "
                            "public row is private)")


@dataclass(frozen=True)
class BiasedSpec(ResampleSpec):
    """As resample, but rows with ``attribute`` = ``value`` are drawn with probability r + Δ
    (Fig. 2)."""

    kind: str = "biased"
    delta: float = option(0.0, real(-1.0, 1.0, "pass the bias Δ of the group's share, e.g. 0.1"),
                          "Δ; r is the share of `value` in the data (ADULT: female ≈ 0.33)")
    attribute: str = option("sex", text("an attribute name", "pass e.g. attribute=sex"),
                            "the attribute whose value is over- or under-drawn (ADULT: sex)")
    value: int = option(0, integer(0, 10 ** 6, "pass a value code of the attribute"),
                        "ADULT: Female = 0")


def _inherited(rule: Rule, help: str):
    return option(None, optional(rule, "the private dataset's"), help)


@dataclass(frozen=True)
class OtherDatasetSpec:
    """Another dataset on the same domain (another year, state or region; Fig. 1); the private
    dataset is used whole. Fields left null are copied from the private dataset's."""

    kind: str = "dataset"
    fraction: float = FRACTION
    name: Optional[str] = _inherited(choice(("synthetic", "adult", "nist_acs", "acs"),
                                            "pick the public dataset"), "the public dataset")
    region: Optional[str] = option(None, optional(choice(REGIONS, "pick a NIST region"),
                                                  "the private dataset's"),
                                   "NIST region (null: the private dataset's)", choices=REGIONS)
    state: Optional[str] = _inherited(ACS_STATE, "ACS state")
    year: Optional[int] = _inherited(integer(ACS_FIRST_YEAR, date.today().year,
                                             "pass the public dataset's year"), "year")
    reduced: Optional[bool] = option(None, help="reduced domain (null: the private dataset's)")
    role: Optional[str] = _inherited(ROLE, "synthetic model (public: the shifted model Q)")
    preset: Optional[str] = _inherited(PRESET, "synthetic preset")
    n: Optional[int] = _inherited(ROWS, "synthetic rows")
    shift: Optional[float] = _inherited(SHIFT, "synthetic shift")


@dataclass(frozen=True)
class CsvPublicSpec:
    """The public rows of a CSV file at ``path``, on the domain of the private ``dataset=csv``
    (same columns); the private table is used whole."""

    kind: str = "csv"
    fraction: float = FRACTION
    path: Optional[str] = option(None, CSV_FILE, "the public CSV file")


@dataclass(frozen=True)
class NoPublicSpec:
    """No public data: the private dataset is used whole, and algorithms that need public data
    are refused. ``fraction`` stays 1 (there are no rows to thin)."""

    kind: str = "none"
    fraction: float = option(1.0, choice((1.0,), "leave it at 1: there are no public rows"),
                             "1 (there are no public rows)")


# ----------------------------------------------------------------------------- workload, run
@dataclass(frozen=True)
class WorkloadSpec:
    """W = ``size`` k-way marginals drawn without replacement with ``seed`` (null: all
    C(d, k))."""

    k: int = option(3, integer(1, 1000, "pass the marginal order, e.g. 3"),
                    "marginal order: each query is a cell of a k-way marginal")
    size: Optional[int] = option(64, optional(integer(1, 10 ** 7, "pass e.g. 64"),
                                              "all C(d, k) marginals"),
                                 "W, the number of marginals (null: all C(d, k))")
    seed: int = option(0, SEED, "seed of the draw of the W marginals")


@dataclass(frozen=True)
class BudgetSpec:
    """The target of a release and its repetitions: ε (or the paper-equivalent ``eps_equiv``,
    ε = eps_equiv · n_ref / n: the same n·ε as n_ref rows), δ (null: 1/n²), T rounds, ``runs``
    repetitions seeded from (``seed``, run index)."""

    eps: float = option(1.0, real(0.0, 1e3, "pass a privacy budget such as 1 (above 1000 "
                                            "nothing is private)", open_low=True),
                        "target ε of one release (sweep: eps=0.1,0.5,1)")
    delta: Optional[float] = option(None, optional(real(0.0, 1.0, "pass e.g. 1e-9",
                                                        open_low=True, open_high=True),
                                                   "1/n^2"),
                                    "null → 1/n², n = number of private rows")
    eps_equiv: Optional[float] = option(None, optional(real(0.0, 1e3, "pass a paper-equivalent "
                                                                      "budget such as 0.25",
                                                            open_low=True), "use eps"),
                                        "paper-equivalent ε: if set, ε = eps_equiv·n_ref/n "
                                        "replaces eps (same n·ε)")
    n_ref: int = option(100_000, integer(1, 10 ** 9, "pass the reference private size, e.g. "
                                                     "100000"),
                        "reference private size of eps_equiv (Liu et al. §5: n ≈ 1e5)")
    T: int = option(50, integer(1, 10 ** 6, "pass the number of rounds, e.g. 50"),
                    "rounds of the iterative algorithms (DualQuery calibrates its own; AIM, MST, "
                    "JAM-PGM use algo.rounds or d − 1)")
    runs: int = option(5, integer(1, 10 ** 4, "pass the number of repetitions, e.g. 5"),
                       "repetitions per configuration")
    seed: int = option(0, SEED, "base seed; repetition r uses SeedSequence([seed, r])")


DATASETS: dict[str, type] = {"synthetic": SyntheticSpec, "adult": AdultSpec,
                             "nist_acs": NistAcsSpec, "acs": AcsSpec, "csv": CsvSpec}
PUBLIC_SOURCES: dict[str, type] = {"resample": ResampleSpec, "biased": BiasedSpec,
                                   "dataset": OtherDatasetSpec, "csv": CsvPublicSpec,
                                   "none": NoPublicSpec}
