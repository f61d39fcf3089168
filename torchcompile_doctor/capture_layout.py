"""The names inside a capture folder (`--artifacts DIR`), for its writers and readers alike.

So far it names what readers must tell apart: the experiments `--try-fixes` keeps beside the capture are captures
of their own (each re-read on its own), never part of the run they measured."""

EXPERIMENTS = "experiments"  # DIR/experiments/N/: one kept experiment (its capture and its record)
EXPERIMENT_RECORD = "experiment.json"  # in each kept experiment's folder: which fix it measured
