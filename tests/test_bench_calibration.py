"""``scripts/bench.py calibration``: the clique cells of an elimination order, the measure it
sets beside a run's junction tree."""
import random

from experiments.release.bench import calibration as bench

SIZES = {"a": 2, "b": 3, "c": 5, "d": 7}


def test_a_chain_needs_no_fill_in_whatever_the_order():
    chain = [("a", "b"), ("b", "c"), ("c", "d")]
    cells = 2 * 3 + 3 * 5 + 5 * 7
    assert bench.tree_cells(chain, SIZES, bench.min_fill) == cells
    rng = random.Random(1)
    assert {bench.tree_cells(chain, SIZES, bench.randomised(rng)) for _ in range(20)} == {cells}


def test_a_four_cycle_is_triangulated_by_one_chord():
    cycle = [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d")]
    # every vertex adds one edge; the tie goes to the fewest cells, b (abc: 30): chord a–c,
    # cliques abc and acd
    assert bench.tree_cells(cycle, SIZES, bench.min_fill) == 2 * 3 * 5 + 2 * 5 * 7
    rng = random.Random(0)
    options = {2 * 3 * 7 + 3 * 5 * 7, 2 * 3 * 5 + 2 * 5 * 7}   # chord b–d or a–c
    assert {bench.tree_cells(cycle, SIZES, bench.randomised(rng)) for _ in range(50)} <= options


def test_runs_times_the_trees_of_each_repetition(capsys):
    import re
    trees = []
    for runs in ("1", "2"):
        bench.main(["--orders", "2", "--runs", runs, "--", "experiment=smoke", "algo=mst",
                    "eps=1"])
        line = next(x for x in capsys.readouterr().out.splitlines() if " calibrations on " in x)
        trees.append(int(re.search(r"calibrations on (\d+) trees", line).group(1)))
    assert trees[1] == 2 * trees[0] > 0
