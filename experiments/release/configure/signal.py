"""Signal-matched tables: runs at a paper-equivalent ε, read by the figures and statistics.

A measurement of a query with sensitivity 1/n at budget ε has noise of scale ∝ 1/(n·ε), so a
release on n private rows at ε carries the signal of one on n_ref rows at ε·n/n_ref. Liu et al.
2021 run their ACS experiments with n ≈ 10^5 private rows (§5 sizes its Laplace check with
n = 10^5); the NIST excerpts have n = 7,634 (MA-2019) to 27,253 (national-2019). ``eps_equiv``
(the paper-equivalent ε) therefore sets

    ε = eps_equiv · n_ref / n,      n = rows of the private dataset, n_ref = 10^5 by default,

and the run spends that ε (:class:`pubpriv_core.job.Job` resolves it once); δ = 1/n² and the
privacy ledger are unchanged (only ε is chosen). Records carry ``eps`` (the ε spent), ``eps_equiv`` and ``n_ref``; figures of matched grids put
``eps_equiv`` on the x axis and state the real ε range (:func:`axis_eps`).
"""
from __future__ import annotations

import pandas as pd


def is_matched(table: pd.DataFrame) -> bool:
    """True when the private lines of ``table`` were run at a paper-equivalent ε."""
    return "eps_equiv" in table.columns and table["eps_equiv"].notna().any()


def axis_eps(table: pd.DataFrame) -> pd.DataFrame:
    """The table with ``eps`` the paper-equivalent ε where a run has one (its ε spent kept as
    ``eps_real``), so that selection, pairing and figures index matched runs by eps_equiv; a
    table without matched runs is returned as is."""
    if not is_matched(table):
        return table
    matched = table["eps_equiv"].notna()
    return table.assign(eps_real=table["eps"], eps=table["eps_equiv"].where(matched,
                                                                             table["eps"]))


def real_eps_ranges(table: pd.DataFrame) -> dict[str, tuple[float, float, int]]:
    """Per figure row of a matched table: (smallest ε spent, largest ε spent, private rows n)."""
    if "eps_real" not in table.columns:
        return {}
    runs = table[table["eps_equiv"].notna()]
    grouped = runs.groupby("row").agg(low=("eps_real", "min"), high=("eps_real", "max"),
                                      n=("n_private", "max"))
    return {row: (r["low"], r["high"], int(r["n"])) for row, r in grouped.iterrows()}
