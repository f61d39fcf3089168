"""What the user's call line passes for a compiled function's parameter: the fix of an input (mark a dimension
dynamic, pass a tensor, cast) acts on what the user holds at that line, which is not the parameter's name
(`a2c_loss(torch.stack(log_probs), torch.stack(values))` passes a new tensor for `values`, where the user's
`values` is a list; `attend(q, k)` passes `k` for `key`). The line is parsed (ast), never run."""

from __future__ import annotations

import ast
import re

from torchcompile_doctor.transforms.line_code import call_on_line, code_only, is_torch_function


def parameters_of(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """The parameters a call binds by position, in order, without a method's `self` (the call's object)."""
    args = function.args
    positional = [a.arg for a in (*args.posonlyargs, *args.args)]
    return positional[1:] if positional[:1] in (["self"], ["cls"]) else positional


def passed_for(
    call_line: str, function: ast.FunctionDef | ast.AsyncFunctionDef, variable: str, by_name_only: bool = False
) -> str | None:
    """What the line passes where the compiled function has `variable` (`values`, `batch.x`): the argument's
    text with the rest of the variable after it (`torch.stack(values)`, `data.x`). `by_name_only`: only a call
    of the function by its own name counts (a function the line does not call directly)."""
    match = re.match(r"[A-Za-z_]\w*", variable)
    if match is None:
        return None
    passed = argument_passed(call_line, function.name, parameters_of(function), match[0], by_name_only)
    return f"{passed}{variable[match.end() :]}" if passed is not None else None


def argument_passed(
    call_line: str, callee: str, parameters: list[str], parameter: str, by_name_only: bool = False
) -> str | None:
    """The source text the line passes for `parameter` of the compiled function named `callee` (`self` already
    left out of `parameters` for a method), or None when the line cannot say (no such call on one line, or the
    argument hides in `*args`). A `**inputs` that must hold it gives `inputs['parameter']`."""
    code = code_only(call_line).strip()
    if not code:
        return None
    try:
        tree = ast.parse(code)
    except SyntaxError:  # a line of a call that spans several lines
        return None
    for call in _candidate_calls(tree, callee, parameters, by_name_only):
        passed = _bound(call, code, parameters, parameter)
        if passed is not None:
            return passed
    return None


def _candidate_calls(tree: ast.AST, callee: str, parameters: list[str], by_name_only: bool) -> list[ast.Call]:
    """The calls of `callee` on the line, outermost first; where none is called by that name (a module called
    by its variable, a compiled function kept under another name), the calls whose arguments fit."""
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    named = [call for call in calls if _called_name(call.func) == callee]
    if named or by_name_only:
        return named
    return [call for call in calls if _fits(call, parameters) and not is_torch_function(call.func)]


def _called_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _fits(call: ast.Call, parameters: list[str]) -> bool:
    positional = [a for a in call.args if not isinstance(a, ast.Starred)]
    named = {k.arg for k in call.keywords if k.arg is not None}
    return len(positional) <= len(parameters) and named <= set(parameters) and bool(call.args or call.keywords)


def _bound(call: ast.Call, code: str, parameters: list[str], parameter: str) -> str | None:
    for keyword in call.keywords:
        if keyword.arg == parameter:
            return ast.get_source_segment(code, keyword.value)
    if parameter in parameters:
        position = parameters.index(parameter)
        for index, argument in enumerate(call.args):
            if isinstance(argument, ast.Starred):
                return None  # `*args`: which element is not known from the line
            if index == position:
                return ast.get_source_segment(code, argument)
    spread = [k.value for k in call.keywords if k.arg is None]
    if len(spread) == 1 and isinstance(spread[0], ast.Name):
        return f"{spread[0].id}['{parameter}']"
    return None


_MASK = "attention_mask"  # a Hugging Face model fills a left-out mask with ones over its inputs' ids


def left_out_value(call_line: str, argument: str) -> str | None:
    """What the user's call can pass for an `attention_mask` it left out, meaning what the library fills in
    when it runs eagerly: all ones shaped like the ids the call passes (`torch.ones_like(inputs['input_ids'])`
    for `model(**inputs)`); `decoder_attention_mask` goes with `decoder_input_ids`. None for any other argument
    (what means "left out" is the library's to say) or a line that does not show the ids."""
    if not argument.endswith(_MASK):
        return None
    ids = argument[: -len(_MASK)] + "input_ids"
    found = call_on_line(call_line)
    if found is None:
        return None
    code, call = found
    for keyword in call.keywords:
        if keyword.arg == ids:
            return f"torch.ones_like({ast.get_source_segment(code, keyword.value)})"
    spread = [k.value for k in call.keywords if k.arg is None]
    if len(spread) == 1 and isinstance(spread[0], ast.Name):
        return f"torch.ones_like({spread[0].id}['{ids}'])"
    if ids == "input_ids" and call.args and not isinstance(call.args[0], ast.Starred):
        return f"torch.ones_like({ast.get_source_segment(code, call.args[0])})"
    return None


def passed_keywords(call_line: str) -> set[str]:
    """The keywords the line's call into compiled code passes by name (`model(ids, attention_mask=m)`)."""
    found = call_on_line(call_line)
    return {k.arg for k in found[1].keywords if k.arg is not None} if found is not None else set()
