"""``scripts/bench.py successors reference``'s driver without the reference code: only the seeds
asked for run, runs already recorded are skipped, the order alternates with the seed's parity,
and the table pairs only the seeds both codes ran."""
import json
import sys

import pytest

from experiments.release.bench import successors


def _row(code, seed, error):
    return {"code": code, "algo": "gem", "seed": seed, "T": 50, "max_error": error,
            "mean_error": error / 100, "per_round_s": 1.0 if code == "pubpriv" else 10.0,
            "cpu_per_round_s": 1.0 if code == "pubpriv" else 8.0, "steps": [10, 20],
            "load": 1.0}


def test_interleave_runs_the_given_seeds_skips_recorded_runs_and_alternates(tmp_path,
                                                                              monkeypatch):
    calls = []
    monkeypatch.setattr(successors, "reference_data", lambda checkout: None)
    monkeypatch.setattr(successors, "problem", lambda data, rows=None: None)
    monkeypatch.setattr(successors, "run_ours", lambda prob, algo, seed, T, steps: (
        calls.append(("pubpriv", seed)) or _row("pubpriv", seed, 0.02)))
    monkeypatch.setattr(successors, "run_reference", lambda py, co, algo, seed, T, pub: (
        calls.append(("reference", seed)) or _row("reference", seed, 0.01 + seed / 1000)))
    out = tmp_path / "runs.jsonl"
    out.write_text(json.dumps(_row("pubpriv", 3, 0.02)) + "\n")
    rows = successors.interleave("py", tmp_path, "gem", [3, 4], 50, out, 200)
    assert calls == [("reference", 3), ("pubpriv", 4), ("reference", 4)]
    assert len(rows) == 4
    text = successors.table(rows + [_row("pubpriv", 5, 0.03)])
    assert "| gem | pubpriv | 3 |" in text and "| gem | reference | 2 |" in text
    paired = "| gem | 2 | +0.0065 [+0.0060, +0.0070] | "
    assert paired in text and "| 10.0× [10.0, 10.0] | 8.0× [8.0, 8.0] |" in text
    # unpaired over all runs: this harness 0.02, 0.02, 0.03 against the reference's 0.013, 0.014
    unpaired = text.split(paired)[1].split(" | ")[0]
    assert unpaired.startswith("+0.0098 [") and unpaired.endswith(")") and "p = " in unpaired


def test_code_runs_only_that_codes_runs(tmp_path, monkeypatch):
    """Without the reference, neither its runs nor its public pre-training."""
    calls = []
    monkeypatch.setattr(successors, "reference_data", lambda checkout: None)
    monkeypatch.setattr(successors, "problem", lambda data, rows=None: None)
    monkeypatch.setattr(successors, "run_ours", lambda prob, algo, seed, T, steps: (
        calls.append(("pubpriv", seed)) or _row("pubpriv", seed, 0.02)))
    monkeypatch.setattr(successors, "run_reference", lambda *args: calls.append(args))
    monkeypatch.setattr(successors, "public_rows", lambda data: [0])
    monkeypatch.setattr(successors, "write_public", lambda *args: calls.append("pre-training"))
    successors.interleave("py", tmp_path, "gem_pub", [3, 4], 50, tmp_path / "r.jsonl", 200,
                          ("pubpriv",))
    assert calls == [("pubpriv", 3), ("pubpriv", 4)]


def test_the_reference_pretraining_sees_its_package_and_fails_in_one_line(tmp_path):
    """The pre-training script runs in the checkout with its ``src`` package importable; a
    failing script is a RuntimeError naming the reference's last line."""
    script = tmp_path / "examples" / "run" / "nondp" / "run_gen_nn.py"
    script.parent.mkdir(parents=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "__init__.py").write_text("")
    script.write_text("import src, pathlib\npathlib.Path('pretrained').write_text('ok')\n")
    successors.reference_pretrain(sys.executable, tmp_path, "adult_pub", 1)
    assert (tmp_path / "pretrained").read_text() == "ok"
    script.write_text("raise SystemExit('no public rows')\n")
    with pytest.raises(RuntimeError, match="pre-training failed .*no public rows"):
        successors.reference_pretrain(sys.executable, tmp_path, "adult_pub", 1)
