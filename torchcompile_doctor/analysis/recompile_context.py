"""What a recompile's guard text alone does not say, read from the rest of the capture: the value the new
cache entry was compiled for (its guard tree), which way grad mode went and who switched it, whether the
entries come from different call sites or layers within one call, a compiled function reached through a
package's call (transformers' `generate()`) and the changes that come from that package calling it from
different lines, a KV cache re-created with a new length, and the session (`torch._dynamo.reset()`) a
finding belongs to."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import replace

from torchcompile_doctor.analysis.code import THIRD_PARTY, called_name
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.recompile_causes import DYNAMIC_FROM_THEN_ON, Cause
from torchcompile_doctor.events.guard_failures import GuardFailure, user_variable
from torchcompile_doctor.events.model import CompileId, Recompile, StackFrame

_EQUALS = re.compile(r"^(?P<lhs>.+?) == (?P<rhs>.+)$")
_GLOBAL_STATE = re.compile(r"___check_global_state\(\) against (?P<state>\{.*\})")
# names transformers and hand-written decoders give the key/value cache tensors
_KV_CACHE = re.compile(r"(?i)(k_cache|v_cache|kv_cache|key_cache|value_cache|past_key_values|\.keys\b|\.values\b)")
_READ_BACK = re.compile(r"^___as_tensor\(.+\)\.item\(\)$")  # torch 2.11's read of a float input made dynamic
_TORCH_FRAMES = ("/torch/nn/modules/", "/torch/_dynamo/")


# -- what a resume function was handed ----------------------------------------------------------------
def held_across_break(source: str | None) -> str | None:
    """The first value on the stack when `source` broke, as the user wrote it: the function being called by
    the line's outermost call (`losses.append` of `losses.append(y.mean().item())`), which the resumed code
    gets as its first argument."""
    return called_name(source) if source else None


# -- the value the new entry was compiled for ------------------------------------------------------
def enrich_failures(
    index: AnalysisIndex, record: Recompile, failures: tuple[GuardFailure, ...]
) -> tuple[GuardFailure, ...]:
    """Each failure with the value that arrived, where torch's text lacks it but the guards of the entry
    compiled for it pin it (`self.calls == 1`, `___stack0 == 9.24`, grad mode from the global state)."""
    if record.compile_id is None:
        return failures
    new_guards = index.guard_expressions(record.compile_id)
    enriched = []
    for failure in failures:
        if failure.reason_class == "grad_mode":
            failure = _grad_mode_values(index, record.compile_id, failure, new_guards)
        elif failure.old is not None and failure.new is None:
            new = _pinned_value(new_guards, failure.variable) or _unpinned(new_guards, failure.variable)
            if new is None and failure.old in ("True", "False") and failure.guard.endswith(f"== {failure.old}"):
                new = "False" if failure.old == "True" else "True"  # a flag that failed `== False` is now True
            failure = replace(failure, new=new) if new is not None and new != failure.old else failure
        enriched.append(failure)
    return tuple(enriched)


def _pinned_value(expressions: Sequence[str], variable: str) -> str | None:
    for expression in expressions:
        match = _EQUALS.match(expression)
        if match and user_variable(match["lhs"]) == variable:
            if _READ_BACK.match(match["rhs"].strip()):  # 2.11: `x == ___as_tensor(x).item()`, x made dynamic
                return DYNAMIC_FROM_THEN_ON
            return match["rhs"].strip()
    return None


def _unpinned(expressions: Sequence[str], variable: str) -> str | None:
    """The new entry checks only the value's type: Dynamo made the number dynamic after this recompile."""
    for expression in expressions:
        match = re.search(r"(?:isnan|___check_type_id)\((?P<name>[^,)]+)", expression)
        if match and user_variable(match["name"]) == variable:
            return DYNAMIC_FROM_THEN_ON
    return None


def _grad_mode(expressions: Sequence[str]) -> str | None:
    for expression in expressions:
        match = _GLOBAL_STATE.search(expression)
        if match:
            try:
                state = json.loads(match["state"])
            except json.JSONDecodeError:
                return None
            flag = state.get("grad_mode") if isinstance(state, dict) else None
            return None if flag is None else ("enabled" if flag else "disabled")
    return None


def _grad_mode_values(
    index: AnalysisIndex, compile_id: CompileId, failure: GuardFailure, new_guards: Sequence[str]
) -> GuardFailure:
    entry = CompileId.parse(failure.entry)
    old_guards = index.guard_expressions(replace(entry, session=compile_id.session)) if entry else ()
    old, new = _grad_mode(old_guards), _grad_mode(new_guards)
    return replace(failure, old=old, new=new) if old and new and old != new else failure


