"""`doctor rule CODE`: a rule's full text (ruff style), also found by GB id."""

from __future__ import annotations

import json
import re
from functools import cache

from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.model.report import Kind, RuleHelp
from torchcompile_doctor.rules.catalogue import Rule, ranking_params, rule_by_code
from torchcompile_doctor.rules.facts import worded

# a title's trailing `: {fact}` names one finding's subject; a rule's own title leaves it out
_TRAILING_PLACEHOLDER = re.compile(r":\s*`?\{\w+\}`?\s*$")

GB_SITE = "https://meta-pytorch.github.io/compile-graph-break-site/"
GB_PAGE = GB_SITE + "gb/{}.html"


def gb_page(gb_id: str | None) -> str:
    """Torch's page for a graph-break id, or the site's index when the id is unknown."""
    return GB_PAGE.format(gb_id.lower()) if gb_id else GB_SITE


SECTION_TITLES = {
    "what_it_does": "What it does",
    "why_is_this_bad": "Why is this bad?",
    "example": "Example",
    "use_instead": "Use instead",
    "references": "References",
}


def find_rule(code: str, catalogue: tuple[Rule, ...]) -> Rule:
    for rule in catalogue:
        if code in (rule.code, rule.name.upper()):
            return rule
    if code.startswith("GB"):
        by_id = [r for r in catalogue if code in r.match.gb_ids]
        if by_id:
            return by_id[0]
        return next(r for r in catalogue if r.kind == Kind.GRAPH_BREAK and r.match.fallback and not r.match.origins)
    raise DoctorError(f"no rule {code}; `doctor rules` lists them")


def _param(value: object) -> object:
    """A parameter as the page shows it: texts per case (a mapping) by their case names only."""
    return ", ".join(map(str, value)) if isinstance(value, dict) else value


def detector_line(rule: Rule) -> str:
    """How the doctor finds the rule: its detector, that detector's parameters, how its severity is set."""
    line = f"Detector: {rule.detector}"
    if rule.params:
        line += " (" + ", ".join(f"{name}: {_param(value)}" for name, value in rule.params.items()) + ")"
    if Kind(rule.kind).is_costed and rule.severity != "info":
        shares = ranking_params()
        line += (
            f" · severity by measured cost: high at {shares['high_share']:.0%} of the run's compile time or more, "
            f"medium at {shares['medium_share']:.0%}, low below"
        )
    return line


def generic_title(title: str) -> str:
    """A rule's title as its help shows it, with no finding to fill it: `{function}` -> "the function"."""
    text = worded(_TRAILING_PLACEHOLDER.sub("", title))
    return text[:1].upper() + text[1:]


def rules_listing(catalogue: tuple[Rule, ...], fmt: str) -> str:
    """`doctor rules`: one line per rule (terminal), or their code, name, kind, severity, status and title (json);
    titles as a rule's help words them."""
    if fmt == "json":
        fields = ("code", "name", "kind", "severity", "status")
        rows = [{**{key: getattr(r, key) for key in fields}, "title": generic_title(r.title)} for r in catalogue]
        return json.dumps(rows, indent=2)
    if fmt != "terminal":
        raise DoctorError(f"unknown --format {fmt!r} for rules (terminal or json)")
    return "\n".join(f"{r.code}  {r.name:32} {r.severity:9} {r.status:8} {generic_title(r.title)}" for r in catalogue)


def rule_page(code: str, catalogue: tuple[Rule, ...], *, with_detector: bool = False) -> str:
    """The rule's page. `with_detector` adds how the doctor finds it (`doctor rule`; SARIF help leaves it out)."""
    rule = find_rule(code, catalogue)
    lines = [
        f"# {rule.name} ({rule.code})",
        "",
        f"Kind: {rule.kind} · severity: {rule.severity} · status: {rule.status}",
    ]
    if with_detector:
        lines.append(detector_line(rule))
    if rule.match.gb_ids:
        lines.append(f"Graph-break ids: {', '.join(rule.match.gb_ids)}")
    if rule.category or rule.reason_class:
        lines.append(f"Class: {rule.category or rule.reason_class}")
    for section, body in rule.explanation:
        lines += ["", f"## {SECTION_TITLES[section]}"]
        if section == "references":  # every GB id's page, after the rule's own references
            pages = [GB_PAGE.format(gb_id.lower()) for gb_id in rule.match.gb_ids]
            listed = list(body) if isinstance(body, list) else []
            body = listed + [p for p in pages if p not in listed]
        if isinstance(body, list):
            lines += [f"- {item}" for item in body]
        elif section in ("example", "use_instead"):
            lines += ["```python", str(body).rstrip(), "```"]
        else:
            lines.append(str(body).strip())
    lines += ["", "## Fix", worded(rule.fix)]
    for wording in rule.wordings:  # how the rule speaks about a line of another origin (a library's, torch's)
        needs = f", when {', '.join(wording.needs)} is known" if wording.needs else ""
        lines += ["", f"## Fix for {' or '.join(wording.origins)} code{needs}", worded(wording.fix)]
    return "\n".join(lines)


@cache
def rule_help(code: str) -> RuleHelp | None:
    """What the catalogue says about the rule `code` (None: no such rule), made once per rule and shared by its
    findings."""
    rule = rule_by_code().get(code)
    if rule is None:
        return None
    sections = dict(rule.explanation)
    references = sections.get("references")
    what, why = sections.get("what_it_does"), sections.get("why_is_this_bad")
    return RuleHelp(
        name=rule.name,
        kind=rule.kind,
        severity=rule.severity,
        title=generic_title(rule.title),
        why=worded(rule.why),
        fix=worded(rule.fix),
        what_it_does=str(what) if what else None,
        why_is_this_bad=str(why) if why else None,
        references=tuple(str(r) for r in references) if isinstance(references, list) else (),
        docs_url=rule.docs_url,
        gb_pages=tuple(GB_PAGE.format(gb_id.lower()) for gb_id in rule.match.gb_ids),
        page=rule_page(code, (rule,)),
    )
