"""What a recompile's guard text alone does not say, read from the rest of the capture: the value the new
cache entry was compiled for (its guard tree), which way grad mode went and who switched it, whether the
entries come from different call sites or layers within one call, a compiled function reached through a
package's call (transformers' `generate()`) and the changes that come from that package calling it from
different lines, a KV cache re-created with a new length, and the session (`torch._dynamo.reset()`) a
finding belongs to."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import replace

from torchcompile_doctor.analysis.call_arguments import passed_for
from torchcompile_doctor.analysis.code import THIRD_PARTY, called_name
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.recompile_causes import DYNAMIC_FROM_THEN_ON, Cause, several_causes
from torchcompile_doctor.events.guard_failures import GuardFailure, is_carried_value
from torchcompile_doctor.events.guard_terms import GuardTerm
from torchcompile_doctor.events.model import CallCount, CompileId, Recompile, StackFrame
from torchcompile_doctor.model.report import SourceLine

# names transformers and hand-written decoders give the key/value cache tensors
_KV_CACHE = re.compile(r"(?i)(k_cache|v_cache|kv_cache|key_cache|value_cache|past_key_values|\.keys\b|\.values\b)")
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
    new_guards = index.guard_terms(record.compile_id)
    enriched = []
    for failure in failures:
        if failure.reason_class == "grad_mode":
            failure = _grad_mode_values(index, record.compile_id, failure, new_guards)
        elif failure.old is not None and failure.new is None:
            new = _pinned_value(new_guards, failure.variable) or _unpinned(new_guards, failure.variable)
            if new is None and failure.old in ("True", "False") and failure.pinned_by_equality:
                new = "False" if failure.old == "True" else "True"  # a flag that failed `== False` is now True
            failure = replace(failure, new=new) if new is not None and new != failure.old else failure
        enriched.append(failure)
    return tuple(enriched)


def _pinned_value(terms: Sequence[GuardTerm], variable: str) -> str | None:
    for term in terms:
        compared = term.comparison
        if compared is not None and compared.variable == variable:
            # 2.11: `x == ___as_tensor(x).item()`, x made dynamic
            return DYNAMIC_FROM_THEN_ON if compared.read_back else compared.value
    return None


def _unpinned(terms: Sequence[GuardTerm], variable: str) -> str | None:
    """The new entry checks only the value's type: Dynamo made the number dynamic after this recompile."""
    return DYNAMIC_FROM_THEN_ON if any(term.type_only_of == variable for term in terms) else None


def _grad_mode(terms: Sequence[GuardTerm]) -> str | None:
    state = next((term for term in terms if term.global_state), None)
    if state is None or state.grad_mode is None:
        return None
    return "enabled" if state.grad_mode else "disabled"


