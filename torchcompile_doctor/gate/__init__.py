"""The CI gate (`doctor check`, `expect`): verdict.py decides which findings fail the criteria (select/ignore
first), baseline.py reads and writes the baseline file of findings a project accepts for now. Pure but for the
baseline file, which only the pipeline asks to be read or written."""
