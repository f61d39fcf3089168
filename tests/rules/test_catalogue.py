"""The rule catalogue: validated, complete, explained, and in sync with the README."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from support.doctor import doctor_in_process
from support.paths import REPO

from torchcompile_doctor.analysis.detectors import rule_sets
from torchcompile_doctor.analysis.graph_break_registry import load_registry
from torchcompile_doctor.rules import (
    CATALOGUE,
    SECTIONS,
    CatalogueError,
    load_catalogue,
    parse_catalogue,
)
from torchcompile_doctor.rules.catalogue import BreakSignature
from torchcompile_doctor.rules.rule_page import rule_page
from torchcompile_doctor.rules.table import with_table

RULES = load_catalogue()


def test_catalogue_is_valid_and_large_enough():
    codes = [r.code for r in RULES]
    assert len(codes) == len(set(codes)) >= 30
    for rule in RULES:
        sections = dict(rule.explanation)
        assert set(sections) == set(SECTIONS), rule.code
        assert all(str(body).strip() for name, body in sections.items() if name != "references") or rule.code
        assert str(sections["example"]).strip() and str(sections["use_instead"]).strip(), rule.code


def test_rule_text_references_the_page_of_each_gb_id():
    for rule in RULES:
        text = rule_page(rule.code, RULES)
        for gb_id in rule.match.gb_ids:
            assert f"https://meta-pytorch.github.io/compile-graph-break-site/gb/{gb_id.lower()}.html" in text
        if rule.kind in ("graph_break", "recompile"):
            assert "http" in text.split("## References")[1], rule.code


def test_gb_ids_in_rules_exist_in_the_registry():
    registry = load_registry()
    for rule in RULES:
        for gb_id in rule.match.gb_ids:
            assert registry.get(gb_id) is not None, (rule.code, gb_id)


def test_every_registry_break_gets_a_rule():
    registry = load_registry()
    assert len(registry) > 400
    for entry in [registry.get(f"GB{n:04d}") for n in range(0, 400)]:
        if entry is not None:
            rule = rule_sets()["graph_break"].for_break(BreakSignature(entry.gb_id, entry.gb_type, entry.explanation))
            assert rule.kind == "graph_break"


def test_every_reason_class_has_a_recompile_rule():
    from torchcompile_doctor.rules import REASON_CLASSES

    for reason_class in REASON_CLASSES:
        rule = rule_sets()["recompile"].for_recompile(reason_class)
        assert rule.reason_class == reason_class or (reason_class == "other" and rule.match.fallback)


@pytest.mark.parametrize(
    "text, message",
    [
        ("rules: [{code: X1}]", "code must look like TCD101"),
        ("rules: 3", "a `rules` list"),
        (
            "rules:\n- {code: TCD101, name: Bad_Name, kind: graph_break, severity: high, status: stable, "
            "title: t, why: w, fix: f}",
            "kebab-case",
        ),
        (
            "rules:\n- {code: TCD101, name: a, kind: nope, severity: high, status: stable, title: t, why: w, fix: f}",
            "unknown kind",
        ),
        (
            "rules:\n- {code: TCD101, name: a, kind: recompile, severity: high, status: stable, title: t, why: w, "
            "fix: f, match: {reason_classes: [weather]}}",
            "unknown reason class",
        ),
        ("rules:\n- !!python/object/apply:os.system [echo hi]", "could not determine a constructor"),
    ],
)
def test_catalogue_validation_errors(text, message):
    with pytest.raises(Exception) as error:
        parse_catalogue(text)
    assert message in str(error.value)
    assert isinstance(error.value, (CatalogueError, Exception))


def test_readme_rule_table_is_current():
    readme = (REPO / "README.md").read_text()
    assert with_table(readme, RULES) == readme, "run: python -m torchcompile_doctor.rules.table --write README.md"


def test_catalogue_is_loaded_with_safe_load():
    source = (REPO / "torchcompile_doctor" / "rules" / "catalogue.py").read_text()
    assert "yaml.safe_load" in source and "yaml.load(" not in source
    assert not re.search(r"yaml\.(Full|Unsafe|C)?Loader\b|CFullLoader|CUnsafeLoader", source)  # only the safe ones
    assert CATALOGUE.is_file()
    with pytest.raises(yaml.YAMLError, match="python/object"):  # libyaml's safe loader constructs nothing either
        parse_catalogue("rules: !!python/object/apply:os.getcwd []")


def test_rules_command_table_and_json():
    table = doctor_in_process("rules")
    assert table.returncode == 0 and "TCD104  tensor-item" in table.stdout
    rows = json.loads(doctor_in_process("rules", "--format", "json").stdout)
    assert {r["code"] for r in rows} == {r.code for r in RULES}


@pytest.mark.parametrize(
    "code, heading",
    [
        ("TCD104", "# tensor-item (TCD104)"),
        ("GB0124", "# tensor-item (TCD104)"),
        ("gb0059", "# print-in-compiled-code (TCD101)"),
        ("GB0002", "# graph-break (TCD199)"),
    ],
)
def test_rule_command_explains_by_code_or_gb_id(code, heading):
    run = doctor_in_process("rule", code)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith(heading)
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## References"):
        assert section in run.stdout
