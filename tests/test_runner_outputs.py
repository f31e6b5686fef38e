"""Every script's output path is checked before any work (one ``error:`` line, status 2, nothing
created), and the scripts' other bad inputs are one line without a traceback: collect.py (odd
entries in a records tree, --strict on NaN/inf errors), the plots, the theory runner."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest

import experiments.theory.runner as theory
from experiments import bench_entry
from experiments.release.configure import cli
from experiments.release.running.store import ResultsStore
from runner_helpers import load_script, valid_record

LONG = "a" * 300   # a path component longer than NAME_MAX: the OS refuses it (ENAMETOOLONG)


def _main(command: str):
    """The ``main`` of ``scripts/<command>.py``, or of ``scripts/bench.py NAME`` for
    ``bench NAME``."""
    if command.startswith("bench "):
        return lambda argv: bench_entry.main([command.split()[1], *argv])
    return load_script(command).main


def _bad_paths(tmp_path: Path) -> dict[str, str]:
    """Output paths no script may accept: a file where a folder is expected, a path under a
    file, a folder the OS cannot create, a name too long."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    return {"file": str(blocker), "under-file": str(blocker / "x" / "out.png"),
            "proc": "/proc/pubpriv-no/out.png", "too-long": str(tmp_path / LONG / "out.png")}


#: script -> argv with OUT in place of the output path (file outputs end in .png/.csv/.json).
SCRIPTS = {
    "collect": lambda out, tmp: [str(tmp), "-o", out],
    "plot_errors": lambda out, tmp: [str(tmp / "in.csv"), "-o", out],
    "plot_figures": lambda out, tmp: [out],
    "reproduce": lambda out, tmp: ["fig2", "--quick", "--out", out],
    "bench scale": lambda out, tmp: ["--sizes", "10", "--out", out],
    "bench aim_gap": lambda out, tmp: ["--out", out, "--seeds", "0"],
    "bench aim_reference": lambda out, tmp: ["--out", out, "--reference-dir", str(tmp)],
    "bench replay_fig2": lambda out, tmp: [out],
    "bounds": lambda out, tmp: ["plot", "--out", out],
    "make_acs_fixture": lambda out, tmp: ["--out", out],
}
FOLDER_OUTPUTS = {"plot_figures", "reproduce", "bench scale", "bounds", "make_acs_fixture"}


def _status(main, argv, capsys) -> tuple[int, str]:
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = exit_.code
    return status, capsys.readouterr().err


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_every_script_checks_its_output_path_first(script, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)                 # a default path, if any, lands here
    (tmp_path / "in.csv").write_text("algo,eps,max_error\npmwpub,1,0.1\n")
    main = _main(script)
    for kind, out in _bad_paths(tmp_path).items():
        if script in FOLDER_OUTPUTS and kind != "file":
            out = str(Path(out).parent)
        if script not in FOLDER_OUTPUTS and kind == "file":
            out = str(tmp_path)                 # a file output that is a folder
        before = sorted(tmp_path.rglob("*"))
        status, err = _status(main, SCRIPTS[script](out, tmp_path), capsys)
        assert status == 2, (script, kind, err)
        assert err.startswith("error: ") and err.count("\n") == 1, (script, kind, err)
        assert out[:60] in err, (script, kind, err)
        assert sorted(tmp_path.rglob("*")) == before, (script, kind)


def test_plot_image_format_is_checked_first(tmp_path, capsys):
    status, err = _status(_main("plot_errors"), [str(tmp_path), "-o", str(tmp_path / "x.xyz")],
                          capsys)
    assert status == 2 and "x.xyz must end in .eps" in err and err.count("\n") == 1


