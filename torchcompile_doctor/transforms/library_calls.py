"""Arguments of a library call the library branches on: the one it fills in passed, the one it branches on left out."""

from __future__ import annotations

from torchcompile_doctor.model.edits import AddKeyword, Edit, ReplaceStatement
from torchcompile_doctor.transforms.line_code import call_on_line, dotted_name, drop_keyword
from torchcompile_doctor.transforms.site import Site
from torchcompile_doctor.transforms.statements import simple_statement


def pass_left_out_argument(site: Site) -> tuple[Edit, ...] | str:
    """`out = model(**inputs)` -> `out = model(**inputs, attention_mask=torch.ones_like(inputs['input_ids']))`:
    the argument the call left out, passed with the value the library fills in."""
    facts = site.facts
    statement = simple_statement(site)
    if isinstance(statement, str):
        return statement
    found = call_on_line(statement.code) if facts.none_argument and facts.none_argument_value else None
    if found is None or facts.none_argument is None or facts.none_argument_value is None:
        return "no call of the user's passes the library's arguments at this line"
    if any(k.arg == facts.none_argument for k in found[1].keywords):
        return f"the call passes `{facts.none_argument}` already"
    callee = dotted_name(found[1].func)
    return (AddKeyword(statement.node.lineno, facts.none_argument, facts.none_argument_value, callee),)


def drop_passed_argument(site: Site) -> tuple[Edit, ...] | str:
    """`out = model(ids, attention_mask=mask)` -> `out = model(ids)`: the keyword the library branches on left
    out of the user's call, so that the library's default applies."""
    statement = simple_statement(site)
    if isinstance(statement, str):
        return statement
    argument = site.facts.branched_argument
    dropped = drop_keyword(statement.code, argument) if argument else None
    if dropped is None:
        return "the call does not pass the argument the library branches on"
    return (ReplaceStatement(statement.node.lineno, dropped),)
