"""ACS PUMS person records through folktables (Liu et al. 2021, §5.2): full and reduced domains.

Files come from ``folktables.ACSDataSource(survey_year, horizon="1-Year", survey="person",
root_dir=<data root>/acs)``, i.e. folktables' own layout ``acs/<year>/1-Year/psam_p<fips>.csv``
(2017+) or ``acs/<year>/1-Year/ss<yy>p<state>.csv`` (2014–2016). The paper used an IPUMS extract;
here every attribute is recoded from person-file PUMS variables. Blank fields (PUMS "b", N/A) are
code 0 wherever the variable has an N/A universe.

**Reduced domain** (15 attributes, one-hot dimension 33, |X| = 2^13·3·4 = 98,304, as the paper):

=========  =========  ====  ===================================================================
paper      PUMS       size  codes
(IPUMS)    variable
=========  =========  ====  ===================================================================
SEX        SEX           2  0 male, 1 female
FOODSTMP   PAP           2  1 iff public-assistance income > 0. Food stamps (FS) is a household
                            variable, absent from the person file; PAP is the closest person one
RACWHT     RACWHT        2  0/1 race flag
RACASIAN   RACASN        2  0/1
RACBLK     RACBLK        2  0/1
RACAMIND   RACAIAN       2  0/1
RACPACIS   RACNH         2  0/1 (Native Hawaiian)
RACOTHER   RACSOR        2  0/1 (some other race)
DIFFEYE    DEYE          2  1 iff vision difficulty
DIFFHEAR   DEAR          2  1 iff hearing difficulty
HCOVPRIV   PRIVCOV       2  1 iff private health coverage
HINSCAID   HINS4         2  1 iff Medicaid
HINSCARE   HINS3         2  1 iff Medicare
OWNERSHP   MIG           3  0 N/A (< 1 year old), 1 same house a year ago, 2 moved. Tenure (TEN)
                            is a household variable; residential mobility is the person-file
                            stand-in, 3-valued like IPUMS OWNERSHP (N/A, owned, rented)
EMPSTAT    ESR           4  0 N/A (< 16), 1 employed (ESR 1, 2, 4, 5), 2 unemployed (3),
                            3 not in labour force (6) — IPUMS EMPSTAT's four values
=========  =========  ====  ===================================================================

The brief's "14 binary + 1 three-valued" gives 2^14·3 = 49,152, not 98,304; the paper's numbers
(15 attributes, dimension 33, |X| = 98,304) force 13 binary + one 3-valued + one 4-valued.

**Full domain** (67 attributes like the paper's extract, one-hot dimension 265, |X| ≈ 4.73e34;
the paper's: dimension 287, |X| ≈ 4.99e18). The reduced domain is its projection:

=================================  =====  ====================================================
PUMS variable(s)                   size   recode
=================================  =====  ====================================================
AGEP                               10     0–9, 10–19, …, 80–89, 90+
SEX                                2      as above
MAR                                5      marital status 1–5
HISP                               2      1 iff Hispanic (HISP ≠ 1)
RAC1P                              9      race 1–9
RACWHT RACBLK RACASN RACAIAN       2 each race flags
RACNH RACSOR
RACNUM                             3      1, 2, 3+ races
CIT                                5      citizenship 1–5
NATIVITY                           2      native / foreign born
WAOB                               8      world area of birth 1–8
ENG                                5      N/A, English very well … not at all
LANX                               3      N/A, speaks another language at home, only English
SCHL                               9      N/A, none/preschool/K (1–3), grades 1–8 (4–11),
                                          9–12 no diploma (12–15), HS or GED (16–17), some
                                          college (18–19), associate (20), bachelor (21),
                                          graduate (22–24)
SCH                                4      N/A, not enrolled, public, private/home
SCHG                               5      N/A, preschool/K (1–2), grades 1–8 (3–10),
                                          grades 9–12 (11–14), college/graduate (15–16)
DEAR DEYE DIS                      2 each difficulty / any disability
DOUT DPHY DREM DDRS DRATX          3 each N/A, yes, no
HINS1 … HINS7 HICOV PRIVCOV        2 each coverage flags (employer, direct purchase,
PUBCOV                                    Medicare, Medicaid, TRICARE, VA, IHS, any,
                                          private, public)
MIL                                5      N/A, active duty, past duty, reserves only, never
COW                                10     N/A, class of worker 1–9
ESR                                4      as above
WKHP                               7      N/A, 1–19, 20–34, 35–39, 40, 41–49, 50+ hours
WKL                                4      N/A, last worked < 1 year, 1–5 years, > 5 / never
GCR                                3      N/A, grandparent responsible for grandchild, not
JWTR (≤ 2018) / JWTRNS (≥ 2019)    6      N/A, car/taxi/motorcycle, public transit,
                                          walk/bicycle, works at home, other
JWMNP                              6      N/A, < 15, 15–29, 30–44, 45–59, 60+ minutes
NWLK NWAB                          3 each N/A or not reported, yes, no
INDP                               20     N/A, 19 sectors (the NIST INDP_CAT sectors:
                                          lower codes 170, 370, 570, 770, 1070, 4070, 4670,
                                          6070, 6470, 6870, 7270, 7860, 7970, 8370, 8560,
                                          8770, 9370, 9670, 9920)
OCCP (OCCP12/OCCP10 before 2018)   8      N/A, management/business/science/arts (< 3600),
                                          service, sales/office (4700), natural resources/
                                          construction/maintenance (6000), production/
                                          transport (7700), military (9800), unemployed (9920)
PINCP                              7      N/A, ≤ 0, 1–9999, 10k–25k, 25k–50k, 50k–100k, 100k+
WAGP                               6      N/A, 0, 1–24999, 25k–50k, 50k–100k, 100k+
SEMP INTP RETP SSP SSIP PAP OIP    2 each 1 iff that income source > 0
POVPIP                             7      N/A, 0–99, 100–199, …, 400–500, 501
RELP (≤ 2018) / RELSHIPP (≥ 2019)  6      reference person, spouse/partner, child, other
                                          relative, non-relative, group quarters
OC                                 3      N/A, not an own child, own child
PAOC                               5      N/A, children < 6 only, 6–17 only, both, none
FER                                3      N/A, birth in past year, no
GCL                                3      N/A, lives with grandchild, no
MIG                                3      as above
MARHT                              4      N/A, married once, twice, 3+ times
=================================  =====  ====================================================
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import folktables
import numpy as np
import pandas as pd
from folktables.load_acs import _STATE_CODES, state_list

from .domain import Dataset, Domain
from .paths import DataUnavailableError, data_root

CENSUS_URL = "https://www2.census.gov/programs-surveys/acs/data/pums/{year}/1-Year/csv_p{st}.zip"
FIRST_YEAR = 2014


@dataclass(frozen=True)
class Recode:
    """One attribute: ``size`` codes computed by ``encode(series)`` from the first present column
    of ``columns`` (several when PUMS renamed the variable)."""

    name: str
    size: int
    columns: tuple[str, ...]
    encode: Callable[[pd.Series], np.ndarray]

    def apply(self, frame: pd.DataFrame) -> np.ndarray:
        present = [c for c in self.columns if c in frame.columns]
        if not present:
            raise ValueError(f"ACS attribute {self.name} needs one of the PUMS columns "
                             f"{list(self.columns)}; none is in this file")
        return self.encode(frame[present[0]]).astype(np.int64)


def _lookup(name, groups, na=True, unreported=(), columns=None) -> Recode:
    """Codes from groups of raw values: groups[i] → i + 1 with blank (and the raw codes
    ``unreported``) → 0 when ``na``; groups[i] → i and blanks rejected otherwise."""
    table = {float(v): 0 for v in unreported}
    table.update({float(v): i + int(na) for i, group in enumerate(groups) for v in group})

    def encode(series: pd.Series) -> np.ndarray:
        values = pd.to_numeric(series, errors="raise")
        codes = values.map(table)
        bad = codes.isna() & (values.notna() | (not na))
        if bad.any():
            raise ValueError(f"ACS column {series.name} has value {values[bad].iloc[0]} outside "
                             f"its codes {sorted(table)}; check the PUMS year")
        return codes.fillna(0).to_numpy()

    return Recode(name, len(groups) + int(na), tuple(columns or (name,)), encode)


def _codes(name, values, na=True) -> Recode:
    """Raw codes ``values`` in order (blank → 0 first when ``na``)."""
    return _lookup(name, [[v] for v in values], na=na)


def _yes_no(name) -> Recode:
    """PUMS 1 = yes, 2 = no → 1 / 0."""
    return _lookup(name, [[2], [1]], na=False)


def _flag(name) -> Recode:
    """A 0/1 recode flag, kept as is."""
    return _lookup(name, [[0], [1]], na=False)


def _yes_no_na(name, unreported=()) -> Recode:
    """Blank (and ``unreported`` codes) → 0, 1 yes → 1, 2 no → 2."""
    return _lookup(name, [[1], [2]], unreported=unreported)


def _bins(name, lower, na=True, columns=None) -> Recode:
    """Blank → 0 (when ``na``), then bins [lower[i], lower[i+1])."""
    edges = np.asarray(lower, dtype=float)

    def encode(series: pd.Series) -> np.ndarray:
        values = pd.to_numeric(series, errors="raise").to_numpy(dtype=float)
        blank = np.isnan(values)
        if blank.any() and not na:
            raise ValueError(f"ACS column {name} has blanks but every person should have it; "
                             "check the file")
        bins = np.searchsorted(edges, np.where(blank, edges[0], values), side="right") - 1
        if (bins < 0).any():
            raise ValueError(f"ACS column {name} has values below {lower[0]}; check the file")
        return np.where(blank, 0, bins + int(na))

    return Recode(name, len(lower) + int(na), tuple(columns or (name,)), encode)


def _positive(name) -> Recode:
    """1 iff the (income) amount is > 0; blank counts as 0."""
    def encode(series: pd.Series) -> np.ndarray:
        return (pd.to_numeric(series, errors="raise").fillna(0).to_numpy() > 0)
    return Recode(name, 2, (name,), encode)


_TRANSPORT = [[1, 7, 8], [2, 3, 4, 5, 6], [9, 10], [11], [12]]
_RELP = [[0], [1, 13], [2, 3, 4], [5, 6, 7, 8, 9, 10], [11, 12, 14, 15], [16, 17]]
_RELSHIPP = [[20], [21, 22, 23, 24], [25, 26, 27], [28, 29, 30, 31, 32, 33], [34, 35, 36],
             [37, 38]]
_INDP_SECTORS = [170, 370, 570, 770, 1070, 4070, 4670, 6070, 6470, 6870, 7270, 7860, 7970, 8370,
                 8560, 8770, 9370, 9670, 9920]
_OCCP_GROUPS = [0, 3600, 4700, 6000, 7700, 9800, 9900]


def _relationship() -> Recode:
    relp, relshipp = _lookup("RELP", _RELP, na=False), _lookup("RELSHIPP", _RELSHIPP, na=False)

    def encode(series: pd.Series) -> np.ndarray:
        return (relshipp if series.name == "RELSHIPP" else relp).encode(series)
    return Recode("RELP", 6, ("RELSHIPP", "RELP"), encode)


REDUCED: tuple[Recode, ...] = (
    _lookup("SEX", [[1], [2]], na=False), _positive("PAP"),
    *(_flag(f) for f in ("RACWHT", "RACASN", "RACBLK", "RACAIAN", "RACNH", "RACSOR")),
    *(_yes_no(f) for f in ("DEYE", "DEAR", "PRIVCOV", "HINS4", "HINS3")),
    _lookup("MIG", [[1], [2, 3]]), _lookup("ESR", [[1, 2, 4, 5], [3], [6]]),
)

_BY_NAME = {r.name: r for r in REDUCED}

FULL: tuple[Recode, ...] = (
    _bins("AGEP", [0, 10, 20, 30, 40, 50, 60, 70, 80, 90], na=False), _BY_NAME["SEX"],
    _codes("MAR", range(1, 6), na=False), _lookup("HISP", [[1], range(2, 25)], na=False),
    _codes("RAC1P", range(1, 10), na=False),
    *(_BY_NAME[f] for f in ("RACWHT", "RACBLK", "RACASN", "RACAIAN", "RACNH", "RACSOR")),
    _bins("RACNUM", [1, 2, 3], na=False), _codes("CIT", range(1, 6), na=False),
    _codes("NATIVITY", (1, 2), na=False), _codes("WAOB", range(1, 9), na=False),
    _codes("ENG", range(1, 5)), _codes("LANX", (1, 2)),
    _lookup("SCHL", [[1, 2, 3], range(4, 12), range(12, 16), [16, 17], [18, 19], [20], [21],
                     [22, 23, 24]]),
    _codes("SCH", (1, 2, 3)), _lookup("SCHG", [[1, 2], range(3, 11), range(11, 15), [15, 16]]),
    _BY_NAME["DEAR"], _BY_NAME["DEYE"], _yes_no("DIS"),
    *(_yes_no_na(f) for f in ("DOUT", "DPHY", "DREM", "DDRS", "DRATX")),
    *(_yes_no(f"HINS{i}") for i in range(1, 8)), _yes_no("HICOV"), _BY_NAME["PRIVCOV"],
    _yes_no("PUBCOV"),
    _codes("MIL", range(1, 5)), _codes("COW", range(1, 10)), _BY_NAME["ESR"],
    _bins("WKHP", [1, 20, 35, 40, 41, 50]), _codes("WKL", (1, 2, 3)), _yes_no_na("GCR"),
    _lookup("JWTR", _TRANSPORT, columns=("JWTRNS", "JWTR")),
    _bins("JWMNP", [1, 15, 30, 45, 60]),
    _yes_no_na("NWLK", unreported=(3,)), _yes_no_na("NWAB", unreported=(3,)),
    _bins("INDP", _INDP_SECTORS),
    _bins("OCCP", _OCCP_GROUPS, columns=("OCCP", "OCCP12", "OCCP10")),
    _bins("PINCP", [-np.inf, 1, 10000, 25000, 50000, 100000]),
    _bins("WAGP", [0, 1, 25000, 50000, 100000]),
    *(_positive(f) for f in ("SEMP", "INTP", "RETP", "SSP", "SSIP")), _BY_NAME["PAP"],
    _positive("OIP"), _bins("POVPIP", [0, 100, 200, 300, 400, 501]),
    _relationship(), _codes("OC", (0, 1)), _codes("PAOC", range(1, 5)), _yes_no_na("FER"),
    _yes_no_na("GCL"), _BY_NAME["MIG"], _codes("MARHT", (1, 2, 3)),
)

REDUCED_DOMAIN = Domain([r.name for r in REDUCED], [r.size for r in REDUCED])
FULL_DOMAIN = Domain([r.name for r in FULL], [r.size for r in FULL])


def encode(frame: pd.DataFrame, reduced: bool = False) -> Dataset:
    """Recode a PUMS person DataFrame onto the reduced or full domain."""
    recodes = REDUCED if reduced else FULL
    records = np.column_stack([r.apply(frame) for r in recodes])
    return Dataset(records, REDUCED_DOMAIN if reduced else FULL_DOMAIN)


def pums_file_name(state: str, year: int) -> str:
    """folktables' name of a 1-Year person file (``load_acs.initialize_and_download``)."""
    if year >= 2017:
        return f"psam_p{_STATE_CODES[state]}.csv"
    return f"ss{str(year)[-2:]}p{state.lower()}.csv"


