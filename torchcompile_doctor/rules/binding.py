"""Rules bound to their detectors, one way (ruff's codes.rs is the model: one table, checked when it loads).

Each detector declares a Binding: its name (what a rule's `detector:` says), how many rules it takes, its
parameters (a Params class: typed fields with their defaults, the only place a default lives) and its facts (a
Facts class whose fields are the placeholders its rules may use). `bind` checks the catalogue against the
bindings and fails, with the rule named, on an unknown detector, a wrong number of rules, an unknown or
mistyped parameter, a placeholder that is no field of the facts, or a fix transform the facts cannot feed. A
detector is handed its RuleSet: its rules, each rule's typed parameters, and the matching (which of its rules
fits a break, a recompile, a text)."""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, fields
from typing import Generic, TypeVar

from torchcompile_doctor.model.experiment import placeholders as experiment_placeholders
from torchcompile_doctor.model.report import Kind
from torchcompile_doctor.rules.catalogue import BreakSignature, CatalogueError, Rule
from torchcompile_doctor.rules.facts import Facts, placeholders
from torchcompile_doctor.rules.fixes import RewriteFacts
from torchcompile_doctor.transforms.registry import TRANSFORMS


@dataclass(frozen=True)
class Params:
    """A detector's parameters (a rule's `params:`): a subclass declares each with its type and default."""


P = TypeVar("P", bound=Params, covariant=True)
Q = TypeVar("Q", bound=Params)


@dataclass(frozen=True)
class Binding(Generic[P]):
    """What a detector declares: its name, its parameters, its facts, and how many rules it takes."""

    detector: str
    params: type[P]
    facts: type[Facts]
    rules: int | None = 1  # exactly this many; None: one or more
    reads: tuple[str, ...] = ()  # other detectors whose rules it reads (a fallback: the break's own rule)


class RuleSet(Generic[P]):
    """The rules a detector reports, each with its typed parameters, and the matching of its findings to them."""

    def __init__(self, binding: Binding[P], rules: tuple[Rule, ...], params: Mapping[str, P]) -> None:
        self.binding = binding
        self.rules = rules
        self._params = params
        self._read: dict[str, RuleSet[Params]] = {}

    def __repr__(self) -> str:
        return f"RuleSet({self.binding.detector}: {', '.join(r.code for r in self.rules)})"

    @property
    def only(self) -> Rule:
        """The detector's one rule (its binding takes exactly one, checked when the catalogue was bound)."""
        if self.binding.rules != 1:
            raise TypeError(f"detector {self.binding.detector} takes several rules: match one of them")
        return self.rules[0]

    @property
    def params(self) -> P:
        """The parameters of the detector's one rule."""
        return self._params[self.only.code]

    def params_of(self, rule: Rule) -> P:
        return self._params[rule.code]

    def of(self, binding: Binding[Q]) -> RuleSet[Q]:
        """The rules of another detector this one declared it reads."""
        if binding.detector not in self.binding.reads:
            raise KeyError(f"detector {self.binding.detector} does not read {binding.detector}'s rules")
        return typing.cast(RuleSet[Q], self._read[binding.detector])

    # -- matching
    @functools.cached_property
    def _breaks_in_order(self) -> tuple[Rule, ...]:
        """Rules naming the construct around a break first, then the cause rules, the fallbacks last."""
        rules = [r for r in self.rules if r.kind == Kind.GRAPH_BREAK]
        causes = [r for r in rules if not r.match.fallback]
        return tuple(
            [r for r in causes if r.names_a_construct]
            + [r for r in causes if not r.names_a_construct]
            + [r for r in rules if r.match.fallback]
        )

    def for_break(self, signature: BreakSignature) -> Rule:
        """The graph-break rule whose `match` fits the break: rules naming the construct around it first, then
        the cause rules (whoever's code the line is), the fallbacks (a library's generic rule, torch's registry)
        last."""
        return next(r for r in self._breaks_in_order if r.matches_break(signature))

    def for_recompile(self, reason_class: str, guard: str = "") -> Rule:
        """The rule for a recompile's reason class; rules that also name guard text (stride) come first."""
        rules = [r for r in self.rules if r.kind == Kind.RECOMPILE and not r.match.fallback and not r.match.carried]
        for rule in sorted(rules, key=lambda r: not r.match.text):
            if reason_class in rule.match.reason_classes and all(p.search(guard) for p in rule.match.text):
                return rule
        return next(r for r in self.rules if r.kind == Kind.RECOMPILE and r.match.fallback)

    def for_carried(self, reason_class: str) -> Rule:
        """The carried-value rule for a recompile of a value that crossed a graph break: the first whose reason
        classes include `reason_class`, or one that names none."""
        carried = [r for r in self.rules if r.match.carried]
        return next(r for r in carried if not r.match.reason_classes or reason_class in r.match.reason_classes)

    def for_text(self, text: str) -> Rule:
        """The first rule whose `match.text` patterns all find `text`; else the fallback rule."""
        for candidate in self.rules:
            if candidate.match.text and all(p.search(text) for p in candidate.match.text):
                return candidate
        return next(r for r in self.rules if r.match.fallback)

    def for_cudagraph_reason(self, reason: str) -> Rule:
        """The CUDA-graph skip rule that names the reason; else the fallback rule."""
        named = next((r for r in self.rules if reason in r.match.cudagraph_reasons), None)
        return named or next(r for r in self.rules if r.match.fallback)


