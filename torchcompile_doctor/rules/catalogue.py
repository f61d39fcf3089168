"""The rule catalogue: rules are data (catalogue.yaml), loaded and validated here: each rule's code, texts,
explanation, what it matches (GB ids, gb_type text, the construct a break happened in, whose code it is,
recompile reason classes, perf-hint patterns, CUDA-graph skip reasons), its experiment and its detector's
parameters; and the catalogue's `ranking` thresholds. A rule's wording for a library's or torch's line is chosen
here too. Which detector reports a rule, and with which parameters and facts, is the binding's
(rules/binding.py), checked against the detectors' declarations."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from torchcompile_doctor.events.model import CudagraphSkipReason
from torchcompile_doctor.model.experiment import Experiment, ExperimentError, filled, parse_experiment
from torchcompile_doctor.model.report import KINDS, SEVERITIES
from torchcompile_doctor.rules.facts import Facts
from torchcompile_doctor.transforms.registry import TRANSFORMS

CATALOGUE = Path(__file__).resolve().parent / "catalogue.yaml"
_CODE = re.compile(r"^TCD[1-6]\d\d$")
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
SECTIONS = ("what_it_does", "why_is_this_bad", "example", "use_instead", "references")
CATEGORIES = (
    "print_or_logging",
    "item_or_scalar",
    "data_dependent_branch",
    "numpy",
    "unsupported_builtin_or_c_function",
    "third_party_library",
    "generator_or_iterator",
    "context_manager",
    "exception_handling",
    "tensor_to_python",
    "inplace_or_mutation",
    "custom_autograd",
    "data_dependent_operator",
    "by_design",
    "other",
)
ORIGINS = ("user", "third_party", "torch")  # whose code a break's line is (analysis/code.py decides)
REASON_CLASSES = (
    "dtype",
    "shape_or_rank",
    "int_specialization",
    "float_specialization",
    "object_id",
    "module_attribute",
    "grad_mode",
    "global_state",
    "requires_grad",
    "device",
    "dict_or_list_length",
    "type_change",
    "module_structure",
    "thread_race",
    "guarded_object_freed",
    "other",
)


class CatalogueError(ValueError):
    pass


@dataclass(frozen=True)
class Match:
    """What a rule's findings are matched on."""

    gb_ids: tuple[str, ...] = ()
    gb_types: tuple[re.Pattern[str], ...] = ()
    text: tuple[re.Pattern[str], ...] = ()  # all must match the raw torch text
    reason_classes: tuple[str, ...] = ()
    origins: tuple[str, ...] = ()  # only breaks in this code (`in_library: true` in the YAML: third_party)
    owners: tuple[re.Pattern[str], ...] = ()  # the file of the frame that owns the break matches one
    within: tuple[re.Pattern[str], ...] = ()  # the construct the break happened inside (torch's text): enough alone
    skipped_origins: tuple[str, ...] = ()  # a call to a function Dynamo skips, defined in this code
    carried: bool = False  # a recompile of a value carried across a graph break (a resume function's guard)
    cudagraph_reasons: tuple[str, ...] = ()  # why torch skipped CUDA graphs (events.model.CudagraphSkipReason)
    fallback: bool = False  # matches anything of its kind; used last


@dataclass(frozen=True)
class BreakSignature:
    """What a break rule is matched on: torch's words for the break, and whose code it happened in."""

    gb_id: str | None
    gb_type: str
    text: str  # torch's message
    origin: str = "user"
    owner_file: str = ""  # the file of the frame that owns the break (for a stdlib line: its caller)
    skipped_origin: str | None = None  # for a call Dynamo skips: whose code the skipped function is


