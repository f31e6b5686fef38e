"""Paired differences over shared runs, reference lines and the paper's tuning protocol."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from experiments.release.stats.paired import (grid_edges, interval, mixture_reference, paired_differences,
                                verdict)
from experiments.release.stats.tuning import select


def test_interval_is_the_t_interval_of_the_mean():
    d = np.array([-0.03, -0.01, -0.02, -0.04, -0.02])
    mean, low, high = interval(d)
    half = stats.t.ppf(0.975, 4) * d.std(ddof=1) / np.sqrt(5)
    assert (mean, low, high) == pytest.approx((-0.024, -0.024 - half, -0.024 + half))
    assert verdict(low, high) == "lower"
    assert verdict(-0.1, 0.1) == "undecided" and verdict(0.01, 0.2) == "higher"


def runs_table() -> pd.DataFrame:
    """PMW^Pub on runs 0..4 at one ε, DualQuery on the same runs, public only per run."""
    pmw = [0.10, 0.12, 0.11, 0.13, 0.09]
    rows = [{"line": "r / PMW^Pub [S]", "row": "r", "source": "S", "algo": "pmwpub",
             "eps": 1.0, "run": i, "seed": 0, "max_error": e} for i, e in enumerate(pmw)]
    rows += [{"line": "r / DualQuery", "row": "r", "source": "", "algo": "dualquery",
              "eps": 1.0, "run": i, "seed": 0, "max_error": e + 0.05 + 0.001 * i}
             for i, e in enumerate(pmw)]
    return pd.DataFrame(rows)


def test_pairs_are_matched_by_run():
    runs = runs_table()
    public = pd.DataFrame({"row": "r", "source": "S", "run": range(5), "seed": 0,
                           "max_error": [0.10, 0.12, 0.11, 0.13, 0.09]})
    diffs = paired_differences(runs, public).set_index("versus")
    # identical per-run errors: the difference is exactly 0 and undecided
    assert diffs.loc["public only", "diff"] == 0 and diffs.loc["public only", "verdict"] == \
        "undecided"
    # a shift of −0.05 − 0.001·run on every run: tiny spread, decided
    assert diffs.loc["DualQuery", "diff"] == pytest.approx(-0.052)
    assert diffs.loc["DualQuery", "verdict"] == "lower"
    assert diffs.loc["DualQuery", "runs"] == 5


def test_mixture_reference_prefers_the_exact_value_and_keeps_the_estimate():
    mixture = pd.DataFrame({"row": "r", "source": ["A", "A", "B"],
                            "trace_lp_value": [0.01, 0.01, np.nan],
                            "trace_mw_value": [0.02, 0.03, 0.05]})
    ref = mixture_reference(mixture).set_index("source")
    assert ref.loc["A", "mean"] == 0.01 and ref.loc["A", "exact"]
    assert ref.loc["A", "mw_estimate"] == pytest.approx(0.025)
    assert ref.loc["B", "mean"] == 0.05 and not ref.loc["B", "exact"]


def tuning_tables():
    def rows(line, algo, errors):
        return [{"line": line, "algo": algo, "eps": 1.0, "T": T, "run": r, "max_error": e + r * 1e-3}
                for T, e in errors.items() for r in range(3)]
    test = pd.DataFrame(rows("p", "pmwpub", {10: 0.2, 50: 0.1}) +
                        rows("d", "dualquery", {1: 0.3, 2: 0.4}))
    validation = pd.DataFrame(rows("p", "pmwpub", {10: 0.1, 50: 0.2}) +
                              rows("d", "dualquery", {1: 0.5, 2: 0.1}))
    return test, validation


def test_paper_tuning_validates_pmwpub_only():
    test, validation = tuning_tables()
    chosen = select(test, "paper", validation).set_index("line")
    assert chosen.loc["p", "T"] == 10 and chosen.loc["p", "tuning"] == "validation"
    assert chosen.loc["d", "T"] == 1 and chosen.loc["d", "tuning"] == "best_average (baseline)"
    alone = select(test, "paper", None).set_index("line")
    assert alone.loc["p", "T"] == 50 and alone.loc["p", "tuning"].startswith("best_average")


def test_grid_edges_lists_selected_extremes():
    test, _ = tuning_tables()
    chosen = select(test, "best_average")
    edges = grid_edges(test, chosen)
    assert set(edges["line"]) == {"p", "d"} and set(edges["value"]) == {50, 1}


def test_p_value_is_the_paired_t_test_and_holm_steps_down():
    d = np.array([-0.03, -0.01, -0.02, -0.04, -0.02])
    from experiments.release.stats.paired import holm, p_value

    assert p_value(d) == pytest.approx(stats.ttest_1samp(d, 0.0).pvalue)
    assert p_value(np.full(5, -0.01)) == 0.0 and p_value(np.zeros(5)) == 1.0
    assert np.isnan(p_value(np.array([0.1])))
    # Holm: sorted p·(m − i), running maximum, capped at 1; NaN outside the family
    adjusted = holm(np.array([0.01, 0.04, np.nan, 0.03, 0.005]))
    assert adjusted[[4, 0, 3, 1]] == pytest.approx([0.02, 0.03, 0.06, 0.06])
    assert np.isnan(adjusted[2])


def test_holm_verdicts_undecide_what_only_the_uncorrected_interval_decides():
    from experiments.release.stats.paired import holm_verdicts, interval, p_value

    rng = np.random.default_rng(0)
    weak = np.array([-0.03, -0.01, -0.02, -0.04, -0.02])       # p ≈ 0.01 on its own
    rows = []
    for i in range(40):                       # a family of 40: one weak effect, one strong
        d = weak if i == 0 else rng.normal(0.0, 0.004, 5) - (1.0 if i == 1 else 0.0)
        mean, low, high = interval(d)
        rows.append({"line": f"l{i}", "eps": 1.0, "versus": "X", "diff": mean, "low": low,
                     "high": high, "p": p_value(d)})
    out = holm_verdicts(pd.DataFrame(rows))
    assert (out["family"] == 40).all()
    assert out.loc[0, "verdict_uncorrected"] == "lower" and out.loc[0, "p"] < 0.05
    assert out.loc[0, "verdict"] == "undecided" and out.loc[0, "p_holm"] > 0.05
    assert out.loc[1, "verdict"] == "lower"


def test_best_mixture_is_tested_only_against_a_certified_floor():
    runs = runs_table()
    mixture = pd.DataFrame({"row": "r", "source": ["S"], "mean": [0.09], "exact": [True]})
    family = (("PMW^Pub", "best mixture"),)
    diffs = paired_differences(runs, runs.iloc[:0], mixture, family).set_index("versus")
    assert diffs.loc["best mixture", "diff"] == pytest.approx(0.11 - 0.09)
    assert paired_differences(runs, runs.iloc[:0], mixture.assign(exact=False), family).empty


def test_ties_with_the_certified_floor_are_not_differences():
    from experiments.release.stats.paired import p_value

    assert p_value(np.full(5, -5e-10)) == 1.0          # at the exact floor, within 1e-9
    assert p_value(np.full(5, 2e-9)) == 0.0            # a constant gap above the tolerance
