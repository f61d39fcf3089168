"""The rule catalogue: rules as data (catalogue.yaml) with their explanations, loaded and checked by
catalogue.py; bound to the detectors that report them by binding.py (each detector's Binding: its parameters and
the facts its texts may name; its RuleSet: the matching); the fix transforms that rewrite a user's line
(fixes.py); `doctor rule CODE`'s page (rule_page.py) and the README's table (table.py)."""

from torchcompile_doctor.rules.catalogue import (
    CATALOGUE,
    CATEGORIES,
    ORIGINS,
    REASON_CLASSES,
    SECTIONS,
    BreakSignature,
    CatalogueError,
    Rule,
    load_catalogue,
    parse_catalogue,
    parse_ranking,
    ranking_params,
    rule,
)

__all__ = [
    "CATALOGUE",
    "CATEGORIES",
    "ORIGINS",
    "REASON_CLASSES",
    "SECTIONS",
    "BreakSignature",
    "CatalogueError",
    "Rule",
    "load_catalogue",
    "parse_catalogue",
    "parse_ranking",
    "ranking_params",
    "rule",
]