@pytest.mark.parametrize("kind", ["under-file", "proc", "too-long"])
def test_run_and_theory_output_folders_are_checked_first(kind, tmp_path, capsys):
    folder = str(Path(_bad_paths(tmp_path)[kind]).parent)
    for argv in (["runs=1", f"results_dir={folder}"],
                 ["runs=1", f"results_dir={tmp_path / 'ok'}", f"hydra.run.dir={folder}"],
                 ["-m", "eps=1,2", f"results_dir={tmp_path / 'ok'}", f"hydra.sweep.dir={folder}"]):
        with pytest.raises(SystemExit) as info:
            cli.main(lambda: pytest.fail("must not start"), argv)
        err = capsys.readouterr().err
        assert info.value.code == 2 and err.count("\n") == 1 and folder[:60] in err, err
    with pytest.raises(SystemExit) as info:
        theory.main(["experiment=theory_alon2019", f"experiment.out={folder}"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.startswith("error: experiment.out=")
    assert not (tmp_path / "ok").exists()


# ----------------------------------------------------------------------------- collect.py
def _store_with(tmp_path: Path, *errors: float) -> ResultsStore:
    store = ResultsStore(tmp_path / "runs")
    for run, error in enumerate(errors):
        store.write(valid_record(run, max_error=error))
    return store


def test_collect_reports_odd_entries_and_strict_refuses_them(tmp_path, capsys):
    store = _store_with(tmp_path, 0.1, 0.2)
    folder = store.records_dir / "0123456789abcdef"
    (folder / "dir.json").mkdir(parents=True)
    (folder / "dangling.json").symlink_to(tmp_path / "nowhere")
    os.mkfifo(folder / "pipe.json")             # reading it would block forever
    collect = _main("collect")
    status, err = _status(collect, [str(store.root), "-o", str(tmp_path / "all.csv")], capsys)
    assert status == 0 and err.count("warning: damaged record") == 3, err
    assert "not a regular file" in err and "Traceback" not in err
    assert len((tmp_path / "all.csv").read_text().splitlines()) == 3
    status, err = _status(collect, [str(store.root), "--strict", "-o", str(tmp_path / "s.csv")],
                          capsys)
    assert status == 1 and "3 damaged record file(s)" in err and not (tmp_path / "s.csv").exists()


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_collect_strict_refuses_non_finite_errors(bad, tmp_path, capsys):
    store = _store_with(tmp_path, 0.1, bad)
    collect = _main("collect")
    status, err = _status(collect, [str(store.root), "--strict", "-o", str(tmp_path / "s.csv")],
                          capsys)
    assert status == 1 and f"max_error={bad!r} not finite" in err, err
    assert "1 record(s) with non-finite errors" in err and not (tmp_path / "s.csv").exists()
    status, err = _status(collect, [str(store.root), "-o", str(tmp_path / "all.csv")], capsys)
    assert status == 0 and err.startswith("warning: record ") and "; kept" in err


def test_collect_refuses_a_folder_named_twice(tmp_path, capsys):
    store = _store_with(tmp_path, 0.1)
    argv = [str(store.root), f"{store.root}/", "-o", str(tmp_path / "all.csv")]
    status, err = _status(_main("collect"), argv, capsys)
    assert status == 2 and "named twice" in err and not (tmp_path / "all.csv").exists()


# ----------------------------------------------------------------------------- plots
def test_plots_refuse_bad_tables_in_one_line(tmp_path, capsys):
    table = tmp_path / "t.csv"
    table.write_text("algo,eps,max_error\npmwpub,1,0.1\n")
    status, err = _status(_main("plot_errors"), [str(table), "-o", str(tmp_path / "x.png"),
                                                 "--metric", "algo"], capsys)
    assert status == 2 and "no numeric column 'algo'" in err and err.count("\n") == 1
    status, err = _status(_main("plot_errors"), [str(tmp_path), "-o", str(tmp_path / "x.png")],
                          capsys)
    assert status == 2 and err.startswith("error: ") and err.count("\n") == 1
    (tmp_path / "runs.csv").write_text("a,b\n1,2\n")
    status, err = _status(_main("plot_figures"), [str(tmp_path)], capsys)
    assert status == 2 and "lacks the column(s) row, role, line" in err
    assert not (tmp_path / "x.png").exists() and not (tmp_path / "figure.png").exists()


# ----------------------------------------------------------------------------- theory runner
@pytest.mark.parametrize("argv, words", [
    (["experiment=theory_alon2019", "experiment=theory_liu2021"], "pass exactly one theory preset"),
    ([], "pass exactly one theory preset experiment=<name> (got none)"),
    (["experiment=theory_nope"], "choose one of: theory_alon2019, theory_bassily2020"),
    (["experiment=theory_alon2019", "experiment.eps=abc"],
     "experiment.eps must be a finite number like the preset's 1.0, got 'abc'"),
    (["experiment=theory_alon2019", "experiment.eps=nan"], "experiment.eps must be a finite"),
    (["experiment=theory_alon2019", "experiment.trials=2.5"],
     "experiment.trials must be an integer"),
    (["experiment=theory_alon2019", "experiment.eps=0"], "experiment.eps must be > 0"),
    (["experiment=theory_liu2021", "experiment.pmwpub.eps=0.5"], "must be a list like the preset"),
    (["experiment=theory_liu2021", "experiment.audit.delta=1"], "must be below 1"),
    (["experiment=theory_liu2021", "experiment.n_jobs=0"], "-1 (all cores) or a positive integer"),
    (["experiment=theory_alon2019", "+experiment.nokey=1"], "unknown key experiment.nokey"),
    (["experiment=theory_alon2019", "~experiment.eps"], "missing key experiment.eps"),
    (["experiment=theory_alon2019", "experiment.name=liu2021"], "differs from the preset's"),
    (["experiment=theory_alon2019", "experiment.parts=[]"], "experiment.parts is empty"),
    (["experiment=theory_alon2019", "experiment.parts=[nope]"], "experiment.parts has unknown"),
])
def test_theory_bad_input_is_one_line_before_any_work(argv, words, tmp_path, capsys, monkeypatch):
    def never(cfg):
        pytest.fail("the experiment must not start on bad input")

    theory._lookup("alon2019"), theory._lookup("liu2021")
    monkeypatch.setitem(theory.REGISTRY, "alon2019", never)
    monkeypatch.setitem(theory.REGISTRY, "liu2021", never)
    out = [f"experiment.out={tmp_path / 'out'}"] if argv and "nope" not in argv[0] else []
    with pytest.raises(SystemExit) as info:
        theory.main([*argv, *out])
    err = capsys.readouterr().err.strip()
    assert info.value.code == 2 and err.startswith("error: ") and "\n" not in err, err
    assert words in err, err
    assert not (tmp_path / "out").exists()


def _leaves(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _leaves(value, (*path, key))
    else:
        yield path, node


@pytest.mark.parametrize("preset", theory.theory_presets())
def test_theory_preset_walk(preset):
    """Every leaf of every theory preset refuses a value of another kind (the preset is the
    schema): a number a string, a string or boolean a number, a list a scalar."""
    from omegaconf import OmegaConf

    from experiments.theory.preset_checks import check_against_preset

    reference = OmegaConf.to_container(OmegaConf.load(theory.CONF_DIR / "experiment"
                                                      / f"{preset}.yaml"), resolve=True)
    check_against_preset(reference, reference)
    for path, value in _leaves(reference):
        bad = "abc" if isinstance(value, (int, float, list)) and not isinstance(value, bool) \
            else 1.5 if value is not None else "abc"
        if isinstance(value, list) and (not value or isinstance(value[0], str)):
            bad = 7
        cfg = json.loads(json.dumps(reference))
        node = cfg
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = bad
        with pytest.raises(ValueError):
            check_against_preset(cfg, reference)


@pytest.mark.parametrize("errno_, status", [(36, 2), (5, 1)])
def test_os_error_in_the_pre_check_is_one_line(errno_, status, tmp_path, capsys, monkeypatch):
    """An OS error anywhere in run.py's pre-check (a path the OS refuses: bad input, 2; an I/O
    error: fault, 1) is one line, not a traceback."""
    def failing(cfg):
        raise OSError(errno_, os.strerror(errno_), str(tmp_path / "data"))

    monkeypatch.setattr(cli, "check_config", failing)
    with pytest.raises(SystemExit) as info:
        cli.main(lambda: pytest.fail("must not start"), [f"results_dir={tmp_path / 'out'}"])
    err = capsys.readouterr().err
    assert info.value.code == status and err.count("\n") == 1
    assert err.startswith(f"error: cannot use {tmp_path / 'data'}: {os.strerror(errno_)}")
