"""The rules multirank.py reports over the findings of a job's ranks, after the detectors: a finding on some
ranks only (TCD501-503, one rule per kind of finding, its `of_kinds`), graph counts or compile ids that differ
between ranks (TCD504), a rank whose log stops before the run's end (TCD505). Their bindings and facts."""

from __future__ import annotations

from dataclasses import dataclass

from torchcompile_doctor.rules.binding import Binding, Params
from torchcompile_doctor.rules.facts import Facts


@dataclass(frozen=True, kw_only=True)
class DivergenceFacts(Facts):
    present: str | None = None  # the ranks with the finding
    missing: str | None = None  # the ranks without it
    what: str | None = None  # the finding in a few words
    code: str | None = None  # its rule
    early: str | None = None  # ranks that ended early may not have got this far


@dataclass(frozen=True)
class DivergenceParams(Params):
    of_kinds: tuple[str, ...]  # the kinds of finding (breaks, recompiles, failures) the rule speaks of


@dataclass(frozen=True, kw_only=True)
class GraphDivergenceFacts(Facts):
    detail: str | None = None  # each group of ranks: graphs, compiles, their ids
    counts: str | None = None  # the title's figures
    parted: str | None = None  # the first compile where the ranks part


@dataclass(frozen=True, kw_only=True)
class EndsEarlyFacts(Facts):
    rank: int | None = None
    how: str | None = None
    last_seen: str | None = None


RANK_DIVERGENCE = Binding("rank_divergence", DivergenceParams, DivergenceFacts, rules=None)
RANK_GRAPH_DIVERGENCE = Binding("rank_graph_divergence", Params, GraphDivergenceFacts)
RANK_LOG_ENDS_EARLY = Binding("rank_log_ends_early", Params, EndsEarlyFacts)
