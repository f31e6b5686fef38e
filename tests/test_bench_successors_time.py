"""``scripts/bench.py successors time --runs N``: one JSON line per repetition 0..N−1, each the
release of that repetition (different draws, same problem)."""
import json

from experiments.release.bench.successors import main as bench_main


def test_time_prints_one_line_per_repetition(capsys):
    bench_main(["time", "--runs", "2", "--", "experiment=sota", "algo=pep_pub", "T=3",
                "eps=1.0", "public={year:2018}", "hydra.sweeper.params={}"])
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["run"] for r in rows] == [0, 1]
    assert all(r["T"] == 3 and 0 < r["max_error"] < 1 and r["per_round_s"] > 0 for r in rows)
    assert rows[0]["max_error"] != rows[1]["max_error"]


def test_time_spends_the_paper_equivalent_eps(capsys):
    """``eps_equiv`` is honoured as in the runner: ε = eps_equiv·n_ref/n."""
    bench_main(["time", "--", "experiment=sota", "algo=pep_pub", "T=3", "eps_equiv=0.5",
                "public={year:2018}", "hydra.sweeper.params={}"])
    row = json.loads(capsys.readouterr().out)
    assert abs(row["eps"] - 0.5 * 100_000 / 7_634) < 1e-9
