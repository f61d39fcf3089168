"""The facts a fix transform reads, as a detector's facts: RewriteFacts is both the facts its rule's templates
fill (rules/facts.py) and the SiteFacts the transforms read (transforms/site.py)."""

from __future__ import annotations

from dataclasses import dataclass

from torchcompile_doctor.rules.facts import Facts
from torchcompile_doctor.transforms.site import SiteFacts


@dataclass(frozen=True, kw_only=True)
class RewriteFacts(Facts, SiteFacts):
    """The facts of a finding whose fix rewrites the user's code (a recompile's): its templates' and its
    transforms' (the variable that changed, its dimension, the value the first cache entry was compiled for...)."""
