"""Small ACS PUMS person files in folktables' layout, for offline tests of ``acs.py``.

The tests write them into a temporary data root for the session (nothing is committed).

Writes ``<out>/acs/2018/1-Year/psam_p42.csv`` (PA 2018: RELP, JWTR, OCCP),
``<out>/acs/2019/1-Year/psam_p39.csv`` (OH 2019: RELSHIPP, JWTRNS) and
``<out>/acs/2014/1-Year/ss14ppa.csv`` (PA 2014: old file name, OCCP10/OCCP12). The header uses
real PUMS column names; the rows are random but valid codes, blank where the variable's universe
excludes the person (by age, sex, work status), like the Census files. These are NOT census data.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from pubpriv_core.data.acs import pums_file_name

_FIPS = {"PA": 42, "OH": 39}


def _pick(rng, values, n, p=None):
    return rng.choice(np.asarray(values), size=n, p=p)


def _blank(values, keep):
    """Object column: the value where ``keep``, blank elsewhere (PUMS writes N/A as empty)."""
    out = pd.Series(values).astype(object)
    out[~np.asarray(keep)] = ""
    return out


def _yes_no(rng, n, p_yes=0.1):
    return _pick(rng, [1, 2], n, [p_yes, 1 - p_yes])


def person_frame(rng: np.random.Generator, n: int, state: str, year: int) -> pd.DataFrame:
    """``n`` random person records of ``state`` and ``year`` with PUMS column names."""
    age = rng.integers(0, 96, n)
    sex = _pick(rng, [1, 2], n)
    adult15, adult16 = age >= 15, age >= 16
    rac1p = _pick(rng, range(1, 10), n, [.7, .12, .01, .005, .005, .06, .01, .04, .05])
    two_plus = rac1p == 9
    f = {}
    f["RT"] = ["P"] * n
    f["SERIALNO"] = [f"{year}{'HU' if year >= 2018 else ''}{i:07d}" for i in range(1, n + 1)]
    if year >= 2015:
        f["DIVISION"] = [2 if state == "PA" else 3] * n
        f["REGION"] = [1 if state == "PA" else 2] * n
    f["SPORDER"] = rng.integers(1, 6, n)
    f["PUMA"] = [f"{v:05d}" for v in rng.integers(100, 4000, n)]
    f["ST"] = [_FIPS[state]] * n
    f["ADJINC"] = [1013097] * n
    f["PWGTP"] = rng.integers(1, 400, n)
    f["AGEP"], f["SEX"] = age, sex
    f["MAR"] = np.where(adult15, _pick(rng, range(1, 6), n), 5)
    f["HISP"] = _pick(rng, range(1, 25), n, [.85] + [.15 / 23] * 23)
    f["RAC1P"] = rac1p
    for flag, race in (("RACWHT", 1), ("RACBLK", 2), ("RACAIAN", 3), ("RACASN", 6),
                       ("RACNH", 7), ("RACSOR", 8)):
        f[flag] = ((rac1p == race) | (two_plus & (rng.random(n) < .4))).astype(int)
    f["RACNUM"] = np.where(two_plus, rng.integers(2, 5, n), 1)
    f["CIT"] = _pick(rng, range(1, 6), n, [.9, .01, .02, .04, .03])
    f["NATIVITY"] = np.where(f["CIT"] <= 3, 1, 2)
    f["WAOB"] = np.where(f["NATIVITY"] == 1, _pick(rng, [1, 2], n, [.97, .03]),
                         _pick(rng, range(3, 9), n))
    speaks_other = rng.random(n) < .15
    f["LANX"] = _blank(np.where(speaks_other, 1, 2), age >= 5)
    f["ENG"] = _blank(_pick(rng, range(1, 5), n), (age >= 5) & speaks_other)
    f["SCHL"] = _blank(np.minimum(_pick(rng, range(1, 25), n), np.maximum(1, age - 2)), age >= 3)
    sch = _pick(rng, [1, 2, 3], n, [.6, .3, .1])
    f["SCH"] = _blank(sch, age >= 3)
    f["SCHG"] = _blank(_pick(rng, range(1, 17), n), (age >= 3) & (sch > 1))
    f["DEAR"], f["DEYE"] = _yes_no(rng, n, .04), _yes_no(rng, n, .03)
    for name in ("DPHY", "DREM", "DDRS"):
        f[name] = _blank(_yes_no(rng, n, .06), age >= 5)
    f["DOUT"] = _blank(_yes_no(rng, n, .06), adult15)
    f["DIS"] = np.where((f["DEAR"] == 1) | (f["DEYE"] == 1), 1, _yes_no(rng, n, .08))
    for i in range(1, 8):
        f[f"HINS{i}"] = _yes_no(rng, n, [.5, .12, .18, .2, .03, .02, .01][i - 1])
    f["HICOV"] = np.where(np.column_stack([f[f"HINS{i}"] == 1 for i in range(1, 8)]).any(1), 1, 2)
    f["PRIVCOV"] = np.where((f["HINS1"] == 1) | (f["HINS2"] == 1) | (f["HINS5"] == 1), 1, 2)
    f["PUBCOV"] = np.where((f["HINS3"] == 1) | (f["HINS4"] == 1) | (f["HINS6"] == 1), 1, 2)
    mil = _pick(rng, [1, 2, 3, 4], n, [.01, .08, .01, .9])
    f["MIL"] = _blank(mil, age >= 17)
    f["DRATX"] = _blank(_yes_no(rng, n, .2), (age >= 17) & (mil == 2))
    esr = np.where(adult16, _pick(rng, range(1, 7), n, [.58, .02, .04, .005, .005, .35]), 0)
    employed = np.isin(esr, [1, 2, 4, 5])
    f["ESR"] = _blank(esr, adult16)
    f["COW"] = _blank(_pick(rng, range(1, 10), n), adult16 & (esr != 6))
    f["WKHP"] = _blank(rng.integers(1, 99, n), adult16 & employed)
    f["WKL"] = _blank(np.where(employed, 1, _pick(rng, [1, 2, 3], n)), adult16)
    f["NWLK"] = _blank(_pick(rng, [1, 2, 3], n, [.1, .85, .05]), adult16 & ~employed)
    f["NWAB"] = _blank(_pick(rng, [1, 2, 3], n, [.05, .9, .05]), adult16 & ~employed)
    f["JWTRNS" if year >= 2019 else "JWTR"] = _blank(_pick(rng, range(1, 13), n), employed)
    f["JWMNP"] = _blank(rng.integers(1, 120, n), employed)
    indp = _pick(rng, [170, 770, 1070, 3390, 4670, 6070, 6870, 7860, 8190, 8680, 9470, 9920], n)
    f["INDP"] = _blank(indp, adult16 & (esr != 6))
    occ = _pick(rng, [10, 1010, 2310, 3255, 4020, 4760, 5240, 6260, 7200, 8740, 9130, 9830], n)
    occ_keep = adult16 & (esr != 6)
    if year >= 2018:
        f["OCCP"] = _blank(occ, occ_keep)
    else:
        f["OCCP10"], f["OCCP12"] = _blank(occ, np.zeros(n, bool)), _blank(occ, occ_keep)
    wage = np.where(employed, np.round(rng.lognormal(10.3, 1, n), -2), 0)
    f["WAGP"] = _blank(wage, adult15)
    f["SEMP"] = _blank(np.where(rng.random(n) < .08, rng.integers(-5000, 90000, n), 0), adult15)
    for name, p in (("INTP", .2), ("RETP", .15), ("SSP", .2), ("SSIP", .03), ("PAP", .02),
                    ("OIP", .05)):
        f[name] = _blank(np.where(rng.random(n) < p, rng.integers(10, 30000, n), 0), adult15)
    f["PINCP"] = _blank(wage + np.where(rng.random(n) < .1, -400, 0), adult15)
    f["POVPIP"] = _blank(rng.integers(0, 502, n), rng.random(n) < .97)
    rel_codes = list(range(20, 39)) if year >= 2019 else list(range(0, 18))
    f["RELSHIPP" if year >= 2019 else "RELP"] = _pick(rng, rel_codes, n)
    f["OC"] = _blank(_pick(rng, [0, 1], n), age < 18)
    f["PAOC"] = _blank(_pick(rng, [1, 2, 3, 4], n), adult16 & (sex == 2))
    f["FER"] = _blank(_yes_no(rng, n, .05), (sex == 2) & adult15 & (age <= 50))
    gcl = _yes_no(rng, n, .05)
    f["GCL"] = _blank(gcl, age >= 30)
    f["GCR"] = _blank(_yes_no(rng, n, .4), (age >= 30) & (gcl == 1))
    f["MIG"] = _blank(_pick(rng, [1, 2, 3], n, [.86, .01, .13]), age >= 1)
    f["MARHT"] = _blank(_pick(rng, [1, 2, 3], n, [.8, .17, .03]), adult15 & (f["MAR"] != 5))
    return pd.DataFrame(f)


def write_fixtures(out: Path, rows: int, seed: int) -> list[Path]:
    """Write the three fixture files under ``out/acs``; returns their paths."""
    rng = np.random.default_rng(seed)
    written = []
    for state, year in (("PA", 2018), ("OH", 2019), ("PA", 2014)):
        path = out / "acs" / str(year) / "1-Year" / pums_file_name(state, year)
        path.parent.mkdir(parents=True, exist_ok=True)
        person_frame(rng, rows, state, year).to_csv(path, index=False)
        written.append(path)
    return written
