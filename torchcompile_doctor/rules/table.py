"""The README's rule table, generated from the catalogue.

`python -m torchcompile_doctor.rules.table --write README.md` refreshes the table between the
markers; tests/test_catalogue.py fails when the README is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from torchcompile_doctor.rules.catalogue import Rule, load_catalogue

START, END = "<!-- rules:start -->", "<!-- rules:end -->"


def rule_table(catalogue: tuple[Rule, ...]) -> str:
    lines = ["| code | name | kind | severity | status | matches |", "| --- | --- | --- | --- | --- | --- |"]
    for rule in catalogue:
        match = rule.match
        matches = ", ".join(match.gb_ids) or ", ".join(match.reason_classes) or ", ".join(match.cudagraph_reasons)
        if rule.match.carried:
            matches = (matches + ", " if matches else "") + "a value carried across a graph break"
        if rule.match.fallback:
            matches = (matches + ", " if matches else "") + "anything else of its kind"
        lines.append(f"| {rule.code} | {rule.name} | {rule.kind} | {rule.severity} | {rule.status} | {matches} |")
    return "\n".join(lines)


def with_table(readme: str, catalogue: tuple[Rule, ...]) -> str:
    head, start, rest = readme.partition(START)
    _, end, tail = rest.partition(END)
    if not start or not end:
        raise ValueError(f"the README has no {START} ... {END} markers")
    return f"{head}{START}\n{rule_table(catalogue)}\n{END}{tail}"


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] != "--write":
        print("usage: python -m torchcompile_doctor.rules.table --write README.md", file=sys.stderr)
        return 2
    path = Path(argv[1])
    path.write_text(with_table(path.read_text(encoding="utf-8"), load_catalogue()), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
