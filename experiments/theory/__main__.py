"""``python -m experiments.theory experiment=theory_<paper> [key=value ...]``."""
from experiments.theory.runner import main

main()
