"""The severities a finding may have, most harmful first (the order ranking uses): a record of its own, so that
what checks a `--fail-on` flag does not load the whole report model."""

SEVERITIES = ("critical", "high", "medium", "low", "info")