def grad_mode_note(index: AnalysisIndex, root: Cause, compile_ids: set[CompileId]) -> str:
    """Which way grad mode went, the user's function whose call compiled the new entry (an `estimate_loss`
    under `@torch.no_grad()`), and that `eval()` there flips the modules' `.training` guards too."""
    direction = " → ".join(root.values) if len(root.values) == 2 else "enabled ↔ disabled"
    callers = []
    for compile_id in sorted(compile_ids):
        frame = index.code.last_user_frame(index.starts.get(compile_id, ())[:-1])
        if frame is not None and frame.function not in callers:
            callers.append(f"`{frame.function}` ({index.code.display(frame.file)}:{frame.line})")
    where = f" when called from {', '.join(callers[:3])}" if callers else ""
    return (
        f"Grad mode went {direction}{where}. A caller that also switches `model.eval()` flips the modules'"
        " `.training` guards too: one more entry per mode, reused afterwards, not one per call."
    )


# -- recompiles inside one call ---------------------------------------------------------------------
def _anchor(index: AnalysisIndex, stack: tuple[StackFrame, ...]) -> StackFrame | None:
    """The frame that called into the outermost compiled function on this stack (the user's `model(x)`)."""
    for position, frame in enumerate(stack):
        if (frame.file, frame.function) in index.compiled_code:
            return stack[position - 1] if position else None
    return None


def _still_warming_up(index: AnalysisIndex, compile_id: CompileId) -> bool:
    """A function seen for the first time was compiled after this recompile, reached from the same call
    into compiled code: torch was still tracing the first call when it compiled this entry."""
    order = index.compile_order
    if compile_id not in order:
        return False
    position = order.index(compile_id)
    seen = {c.frame_id for c in order[:position] if c.session == compile_id.session}
    anchor = _anchor(index, index.starts.get(compile_id, ()))
    for later in order[position + 1 :]:
        if later.session == compile_id.session and later.frame_id not in seen and later.frame_compile_id == 0:
            if _anchor(index, index.starts.get(later, ())) == anchor:
                return True
    return False


def _differing_call_sites(index: AnalysisIndex, compile_ids: set[CompileId]) -> list[str]:
    """The innermost lines where the stacks that compiled the entries differ (an encoder's and a decoder's
    call of the same layer code); [] when every entry was compiled from the same stack."""
    everything = set(compile_ids) | {replace(c, frame_compile_id=0) for c in compile_ids}
    chains = []
    for compile_id in sorted(everything):
        stack = index.starts.get(compile_id, ())[:-1]
        chain = tuple(f for f in reversed(stack) if not any(part in f.file for part in _TORCH_FRAMES))
        if chain and chain not in chains:
            chains.append(chain)
    if len(chains) < 2:
        return []
    for depth in range(min(len(c) for c in chains)):
        frames = []
        for chain in chains:
            if chain[depth] not in frames:
                frames.append(chain[depth])
        if len(frames) > 1:
            return [f"{index.code.display(f.file)}:{f.line}" for f in frames[:4]]
    return []


def inside_one_call(
    index: AnalysisIndex, compile_ids: set[CompileId], failures: Sequence[Sequence[GuardFailure]]
) -> str | None:
    """How the entries differ when they were all compiled within one call: "different call sites (a, b)"
    or "different layers or module instances called from the same line"; None when not within one call."""
    recompiled = sorted(c for c in compile_ids if c.frame_compile_id > 0)
    if not recompiled or not all(_still_warming_up(index, c) for c in recompiled):
        return None
    sites = _differing_call_sites(index, compile_ids)
    if sites:
        return f"different call sites ({', '.join(sites)})"
    return "different layers or module instances called from the same line"


# -- a compiled function reached through a package's call -------------------------------------------
def library_call(index: AnalysisIndex, compile_ids: set[CompileId]) -> StackFrame | None:
    """The package function the user's line called on the way to the compiled function (transformers'
    `generate`), which builds the compiled function's inputs itself; None when the user's line reaches it
    directly or through a model the user compiled (torch's module dispatch and decorators do not count)."""
    for compile_id in sorted(compile_ids):
        stack = index.starts.get(compile_id, ())[:-1]
        compiled = (p for p, frame in enumerate(stack) if (frame.file, frame.function) in index.compiled_code)
        stack = stack[: next(compiled, len(stack))]  # up to the outermost compiled function
        users = [position for position, frame in enumerate(stack) if not index.code.is_library(frame.file)]
        if not users:
            continue
        found = next((f for f in stack[users[-1] + 1 :] if index.code.origin(f.file) == THIRD_PARTY), None)
        if found is not None:
            return found
    return None


