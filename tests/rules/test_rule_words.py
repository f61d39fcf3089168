"""No raw placeholder reaches a reader (#34): the catalogue's `{function}`, `{variable}`, ... are filled from a
finding's facts where known, and worded generically where no finding is ("the function"), in every surface that
shows a rule: `doctor rule CODE`, `doctor rules`, SARIF's rule help, and a finding's text in markdown and HTML.
Code examples are left as written (an f-string's `{loss}` is Python, not a placeholder)."""

from __future__ import annotations

import json
import re

import pytest
from support.doctor import doctor_in_process

from torchcompile_doctor.analysis.worded_findings import finding_from_rule
from torchcompile_doctor.model.report import Location, Report, Summary
from torchcompile_doctor.renderers import render
from torchcompile_doctor.rules import load_catalogue
from torchcompile_doctor.rules.facts import Facts, generic_word, worded
from torchcompile_doctor.rules.rule_page import generic_title, rule_help, rule_page, rules_listing

CATALOGUE = load_catalogue()
_PLACEHOLDER = re.compile(r"\{\w+\}")
_FENCED = re.compile(r"```python\n.*?```", re.DOTALL)  # markdown code examples
_PRE = re.compile(r"<pre\b.*?</pre>", re.DOTALL)  # the HTML page's code blocks


def _left(text: str) -> list[str]:
    """The raw placeholders in `text` outside its code examples."""
    return _PLACEHOLDER.findall(_PRE.sub("", _FENCED.sub("", text)))


def test_the_catalogue_has_placeholders_to_word():
    """The check below means something: the templates do name facts, in titles, fixes and wordings."""
    assert sum(bool(_PLACEHOLDER.search(rule.fix)) for rule in CATALOGUE) > 10
    assert sum(bool(_PLACEHOLDER.search(rule.title)) for rule in CATALOGUE) > 10


@pytest.mark.parametrize("rule", CATALOGUE, ids=lambda rule: rule.code)
def test_a_rules_help_names_no_placeholder(rule):
    for page in (rule_page(rule.code, CATALOGUE), rule_page(rule.code, CATALOGUE, with_detector=True)):
        assert not _left(page), page
    help_ = rule_help(rule.code)
    assert help_ is not None
    for text in (help_.title, help_.why, help_.fix, help_.page):
        assert not _left(text), text


def test_doctor_rules_and_doctor_rule_name_no_placeholder():
    assert not _left(rules_listing(CATALOGUE, "terminal"))
    titles = [row["title"] for row in json.loads(rules_listing(CATALOGUE, "json"))]
    assert len(titles) == len(CATALOGUE) and not any(_left(title) for title in titles)
    run = doctor_in_process("rule", "TCD202")
    assert run.returncode == 0 and "## Fix" in run.stdout and not _left(run.stdout)
    assert "the variable changes between calls" in run.stdout  # `{variable}` changes ... worded for no finding


def _unfilled_report() -> Report:
    """A finding of every rule whose detector knew no fact: the worst case of a finding's text."""
    place = Location("/home/dev/proj/train.py", 3, "step", "y = model(x)", "train.py")
    findings = tuple(
        finding_from_rule(rule, location=place if i % 2 else None, facts=Facts(), identity="step")
        for i, rule in enumerate(CATALOGUE)
    )
    return Report(
        tool_version="0.1.0",
        torch_version="2.13.0+cpu",
        target="/home/dev/proj/train.py",
        backend="eager",
        target_exit_code=0,
        target_status="ok",
        summary=Summary(graphs=1),
        findings=findings,
    )


@pytest.mark.parametrize("fmt", ["sarif", "markdown", "html", "terminal"])
def test_findings_and_rule_help_in_every_format_name_no_placeholder(fmt):
    text = render(_unfilled_report(), fmt)
    if fmt == "sarif":  # its rule descriptors hold each rule's page as markdown, examples included
        for run in json.loads(text)["runs"]:
            for descriptor in run["tool"]["driver"]["rules"]:
                texts = [descriptor[key]["text"] for key in ("shortDescription", "fullDescription", "help")]
                for text in (*texts, descriptor["help"]["markdown"]):
                    assert not _left(text), (descriptor["id"], text)
            for result in run["results"]:
                assert not _left(result["message"]["text"]), result["ruleId"]
        return
    assert not _left(text), sorted(set(_left(text)))


def test_worded_fills_known_facts_and_words_the_rest():
    facts = Facts(function="step", source="print(x)")
    assert worded("`{function}` recompiles at {where}", facts) == "`step` recompiles at that line"
    assert worded("move `{source}` out of `{function}`") == "move the line out of the function"
    assert worded("each `{function}` call") == "each function call"  # no "each the function"
    assert worded("`config.add(logging.Logger.{logger_method})`") == "`config.add(logging.Logger.<logger method>)`"
    assert worded("needs a change.{regional}") == "needs a change."
    assert generic_word("some_new_fact") == "the some new fact"
    assert generic_title("Graph break: {gb_type}") == "Graph break"
    assert generic_title("`{function}` checks {guards} guards") == "The function checks N guards"
