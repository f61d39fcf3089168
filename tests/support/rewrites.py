"""A transform built on one line of code alone, as the report does where only the line is known: its hunk."""

from __future__ import annotations

import textwrap

from torchcompile_doctor.transforms.engine import Built
from torchcompile_doctor.transforms.registry import build_named
from torchcompile_doctor.transforms.site import Site, SiteFacts


def rewritten(transform: str, line: str, facts: SiteFacts | None = None) -> tuple[str, str] | None:
    """(before, after) the report prints for `line` (None: the transform gives no candidate there)."""
    site = Site("", textwrap.dedent(line).strip() + "\n", 1, facts or SiteFacts())
    made = build_named(transform, site)
    return (made.hunk.before, made.hunk.after) if isinstance(made, Built) else None