@dataclass(frozen=True)
class Wording:
    """Another way a rule speaks, for breaks in `origins` code (by default a package's or torch's line, which
    the user cannot edit): `needs` names the facts it uses; the first wording that fits is used."""

    why: str
    fix: str
    needs: tuple[str, ...] = ()
    origins: tuple[str, ...] = ("third_party", "torch")
    title: str | None = None  # a title of its own (None: the rule's)
    experiment: Experiment | None = None
    rewrite: bool = True  # keep the rule's rewrite of the user's line (on the user's own line only)
    transforms: tuple[str, ...] = ()  # rewrites of its own instead (the situation needs another change of the line)


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    kind: str
    severity: str
    status: str
    title: str
    why: str
    fix: str
    match: Match
    category: str | None = None
    reason_class: str | None = None
    # the transforms its findings may try (transforms/registry.py), the report's rewrite the first that builds
    transforms: tuple[str, ...] = ()
    # those tried at the user's line that calls into a package's or torch's code where the break is (a config
    # read the user's line makes through pathlib and json: moved to import time)
    transforms_in_library: tuple[str, ...] = ()
    docs_url: str | None = None
    explanation: tuple[tuple[str, object], ...] = ()
    experiment: Experiment | None = None  # a change --try-fixes measures (model/experiment.py)
    detector: str = ""  # the detector that reports it (its binding: rules/binding.py)
    # that detector's parameters for this rule, as the catalogue gives them (the detector reads them typed)
    params: Mapping[str, object] = field(default_factory=dict)
    wordings: tuple[Wording, ...] = ()  # how it speaks about a package's or torch's line, first usable wins

    def _fits_whose_code(self, b: BreakSignature) -> bool:
        """The break is in code this rule speaks about (origins, owning file, the skipped function's code)."""
        m = self.match
        return (
            (not m.origins or b.origin in m.origins)
            and (not m.owners or any(p.search(b.owner_file) for p in m.owners))
            and (not m.skipped_origins or b.skipped_origin in m.skipped_origins)
        )

    def matches_break(self, signature: BreakSignature) -> bool:
        m, b = self.match, signature
        if not self._fits_whose_code(b):
            return False
        if m.fallback or any(p.search(b.text) for p in m.within):
            return True
        if not m.gb_ids and not m.gb_types:  # a rule on whose code it is (`owners`) fits any break there
            return bool(m.owners or m.skipped_origins) and all(p.search(b.text) for p in m.text)
        hit = (b.gb_id is not None and b.gb_id in m.gb_ids) or any(p.search(b.gb_type) for p in m.gb_types)
        return hit and all(p.search(b.text) for p in m.text)

    @property
    def names_a_construct(self) -> bool:
        """Matched on the construct around the break (a custom autograd.Function, torch's own deliberate
        break, a skipped library call) rather than on the call that failed: such rules are tried first."""
        m = self.match
        return bool(m.within or m.owners or m.skipped_origins)

    def worded_for(self, origin: str, facts: Facts) -> Rule:
        """The rule as it speaks about this break: the first wording for its origin whose facts are known
        replaces why/fix; on a line that is not the user's no rewrite of the user's line applies; experiments
        get their facts (one whose facts are unknown is dropped)."""
        rule = self if origin == "user" else replace(self, transforms=self.transforms_in_library)
        fits = (w for w in self.wordings if origin in w.origins and all(facts.get(need) for need in w.needs))
        wording = next(fits, None)
        if wording is not None:
            experiment = wording.experiment if wording.experiment is not None else self.experiment
            transforms = wording.transforms or (rule.transforms if wording.rewrite else ())
            title = wording.title or rule.title
            rule = replace(
                rule, title=title, why=wording.why, fix=wording.fix, experiment=experiment, transforms=transforms
            )
        if rule.experiment is not None:
            rule = replace(rule, experiment=filled(rule.experiment, facts.get))
        return rule


