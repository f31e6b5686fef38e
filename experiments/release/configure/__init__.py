"""Configuration and its checks: the structured schemas registered with Hydra (``schema``), one
value rule per field (``rules``), the checks a job passes before anything is written
(``checks``), the command-line front that composes and checks every job of a sweep (``cli``),
algorithm plugins' options and rules (``plugins``), the ε a job spends at matched signal
(``signal``) and the generated configuration reference (``reference``)."""
