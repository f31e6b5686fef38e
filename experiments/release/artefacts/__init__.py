"""Artefacts and launchers: the catalogue of every figure and table as sweeps (``catalogue``),
regenerating one (``reproduce``) with its second-stage runs (``stages``), the answers each
artefact gives (``answer``, ``sota``), where an artefact's time goes (``costs``), Slurm job
arrays (``slurm``) with a one-node cluster to test them on (``slurm_local``) and the small ACS
fixture in folktables' file layout (``acs_fixture``)."""
