"""Progress lines: job i/N, elapsed, time left, and the closing line of a sweep."""
from experiments.progress import Progress, clock, sweep_summary


def test_clock_reads_like_a_person():
    assert clock(4.24) == "4.2 s" and clock(42) == "42 s"
    assert clock(185) == "3m05s" and clock(3720) == "1h02m"


def test_progress_counts_units_and_estimates_the_time_left():
    now = iter([0.0, 10.0, 30.0, 40.0]).__next__
    progress = Progress(total=4, unit="job", now=now)
    progress.start = now()
    assert progress.step("algo=mwem") == "job 1/4 done (algo=mwem); 10 s elapsed, about 30 s left"
    assert progress.step(units=2) == "job 2-3/4 done; 30 s elapsed, about 10 s left"
    assert progress.step() == "job 4/4 done; 40 s elapsed"


def test_sweep_summary_is_one_line():
    line = sweep_summary(new=40, reused=20, missing=0, wall=63, where=["runs"])
    assert line == ("sweep done: 40 new record(s), 20 reused, 0 missing (failed or held by "
                    "another process), wall 1m03s; records in runs")
