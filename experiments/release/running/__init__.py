"""Running and storing: one configuration's repetitions and their records (``repetitions``),
the problems they run on (``problems``), the results store with its claims (``store``,
``claims``), whole sweeps with shared problems (``sweep``), saved releases (``releases``),
what a record keeps of the machine (``machine``, ``worker_cores``), the collection of records
into one tidy table (``collect``) and two folders' records compared run by run (``compare``)."""
