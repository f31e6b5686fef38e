"""An algorithm from another installed package (the ``pubpriv.algorithms`` entry points) runs
through the same path as the built-in ones: ``run.py -m`` checks its options with the rules,
runs, stores and accounts it, ``collect.py`` and ``plot_errors.py`` take its records; and the
spend check every release passes refuses a ledger whose spend does not add up."""
from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import dataclass

import pandas as pd
import pytest

from experiments.release.configure import plugins as runner_plugins
from pubpriv_core.algorithms.plugins import AlgorithmPlugin, PluginError
from pubpriv_core.harness import PrivacyAccountingError, check_spend
from pubpriv_core.privacy import rho_from_eps
from pubpriv_core.privacy.ledger import Ledger, Spend
from plugin_helpers import REPO, plugin_env


def _run(env, *args):
    return subprocess.run([sys.executable, *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=600)


def test_plugin_sweep_is_checked_stored_accounted_collected_and_drawn(tmp_path):
    env, out = plugin_env(tmp_path / "site"), tmp_path / "runs"
    sweep = _run(env, "run.py", "-m", "algo=measure_fit", "eps=0.5,1", "runs=2",
                 "dataset.preset=tiny", "workload.size=null", "T=10", f"results_dir={out}")
    assert sweep.returncode == 0, sweep.stderr
    assert "job 2/2 done" in sweep.stdout + sweep.stderr
    assert "sweep done: 4 new record(s), 0 reused, 0 missing" in sweep.stdout
    records = [json.loads(p.read_text()) for p in out.glob("records/*/*.json")]
    assert len(records) == 4 and {r["algo"] for r in records} == {"measure_fit"}
    for record in records:      # the ledger's total, within the budget of its ε
        delta = record["delta"]
        assert record["rho"] == pytest.approx(rho_from_eps(record["eps"], delta), rel=1e-9)
        assert record["eps_spent"] <= record["eps"] * (1 + 1e-9)
    collect = _run(env, "scripts/collect.py", str(out), "-o", str(out / "all.csv"))
    assert collect.returncode == 0, collect.stderr
    table = pd.read_csv(out / "all.csv")
    assert sorted(table["eps"]) == [0.5, 0.5, 1.0, 1.0] and "opt_step" in table.columns
    plot = _run(env, "scripts/plot_errors.py", str(out / "all.csv"), "-o", str(out / "f.png"))
    assert plot.returncode == 0, plot.stderr
    assert (out / "f.png").read_bytes()[:4] == b"\x89PNG"


def test_plugin_options_are_checked_by_the_rules(tmp_path):
    env = plugin_env(tmp_path / "site")
    bad = _run(env, "run.py", "algo=measure_fit", "algo.step=-1", f"results_dir={tmp_path}")
    assert bad.returncode == 2
    assert bad.stderr.strip() == ("error: algo.step must be a finite number in (0, 100], got "
                                  "-1.0; pass a multiplicative-weights step such as 1")
    unknown = _run(env, "run.py", "algo=measure_fit", "algo.rounds=3", f"results_dir={tmp_path}")
    assert unknown.returncode == 2 and unknown.stderr.startswith("error: ")
    assert not (tmp_path / "records").exists()


@dataclass(frozen=True)
class _Options:
    scale: float = 1.0           # a number without a rule


def _fake_run(problem, private, *, T, rng, scale=1.0):
    raise AssertionError("not run here")


def test_a_plugin_option_without_a_rule_is_refused():
    plugin = AlgorithmPlugin(name="fake_algo", run=_fake_run, options=_Options)
    with pytest.raises(PluginError, match="option 'scale' has no rule"):
        runner_plugins.install(plugin)


def _spend(rho, eps, delta=1e-6, accounting="zcdp"):
    return Spend(rho=rho, eps=eps, delta=delta, accounting=accounting,
                 relation="replace_one", privacy="verified", by_label={})


def test_spend_check_accepts_the_ledger_and_refuses_what_does_not_add_up():
    """The harness's last check on a ledger's spend: δ is the target's, ε within the target
    and, under zCDP, ε = eps_from_rho(ρ, δ); each way out is refused by its own message."""
    ledger = Ledger(1.0, 1e-6)
    ledger.charge(ledger.rho_total / 2, "a")
    ledger.charge(ledger.rho_total / 2, "b")
    check_spend("fake", ledger.report(), 1.0, 1e-6)
    check_spend("fake", _spend(0.0, 0.0), 1.0, 1e-6)                 # nothing spent
    check_spend("fake", _spend(9.0, 0.9, accounting="advanced"), 1.0, 1e-6)  # DualQuery's
    spent, eps = ledger.spent, ledger.eps()
    with pytest.raises(PrivacyAccountingError, match="is not the target"):
        check_spend("fake", _spend(spent, eps, delta=2e-6), 1.0, 1e-6)
    with pytest.raises(PrivacyAccountingError, match="above the budget"):
        check_spend("fake", _spend(spent, 1.0 + 1e-8), 1.0, 1e-6)
    with pytest.raises(PrivacyAccountingError, match="not eps_from_rho"):
        check_spend("fake", _spend(spent, 0.5), 1.0, 1e-6)
    with pytest.raises(PrivacyAccountingError, match="not eps_from_rho"):
        check_spend("fake", _spend(spent / 2, eps), 1.0, 1e-6)
    assert math.isclose(spent, rho_from_eps(1.0, 1e-6), rel_tol=1e-12)


BROKEN = {"import_error": "import not_a_module_anywhere\n",
          "raises": ("from pubpriv_core.algorithms.plugins import AlgorithmPlugin\n"
                     "def run(public, private, *, T, rng):\n"
                     "    raise RuntimeError('the plugin failed')\n"
                     "PLUGIN = AlgorithmPlugin(name='raises', run=run)\n"),
          "nothing": ("from pubpriv_core.algorithms.plugins import AlgorithmPlugin\n"
                      "def run(public, private, *, T, rng):\n"
                      "    return None\n"
                      "PLUGIN = AlgorithmPlugin(name='nothing', run=run)\n")}


@pytest.fixture(scope="module")
def broken_env(tmp_path_factory):
    """A site with three plugins: one that does not import, one whose run raises, one whose run
    returns nothing."""
    import os

    from pubpriv_core.algorithms.plugins import GROUP
    site = tmp_path_factory.mktemp("broken_site")
    points = []
    for name, source in BROKEN.items():
        (site / f"broken_{name}.py").write_text(source)
        points.append(f"{name} = broken_{name}:PLUGIN")
    dist = site / "broken_plugins-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-plugins\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(f"[{GROUP}]\n" + "\n".join(points) + "\n")
    env = dict(os.environ, CI="1", MPLBACKEND="Agg")
    env["PYTHONPATH"] = os.pathsep.join([str(site), str(REPO), env.get("PYTHONPATH", "")])
    env.pop("HYDRA_FULL_ERROR", None)
    return env


TINY = ("dataset.preset=tiny", "workload.size=null", "runs=1", "T=3")


@pytest.mark.slow
def test_a_broken_plugin_never_breaks_the_built_ins(broken_env, tmp_path):
    done = _run(broken_env, "run.py", "algo=pmwpub", *TINY, f"results_dir={tmp_path}")
    assert done.returncode == 0, done.stderr
    assert len(list(tmp_path.glob("records/*/*.json"))) == 1


@pytest.mark.slow
@pytest.mark.parametrize("name, status, words", [
    ("import_error", 2, "plugin import_error (entry point broken_import_error:PLUGIN of group "
                        "pubpriv.algorithms) does not load (ModuleNotFoundError"),
    ("raises", 1, "algorithm raises failed: RuntimeError: the plugin failed"),
    ("nothing", 1, "algorithm nothing returned NoneType, not a Release")])
def test_a_broken_plugin_is_one_line_naming_it(broken_env, tmp_path, name, status, words):
    done = _run(broken_env, "run.py", f"algo={name}", *TINY, f"results_dir={tmp_path}")
    lines = done.stderr.strip().splitlines()
    assert done.returncode == status and len(lines) == 1, done.stderr
    assert words in lines[0]
    assert not list(tmp_path.glob("records/*/*.json"))