def read_pums(state: str, year: int, download: bool = True) -> pd.DataFrame:
    """The raw person file of ``state`` (postal code, e.g. "PA") and ``year`` ≥ 2014.

    The Census publishes no checksums, so a local file is checked for what a damaged copy shows:
    empty, cut off (no final newline), not text, no person rows. Each is one line naming the file.
    """
    state, year = _check(state, year)
    root = data_root() / "acs"
    target, fix = _person_file(state, year)
    if target.is_file():
        check_person_file(target, fix)
    source = folktables.ACSDataSource(survey_year=str(year), horizon="1-Year", survey="person",
                                      root_dir=str(root))
    try:
        frame = source.get_data(states=[state], download=download)
    except FileNotFoundError:
        raise DataUnavailableError(
            f"ACS PUMS {state}-{year} person file {target.name} is missing and could not be "
            f"downloaded; {fix.replace('delete it and ', '')}, unzip it and save {target.name} "
            f"as {target}") from None
    except (UnicodeDecodeError, pd.errors.ParserError) as err:
        raise DataUnavailableError(f"ACS person file {target} is not a readable PUMS CSV "
                                   f"({' '.join(str(err).split())[:100]}); {fix}") from None
    if frame.empty:
        raise DataUnavailableError(f"ACS person file {target} has no person rows; {fix}")
    return frame