def _tuple(value: object, where: str) -> tuple[Any, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise CatalogueError(f"{where}: expected a list")
    return tuple(value)


ENTRY_KEYS = frozenset(
    ("code", "name", "kind", "severity", "status", "detector", "category", "reason_class", "match", "params")
    + ("title", "why", "fix", "wordings", "transform", "transform_in_library", "docs_url", "experiment", "explanation")
)


def _check_fields(entry: dict[str, Any], where: str) -> None:
    unknown = sorted(set(entry) - ENTRY_KEYS)
    if unknown:
        raise CatalogueError(f"{where}: unknown key(s) {', '.join(unknown)}")
    for key in ("name", "kind", "severity", "status", "title", "why", "fix"):
        if not isinstance(entry.get(key), str) or not entry[key].strip():
            raise CatalogueError(f"{where}: missing {key}")
    if not _NAME.match(entry["name"]):
        raise CatalogueError(f"{where}: name must be kebab-case")
    if entry["kind"] not in KINDS:
        raise CatalogueError(f"{where}: unknown kind {entry['kind']}")
    if entry["severity"] not in SEVERITIES:
        raise CatalogueError(f"{where}: unknown severity {entry['severity']}")
    if entry["status"] not in ("stable", "preview"):
        raise CatalogueError(f"{where}: status must be stable or preview")
    if entry.get("category") is not None and entry["category"] not in CATEGORIES:
        raise CatalogueError(f"{where}: unknown category {entry['category']}")


def _match(entry: dict[str, Any], where: str) -> Match:
    raw = entry.get("match") or {}
    if not isinstance(raw, dict):
        raise CatalogueError(f"{where}: match must be a mapping")
    reason_classes = _tuple(raw.get("reason_classes"), where)
    for reason_class in reason_classes + ((entry["reason_class"],) if entry.get("reason_class") else ()):
        if reason_class not in REASON_CLASSES:
            raise CatalogueError(f"{where}: unknown reason class {reason_class}")
    origins = _tuple(raw.get("origins"), where) + (("third_party",) if raw.get("in_library") else ())
    skipped_origins = _tuple(raw.get("skipped_origins"), where)
    for origin in origins + skipped_origins:
        if origin not in ORIGINS:
            raise CatalogueError(f"{where}: unknown origin {origin}")
    cudagraph_reasons = _tuple(raw.get("cudagraph_reasons"), where)
    for reason in cudagraph_reasons:
        if reason not in set(CudagraphSkipReason):
            raise CatalogueError(f"{where}: unknown CUDA-graph skip reason {reason}")
    try:
        return Match(
            gb_ids=_tuple(raw.get("gb_ids"), where),
            gb_types=tuple(re.compile(p) for p in _tuple(raw.get("gb_types"), where)),
            text=tuple(re.compile(p) for p in _tuple(raw.get("text"), where)),
            reason_classes=reason_classes,
            origins=origins,
            owners=tuple(re.compile(p) for p in _tuple(raw.get("owners"), where)),
            within=tuple(re.compile(p) for p in _tuple(raw.get("within"), where)),
            skipped_origins=skipped_origins,
            fallback=bool(raw.get("fallback", False)),
            carried=bool(raw.get("carried", False)),
            cudagraph_reasons=cudagraph_reasons,
        )
    except re.error as error:
        raise CatalogueError(f"{where}: bad pattern: {error}") from None


def _experiment(raw: object, where: str) -> Experiment | None:
    if raw is None:
        return None
    try:
        return parse_experiment(raw, where)
    except ExperimentError as error:
        raise CatalogueError(str(error)) from None


_WORDING_KEYS = frozenset({"title", "why", "fix", "needs", "origins", "experiment", "rewrite", "transform"})


def _wordings(entry: dict[str, Any], where: str) -> tuple[Wording, ...]:
    wordings = []
    for raw in _tuple(entry.get("wordings"), where):
        if not isinstance(raw, dict) or set(raw) - _WORDING_KEYS:
            raise CatalogueError(f"{where}: a wording maps why, fix and optional {', '.join(sorted(_WORDING_KEYS))}")
        if not all(isinstance(raw.get(key), str) and raw[key].strip() for key in ("why", "fix")):
            raise CatalogueError(f"{where}: a wording needs why and fix")
        origins = _tuple(raw.get("origins"), where) or Wording.origins
        if set(origins) - set(ORIGINS):
            raise CatalogueError(f"{where}: unknown origin in a wording: {origins}")
        wordings.append(
            Wording(
                why=" ".join(raw["why"].split()),
                fix=" ".join(raw["fix"].split()),
                needs=_tuple(raw.get("needs"), where),
                origins=origins,
                experiment=_experiment(raw.get("experiment"), where),
                rewrite=bool(raw.get("rewrite", True)),
                transforms=_names(raw.get("transform"), where),
                title=" ".join(raw["title"].split()) if raw.get("title") else None,
            )
        )
    return tuple(wordings)


def _names(value: object, where: str) -> tuple[str, ...]:
    """`transform: NAME` or `transform: [NAME, ...]`: the transforms a rule's findings may try, in order."""
    names = (value,) if isinstance(value, str) else _tuple(value, where)
    if not all(isinstance(name, str) for name in names):
        raise CatalogueError(f"{where}: transform must be a name or a list of names")
    return names


def _rule(entry: object, index: int) -> Rule:
    if not isinstance(entry, dict):
        raise CatalogueError(f"entry {index}: expected a mapping")
    code = entry.get("code")
    where = f"rule {code or index}"
    if not isinstance(code, str) or not _CODE.match(code):
        raise CatalogueError(f"{where}: code must look like TCD101")
    _check_fields(entry, where)
    match = _match(entry, where)
    experiment = _experiment(entry.get("experiment"), where)
    detector, params = entry.get("detector"), entry.get("params") or {}
    if not isinstance(detector, str) or not detector.strip():
        raise CatalogueError(f"{where}: missing detector")
    if not isinstance(params, dict) or not all(isinstance(key, str) for key in params):
        raise CatalogueError(f"{where}: params must map names to values")
    explanation = entry.get("explanation") or {}
    if not isinstance(explanation, dict) or set(explanation) - set(SECTIONS):
        raise CatalogueError(f"{where}: explanation sections must be among {', '.join(SECTIONS)}")
    return Rule(
        code=code,
        name=entry["name"],
        kind=entry["kind"],
        severity=entry["severity"],
        status=entry["status"],
        title=entry["title"].strip(),
        why=" ".join(entry["why"].split()),
        fix=" ".join(entry["fix"].split()),
        match=match,
        category=entry.get("category"),
        reason_class=entry.get("reason_class"),
        transforms=_names(entry.get("transform"), where),
        transforms_in_library=_names(entry.get("transform_in_library"), where),
        docs_url=entry.get("docs_url"),
        explanation=tuple((s, explanation[s]) for s in SECTIONS if s in explanation),
        experiment=experiment,
        detector=detector,
        params=params,
        wordings=_wordings(entry, where),
    )


def _safe_load(text: str) -> object:
    """`yaml.safe_load`, through libyaml's C parser where PyYAML has it (the same safe constructor, a tenth of
    the time: the catalogue is read on every report)."""
    if not yaml.__with_libyaml__:
        return yaml.safe_load(text)
    loader = yaml.CSafeLoader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


@lru_cache(maxsize=1)
def _catalogue_document() -> object:
    """The catalogue file, parsed once for its rules and its ranking section."""
    return _safe_load(CATALOGUE.read_text(encoding="utf-8"))


def parse_catalogue(text: str) -> tuple[Rule, ...]:
    return _rules_of(_safe_load(text))


def _rules_of(data: object) -> tuple[Rule, ...]:
    if not isinstance(data, dict) or not isinstance(data.get("rules"), list):
        raise CatalogueError("the catalogue must be a mapping with a `rules` list")
    rules = tuple(_rule(entry, i) for i, entry in enumerate(data["rules"]))
    seen: set[str] = set()
    for rule in rules:
        for key in (rule.code, rule.name):
            if key in seen:
                raise CatalogueError(f"duplicate rule code or name: {key}")
            seen.add(key)
    for rule in rules:
        named = (*rule.transforms, *rule.transforms_in_library, *(t for w in rule.wordings for t in w.transforms))
        for transform in named:
            if transform not in TRANSFORMS:
                raise CatalogueError(f"rule {rule.code}: unknown transform {transform}")
    return rules


@lru_cache(maxsize=1)
def load_catalogue() -> tuple[Rule, ...]:
    return _rules_of(_catalogue_document())


RANKING_KEYS = ("high_share", "medium_share", "high_eager_lines", "medium_eager_lines")


def parse_ranking(text: str) -> dict[str, float]:
    """The catalogue's `ranking` thresholds (analysis/ranking.py): the share of the run's compile time a finding
    must account for to be `high` or `medium`, and the source lines a fallback must make run eagerly."""
    return _ranking_of(_safe_load(text))


def _ranking_of(data: object) -> dict[str, float]:
    ranking = data.get("ranking") if isinstance(data, dict) else None
    if not isinstance(ranking, dict) or set(ranking) != set(RANKING_KEYS):
        raise CatalogueError(f"the catalogue's `ranking` must set exactly {', '.join(RANKING_KEYS)}")
    values = {key: ranking[key] for key in RANKING_KEYS}
    if not all(isinstance(v, (int, float)) and v >= 0 for v in values.values()):
        raise CatalogueError("the catalogue's `ranking` thresholds must be numbers >= 0")
    if values["high_share"] > 1 or values["medium_share"] > 1:
        raise CatalogueError("the catalogue's `ranking` shares must be between 0 and 1")
    if values["medium_share"] > values["high_share"] or values["medium_eager_lines"] > values["high_eager_lines"]:
        raise CatalogueError("the catalogue's `ranking`: a medium threshold must not exceed the high one")
    return {key: float(v) for key, v in values.items()}


@lru_cache(maxsize=1)
def ranking_params() -> dict[str, float]:
    return _ranking_of(_catalogue_document())


def rule(code: str) -> Rule:
    """The rule with this code (KeyError for a code the catalogue does not have)."""
    return rule_by_code()[code]


@lru_cache(maxsize=1)
def rule_by_code() -> dict[str, Rule]:
    """The catalogue's rules by code."""
    return {entry.code: entry for entry in load_catalogue()}