def _grad_mode_values(
    index: AnalysisIndex, compile_id: CompileId, failure: GuardFailure, new_guards: Sequence[GuardTerm]
) -> GuardFailure:
    entry = CompileId.parse(failure.entry)
    old_guards = index.guard_terms(replace(entry, session=compile_id.session)) if entry else ()
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
def _still_warming_up(index: AnalysisIndex, compile_id: CompileId) -> bool:
    """A function seen for the first time was compiled after this recompile, reached from the same call
    into compiled code: torch was still tracing the first call when it compiled this entry."""
    return compile_id in index.warming_up


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
    or "different layers or module instances called from the same line"; None when not within one call.
    The program's calls decide where the capture counted them (every compile during the first call of the
    compiled callable they run under); a bare trace has only the compile order (each recompile followed by
    the first compile of another function reached from the same call)."""
    recompiled = sorted(c for c in compile_ids if c.frame_compile_id > 0)
    if not recompiled:
        return None
    calls = entry_calls(index, compile_ids)
    if calls is not None and calls.last_compile_call is not None:
        if calls.last_compile_call != 1:
            return None
    elif not all(_still_warming_up(index, c) for c in recompiled):
        return None
    sites = _differing_call_sites(index, compile_ids)
    if sites:
        return f"different call sites ({', '.join(sites)})"
    return "different layers or module instances called from the same line"


def entry_calls(index: AnalysisIndex, compile_ids: set[CompileId]) -> CallCount | None:
    """The calls the capture counted of the compiled callable these compiles ran under: the function itself
    where the user compiled it, else the outermost compiled callable on the compiles' stacks (a model whose
    forward runs eagerly and calls the recompiled layers). None in a bare trace (no counts)."""
    counts = index.log.call_counts
    if not counts:
        return None
    for compile_id in sorted(compile_ids):
        file, line, co_name = index.frame_key(compile_id)
        own = next((c for c in counts if (c.function_file, c.function_line, c.function) == (file, line, co_name)), None)
        if own is not None:
            return own
        for frame in index.starts.get(compile_id, ()):  # outermost first
            enclosing = [
                c
                for c in counts
                if (c.function_file, c.function) == (frame.file, frame.function) and c.function_line <= frame.line
            ]
            if enclosing:
                return max(enclosing, key=lambda c: c.function_line)
    return None


def reuse_note(index: AnalysisIndex, compile_ids: set[CompileId], seconds: float) -> str:
    """Whether later calls were seen reusing the entries compiled inside the first one."""
    calls = entry_calls(index, compile_ids)
    if calls is None or calls.last_compile_call != 1:
        return f"Later calls reuse them ({seconds} s of compiling, once)."
    name = _compiled_name(index, calls)
    if calls.calls > 1:
        later = "call 2" if calls.calls == 2 else f"calls 2 to {calls.calls}"
        return (
            f"Checked: {later} of {name} compiled nothing, they reused these entries ({seconds} s of compiling, once)."
        )
    return (
        f"The program calls {name} once, so no second call shows it; none of the changed values is one that is"
        f" new on every call, so a second call with inputs like these reuses the entries ({seconds} s of compiling)."
    )


def _compiled_name(index: AnalysisIndex, calls: CallCount) -> str:
    """What the user compiled, as they know it: `the compiled `Stack`` for a module (whose forward may be a
    decorator's wrapper), else the function's name."""
    where = (calls.function_file, calls.function_line)
    use = next((b for b in index.log.backends if (b.function_file, b.function_line) == where and b.compiled), None)
    if use is not None and use.compiled_kind == "module":
        return f"the compiled `{use.compiled}`"
    return f"`{index.function_name(calls.function_file, calls.function, calls.function_line)}`"


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


def optimizer_line(index: AnalysisIndex) -> tuple[SourceLine, str] | None:
    """(the line, `file:line` as shown) where the user's code creates a torch optimizer, if one is found."""
    for file in sorted(index.user_files()):
        for number, line in enumerate(index.code.lines(file) or (), start=1):
            # with the file's text, as every fix line: the edit is made on it, so `doctor fix` can write what the
            # report prints (the line alone gave a before/after with nothing to write: "nothing to fix")
            found = index.source_line(file, number) if _OPTIMIZER.search(line) else None
            if found is not None and not line.lstrip().startswith("#"):
                return found, f"{index.code.display(file)}:{number}"
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


# -- several causes, the recompile limit ------------------------------------------------------------
DEFAULT_RECOMPILE_LIMIT = 8  # torch._dynamo.config.recompile_limit (alias cache_size_limit), 2.11 to 2.15


def several_causes_note(found: Sequence[Cause], fix_per_cause: bool = True) -> str | None:
    """Which value caused how many of the recompiles, when each recompile's own guard failure names another
    (None when one value caused them all); `fix_per_cause`: the finding's fix is the first cause's."""
    own = several_causes(found)
    if not own:
        return None
    total = sum(cause.recompiles for cause in found)
    counts = ", ".join(f"{_named(cause.variable)} {cause.recompiles}" for cause in own)
    note = f"Its {total} recompiles have {len(own)} causes, each read from its own guard failure ({counts})"
    if not fix_per_cause:
        return note + "."
    first = _named(own[0].variable)
    return f"{note}: the fix below is for {first}; each other cause needs its own (its change is listed)."


def _named(variable: str) -> str:
    return "the value carried across the break" if is_carried_value(variable) else f"`{variable}`"


def fresh_value_fix(variable: str) -> str:
    """The fix where the guarded value is made anew on every call: no call can ever reuse an entry."""
    return (
        f"keep the per-call value out of what the compiled code guards: build `{variable}` outside the compiled"
        " function (after it returns, or only where it is printed) and pass the compiled code what stays the same"
        " between calls; a guard on a value new on every call is met by no later call (checked on four layers given a"
        " note with a tensor's mean formatted into it: 3 recompiles in one call before, 0 with the note built"
        " outside)."
    )


def limit_note(index: AnalysisIndex, compile_ids: set[CompileId]) -> tuple[str, int] | None:
    """(why, entries) when the function holds as many cache entries as torch's recompile limit allows but was
    not (yet) refused: the next call that matches none of them runs it eagerly. None when under the limit or
    when torch logged the hit (the recompile-limit finding says it)."""
    if not compile_ids:
        return None
    entries = 1 + max(c.frame_compile_id for c in compile_ids)
    frames = {(c.session, c.frame_id) for c in compile_ids}
    mine = [m for m in index.log.metrics if m.compile_id and (m.compile_id.session, m.compile_id.frame_id) in frames]
    if any(m.hit_recompile_limit for m in mine):
        return None
    known = next((m.recompile_limit for m in index.log.metrics if m.recompile_limit is not None), None)
    limit = known or DEFAULT_RECOMPILE_LIMIT
    if entries < limit:
        return None
    said = f"{limit}" if known else f"{limit} by default"
    why = (
        f"It holds {entries} cache entries, as many as torch's recompile limit allows ({said}): the next call"
        " that matches none of them is not compiled, and the function runs eagerly from then on."
    )
    return why, entries


# -- what the user's call passes ----------------------------------------------------------------------
def passed_at_call(
    index: AnalysisIndex, function: tuple[str, int, str], variable: str, call_sites: Sequence[StackFrame]
) -> str | None:
    """What the user's call line passes for the compiled function's `variable` (`torch.stack(values)` for
    `values`, `k` for `key`), when the line says it; None otherwise."""
    file, line, co_name = function
    node = index.code.defs.function_node(file, co_name, line) if file != "?" else None
    # the user's line calls what they compiled (a module by its variable, a function by any name); a function
    # torch compiled deeper down (a library's, reached through the user's model) only where the line names it
    compiled = any((b.function_file, b.function_line) == (file, line) for b in index.log.backends)
    for site in call_sites[:1]:
        call_line = index.raw_line(site.file, site.line)
        if node is not None and call_line is not None:
            return passed_for(call_line, node, variable, by_name_only=not compiled)
    return None


def tied_inputs(index: AnalysisIndex, compile_ids: set[CompileId], variable: str, dim: int) -> list[tuple[str, int]]:
    """The other inputs whose dimension the recompiled entries tie to `variable`'s (`returns.size()[0] ==
    values.size()[0]`, once torch made the length dynamic): `mark_dynamic` on one of them alone raises
    ConstraintViolationError where the code combines it with the others (checked on an actor-critic update's
    log-probs, values and returns), so they are marked together. Plain inputs only (not globals, not attributes)."""
    linked: dict[tuple[str, int], set[tuple[str, int]]] = {}
    entries = {replace(c, frame_compile_id=n) for c in compile_ids for n in range(c.frame_compile_id + 1)}
    for compile_id in sorted(entries):  # every entry of the function: the first one too
        for term in index.guard_terms(compile_id):
            if term.tied is not None:
                one, other = term.tied.one, term.tied.other
                linked.setdefault(one, set()).add(other)
                linked.setdefault(other, set()).add(one)
    seen, todo = {(variable, dim)}, [(variable, dim)]
    while todo:
        for neighbour in linked.get(todo.pop(), ()):
            if neighbour not in seen:
                seen.add(neighbour)
                todo.append(neighbour)
    return sorted(p for p in seen - {(variable, dim)} if p[0].isidentifier())


_SKIPPED = frozenset({"Unsupported", "UserError"})  # compilation_metrics fail types of a frame torch skipped


def skipped_caller_note(index: AnalysisIndex, compile_ids: set[CompileId]) -> str | None:
    """Entries compiled one call at a time because the function that makes the calls is a frame torch skipped
    (it runs eagerly, so each call enters compiled code anew): fixing that fallback traces the calls inside one
    graph instead."""
    skipped = {(m.co_filename, m.co_name): m for m in index.log.metrics if m.fail_type in _SKIPPED and m.co_name}
    for compile_id in sorted(compile_ids):
        for frame in reversed(index.starts.get(compile_id, ())[:-1]):  # the innermost caller first
            metrics = skipped.get((frame.file, frame.function))
            if metrics is not None:
                name = index.function_name(metrics.co_filename or "?", frame.function, metrics.co_firstlineno or 0)
                return (
                    f"They are compiled call by call because torch skipped `{name}`, which makes the calls: it runs"
                    " eagerly (its fallback finding says why), and once it compiles, these calls are traced inside"
                    " its graph instead."
                )
    return None
