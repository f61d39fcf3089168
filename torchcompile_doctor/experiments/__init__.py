"""Experiments: changes that need no edit of the user's code, measured by re-running the target with them
(`--try-fixes`; `doctor fix` builds on these). The typed Experiment is a record (model/experiment.py); plan.py:
which experiments a report calls for; runs.py: running each in a child capture through the trial engine that runs
`doctor fix`'s trials (fix/trials.py; the pipeline hands it the capture), recording it (record.py: a kept
experiment's experiment.json, writer and reader) and reading kept ones back; verify.py: each run's measured effect
put on the fixes that asked for it, judged by the one verdict (fix/judge.py)."""