# -- parameters, typed ----------------------------------------------------------------------------------------------
def _typed(value: object, kind: object, where: str) -> object:
    """A YAML value as the parameter's declared type (int, float, bool, str, tuple[str, ...], Mapping[str, X])."""
    origin, args = typing.get_origin(kind), typing.get_args(kind)
    if kind is bool and isinstance(value, bool):
        return value
    if kind is int and isinstance(value, int) and not isinstance(value, bool):
        return value
    if kind is float and isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    if kind is str and isinstance(value, str):
        return value
    if origin is tuple and isinstance(value, list):
        return tuple(_typed(item, args[0], where) for item in value)
    if origin in (Mapping, dict) and isinstance(value, dict):
        return types.MappingProxyType({str(k): _typed(v, args[1], f"{where}.{k}") for k, v in value.items()})
    raise CatalogueError(f"{where} must be {getattr(kind, '__name__', kind)}, not {value!r}")


def bind_params(params: type[P], raw: Mapping[str, object], where: str) -> P:
    """A rule's `params:` as its detector's Params: every name known, every value of its type, every parameter
    without a default given."""
    hints = typing.get_type_hints(params)
    declared = {f.name: f for f in fields(params)}
    unknown = sorted(set(raw) - set(declared))
    if unknown:
        known = ", ".join(declared) or "none"
        raise CatalogueError(f"{where}: unknown parameter(s) {', '.join(unknown)} (its detector takes: {known})")
    for name, item in declared.items():
        if name not in raw and item.default is MISSING and item.default_factory is MISSING:
            raise CatalogueError(f"{where}: missing parameter {name}")
    values = {name: _typed(value, hints[name], f"{where}: parameter {name}") for name, value in raw.items()}
    return params(**values)


# -- the binding ---------------------------------------------------------------------------------------------------
def _texts(rule: Rule) -> list[str]:
    """Every text of the rule that facts fill, and the facts its wordings need."""
    texts = [rule.title, rule.why, rule.fix]
    for wording in rule.wordings:
        texts += [wording.title or "", wording.why, wording.fix, *(f"{{{need}}}" for need in wording.needs)]
    return texts


def _check_facts(rule: Rule, binding: Binding[Params], where: str) -> None:
    named = set().union(*(placeholders(text) for text in _texts(rule)))
    for experiment in [rule.experiment, *(w.experiment for w in rule.wordings)]:
        if experiment is not None:
            named |= experiment_placeholders(experiment)
    unknown = sorted(named - binding.facts.names())
    if unknown:
        raise CatalogueError(
            f"{where}: {', '.join(f'{{{name}}}' for name in unknown)} is no fact of detector {binding.detector} "
            f"({binding.facts.__name__})"
        )
    for name in (*rule.transforms, *rule.transforms_in_library):
        if TRANSFORMS[name].reads_facts and not issubclass(binding.facts, RewriteFacts):
            raise CatalogueError(f"{where}: transform {name} reads facts detector {binding.detector} lacks")


def _rule_count(binding: Binding[Params], found: int) -> None:
    if binding.rules is None and found == 0:
        raise CatalogueError(f"detector {binding.detector} reports no rule of the catalogue")
    if binding.rules is not None and found != binding.rules:
        raise CatalogueError(f"detector {binding.detector} takes {binding.rules} rule(s), the catalogue gives {found}")


def bind(catalogue: Sequence[Rule], bindings: Sequence[Binding[Params]]) -> dict[str, RuleSet[Params]]:
    """Each detector's RuleSet (by detector name), the catalogue checked against the bindings."""
    by_name = {binding.detector: binding for binding in bindings}
    for rule in catalogue:
        if rule.detector not in by_name:
            raise CatalogueError(f"rule {rule.code}: unknown detector {rule.detector}")
    sets: dict[str, RuleSet[Params]] = {}
    for name, binding in by_name.items():
        rules = tuple(rule for rule in catalogue if rule.detector == name)
        _rule_count(binding, len(rules))
        params = {}
        for rule in rules:
            where = f"rule {rule.code}"
            _check_facts(rule, binding, where)
            params[rule.code] = bind_params(binding.params, rule.params, where)
        sets[name] = RuleSet(binding, rules, params)
    for rule_set in sets.values():
        for other in rule_set.binding.reads:
            if other not in sets:
                raise CatalogueError(f"detector {rule_set.binding.detector} reads unknown detector {other}")
            rule_set._read[other] = sets[other]
    return sets