def _calling_line(index: AnalysisIndex, compile_id: CompileId) -> StackFrame | None:
    """The innermost frame, outside torch's module dispatch, that called the compiled function for this entry."""
    stack = index.starts.get(compile_id, ())[:-1]
    return next((f for f in reversed(stack) if not any(part in f.file for part in _TORCH_FRAMES)), None)


def call_line_switches(
    index: AnalysisIndex, records: Sequence[Recompile], failures: Sequence[Sequence[GuardFailure]]
) -> tuple[list[str], dict[str, list[str]], dict[str, list[str]]]:
    """The changes between an entry and the one compiled after it, told apart by the lines of the calling
    code that made the two calls: (those lines, per variable the `old → new` seen between calls from different
    lines (a generate loop's prefill call and its one-token decode call: one entry per line, made once),
    per variable the `old → new` seen between calls from the same line)."""
    lines: list[str] = []
    switched: dict[str, list[str]] = {}
    same: dict[str, list[str]] = {}
    for record, entry_failures in zip(records, failures, strict=False):
        compile_id = record.compile_id
        new = _calling_line(index, compile_id) if compile_id else None
        for failure in entry_failures:
            entry = CompileId.parse(failure.entry)
            old = _calling_line(index, replace(entry, session=compile_id.session)) if entry and compile_id else None
            change = f"{failure.old} → {failure.new}" if failure.old and failure.new else "a change"
            kept = same if new is None or old is None or new == old else switched
            if change not in kept.setdefault(failure.variable, []):
                kept[failure.variable].append(change)
            if kept is switched and old is not None and new is not None:
                sites = (f"{index.code.display(f.file)}:{f.line}" for f in (old, new))
                lines += [site for site in sites if site not in lines]
    return lines, switched, same


# -- the optimizer a compiled step belongs to -------------------------------------------------------
_OPTIMIZER = re.compile(r"\boptim\.[A-Z]\w*\(")


def optimizer_line(index: AnalysisIndex) -> tuple[str, str] | None:
    """(the raw line, `file:line`) where the user's code creates a torch optimizer, if one is found."""
    for file in sorted(index.user_files()):
        for number, line in enumerate(index.code.lines(file) or (), start=1):
            if _OPTIMIZER.search(line) and not line.lstrip().startswith("#"):
                return line.rstrip("\n"), f"{index.code.display(file)}:{number}"
    return None


def hyperparameter_of(variable: str) -> str:
    """`self.param_groups[0]['lr']` -> `lr`."""
    match = re.search(r"\['(\w+)'\]$", variable)
    return match.group(1) if match else variable


# -- KV cache, sessions -----------------------------------------------------------------------------
def kv_cache_note(found: Sequence[Cause]) -> tuple[str, str] | None:
    """(why, fix) when a KV-cache tensor changed length: the cache was re-created, not updated in place."""
    for cause in found:
        if cause.reason_class == "shape_or_rank" and _KV_CACHE.search(cause.variable) and len(cause.values) >= 2:
            lengths = " → ".join(cause.values[:4])
            why = f"The KV cache `{cause.variable}` was allocated again with a new length ({lengths})."
            fix = (
                "Allocate the KV cache once at a fixed maximum length and reuse it. transformers' static cache"
                " sizes itself from each call's prompt + `max_new_tokens` and is re-created when that grows; pass"
                " one `max_length=` (large enough for every prompt) to every `generate()` call instead, and it is"
                " reset, not re-created (checked: the cache recompiles disappear; generation then runs to that"
                " total length)."
            )
            return why, fix
    return None


def session_label(index: AnalysisIndex, session: int) -> str:
    """` (session 2 of 3)` in a run that called `torch._dynamo.reset()`; nothing in a run without one."""
    return f" (session {session + 1} of {index.sessions})" if index.sessions > 1 else ""


def session_fingerprint(fingerprint: str, session: int) -> str:
    """The same finding in a later session is another finding (a baseline tells them apart); the first
    session keeps the fingerprint a run without `torch._dynamo.reset()` gives."""
    if not session:
        return fingerprint
    return hashlib.sha1(f"{fingerprint}|session {session + 1}".encode()).hexdigest()[:16]