def check_person_file(path, fix: str) -> None:
    """One-line :class:`DataUnavailableError` if ``path`` is empty or cut off mid-row."""
    size = path.stat().st_size
    if size == 0:
        raise DataUnavailableError(f"ACS person file {path} is empty; {fix}")
    with open(path, "rb") as handle:
        handle.seek(size - 1)
        if handle.read(1) != b"\n":
            raise DataUnavailableError(f"ACS person file {path} is truncated (its last row has "
                                       f"no line end); {fix}")


def load_acs(state: str = "PA", year: int = 2018, reduced: bool = False,
             download: bool = True) -> Dataset:
    """ACS PUMS persons of one state and year on the full (67) or reduced (15) domain; a file
    whose columns do not decode is named in the one-line error."""
    frame = read_pums(state, year, download)
    try:
        return encode(frame, reduced)
    except ValueError as err:
        path, fix = _person_file(*_check(state, year))
        raise DataUnavailableError(f"ACS person file {path}: {err}; {fix}") from None


def _person_file(state: str, year: int):
    """(local path of the person file, the one-line fix for a damaged copy)."""
    path = data_root() / "acs" / str(year) / "1-Year" / pums_file_name(state, year)
    return path, f"delete it and download {CENSUS_URL.format(year=year, st=state.lower())} again"


def _check(state: str, year: int) -> tuple[str, int]:
    state = str(state).upper()
    if state not in state_list:
        raise ValueError(f"ACS state must be a postal code in {state_list}, got {state!r}")
    if int(year) < FIRST_YEAR:
        raise ValueError(f"ACS year must be ≥ {FIRST_YEAR} (folktables' first year), got {year}")
    return state, int(year)
