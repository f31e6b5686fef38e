"""Artefacts and launchers: the catalogue of every figure and table as sweeps (``catalogue``),
regenerating one (``reproduce``) with its second-stage runs (``stages``), the answers each
artefact gives (``answer``, ``sota``), Slurm job arrays (``slurm``) and the small ACS fixture
in folktables' file layout (``acs_fixture``)."""
