"""The theory and bound figures as a reader sees them, rebuilt from the committed CSVs: every legend
entry draws something, no legend covers data, no tick labels overlap, no caret outside mathtext,
count axes have no negative ticks, one-point series get no fitted curve, coinciding series stay
distinguishable, a partly certified LP point is not drawn as a quantile."""
import json
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

import figure_checks as fc  # noqa: E402
from experiments.theory import alon2019, bassily2020, liu2021, nandi2020  # noqa: E402
from experiments.theory.bound_figures import paper_figure  # noqa: E402
from experiments.theory.plotting import place_legends  # noqa: E402
from experiments.theory.runner import compose  # noqa: E402
from pubpriv_core.bounds.curves import PAPERS  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results" / "theory"


def _cfg(paper: str):
    return compose([f"experiment=theory_{paper}"]).experiment


def _laid_out(fig):
    fig.tight_layout()
    place_legends(fig)
    return fig


def _nandi_d():
    fits = pd.read_csv(RESULTS / "nandi2020" / "bound_fits.csv")
    df = pd.read_csv(RESULTS / "nandi2020" / "pcqr_n_vs_d.csv")
    return nandi2020.figure_unions(df, _cfg("nandi2020"), fits[fits.sweep == "m"].to_dict("records"))


def _alon_cover():
    return alon2019.figure_cover(pd.read_csv(RESULTS / "alon2019" / "cover_npub.csv"), 0.05)


def _liu_mixture():
    r = RESULTS / "liu2021"
    return liu2021.figure_mixture_and_pmwpub(pd.read_csv(r / "mixture_vs_m.csv"),
                                             pd.read_csv(r / "pmwpub_vs_n_eps.csv"), _cfg("liu2021"))


def _liu_thm44():
    r = RESULTS / "liu2021"
    summary = json.loads((r / "summary.json").read_text())
    return liu2021.figure_thm44(pd.read_csv(r / "pmwpub_vs_support.csv"), pd.read_csv(r / "pmwpub_vs_domain.csv"),
                                {"support": summary["support"], "domain": summary["domain"]})


def _bassily():
    r = RESULTS / "bassily2020"
    fits = json.loads((r / "summary.json").read_text())["apap_vs_p"]
    return bassily2020.figure_regime_p_dichotomy(pd.read_csv(r / "private_pmw_regime.csv"),
                                                 pd.read_csv(r / "apap_vs_p.csv"),
                                                 pd.read_csv(r / "dichotomy.csv"), fits, _cfg("bassily2020"))


FIGURES = {"nandi2020 fig_pcqr_n_vs_d": lambda: _nandi_d()[0], "alon2019 cover_npub": _alon_cover,
           "liu2021 fig_mixture_and_pmwpub": _liu_mixture, "liu2021 fig_thm44_support_domain": _liu_thm44,
           "bassily2020 fig_regime_p_dichotomy": _bassily,
           **{f"bounds/{paper}": (lambda p=paper: paper_figure(p)) for paper in PAPERS}}


@pytest.fixture(scope="module", params=sorted(FIGURES))
def figure(request):
    """Each figure drawn once for the four read-only checks below."""
    fig = FIGURES[request.param]()
    yield _laid_out(fig) if not request.param.startswith("bounds/") else fig
    plt.close(fig)


def test_legend_entries_draw_something(figure):
    assert fc.undrawn_legend_entries(figure) == []


def test_legends_cover_no_data(figure):
    assert fc.legends_over_data(figure) == []


def test_tick_labels_do_not_overlap(figure):
    assert fc.overlapping_tick_labels(figure) == []


def test_superscripts_are_mathtext(figure):
    assert fc.literal_carets(figure) == []


def test_sample_size_axes_have_no_negative_ticks():
    fig = _laid_out(_bassily())
    dichotomy = fig.axes[2]
    assert dichotomy.get_yscale() == "log" and fc.negative_ticks(dichotomy, "y") == []
    cover = _laid_out(_alon_cover())
    assert all(ax.get_ylim()[0] >= 1 for ax in cover.axes)        # no sub-sample bound stretches it
    plt.close("all")


def test_a_one_point_series_gets_no_fitted_constant():
    """Thm 3.3's shape against d: with one measured A_AgPrivCl point its constant comes from the
    m sweep, and both Thm 3.3 curves span the whole d grid."""
    fig, fits = _nandi_d()
    shape = next(f for f in fits if f["bound"] == "nandi2020.thm3.3")
    assert shape["fitted_on"] == "the m sweep, d = 1" and np.isnan(shape["log_rmse"])
    grid = pd.read_csv(RESULTS / "nandi2020" / "pcqr_n_vs_d.csv").d.nunique()
    curves = [ln for ln in fig.axes[0].lines if ln.get_label().startswith("nandi2020.thm3.3")]
    assert len(curves) == 2 and all(len(ln.get_xdata()) == grid for ln in curves)
    plt.close(fig)


def test_coinciding_cover_series_have_distinct_markers():
    fig = _alon_cover()
    for ax in fig.axes:
        styles = [(ln.get_marker(), str(ln.get_markerfacecolor())) for ln in ax.lines if ln.get_marker() != "None"]
        assert len(set(styles)) == len(styles) >= 3
    plt.close(fig)


def test_partly_certified_lp_point_is_not_a_quantile():
    """An (m, shift) where the LP certified in fewer trials than the grid is drawn as a hollow
    diamond 'their max', not on the quantile line."""
    mix = pd.read_csv(RESULTS / "liu2021" / "mixture_vs_m.csv")
    cfg = _cfg("liu2021")
    row = mix[mix.method == "lp"].iloc[[-1]].assign(trials=1, f_max=0.123)
    fig = liu2021.figure_mixture_and_pmwpub(pd.concat([mix[mix.index != row.index[0]], row]),
                                            pd.read_csv(RESULTS / "liu2021" / "pmwpub_vs_n_eps.csv"), cfg)
    ax = fig.axes[0]
    diamonds = [ln for ln in ax.lines if ln.get_marker() == "D"]
    assert len(diamonds) == 1 and list(diamonds[0].get_ydata()) == [0.123]
    quantiles = [ln for ln in ax.lines if ln.get_marker() == "o" and ln.get_linestyle() == "-"]
    assert all(row.m.iloc[0] not in ln.get_xdata() or ln.get_color() != diamonds[0].get_color() for ln in quantiles)
    assert any("only some trials" in t.get_text() for t in ax.get_legend().get_texts())
    plt.close(fig)


def test_thm44_log_axes_carry_the_sizes_not_their_logs():
    """|X̂| and |X| themselves on the log axes (a log axis of log|X̂| would double the log)."""
    r = RESULTS / "liu2021"
    sup, dom = pd.read_csv(r / "pmwpub_vs_support.csv"), pd.read_csv(r / "pmwpub_vs_domain.csv")
    fig = _liu_thm44()
    left, right = fig.axes
    assert left.get_xscale() == right.get_xscale() == "log"
    assert np.allclose(left.lines[0].get_xdata(), sup.support)
    assert np.allclose(right.lines[0].get_xdata(), np.exp(dom.log_domain_size))
    plt.close(fig)
