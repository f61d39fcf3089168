"""How the run ended: the target's TargetStatus and exit code, TCD405 when it failed (from the parent's
view of the process, RunOutcome: timeout, Ctrl-C, signal, exit code, and the child's exit record), and
TCD407 when torch.compile was called but nothing was compiled."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from torchcompile_doctor.analysis.code import USER, without_doctor_frames
from torchcompile_doctor.analysis.detectors.detector import Derived, Detector
from torchcompile_doctor.analysis.index import AnalysisIndex
from torchcompile_doctor.analysis.worded_findings import finding_from_rule
from torchcompile_doctor.events.model import BackendUse, RunOutcome, StackFrame, TargetExit, is_stopping_signal
from torchcompile_doctor.model.findings import CompileCallsEvidence, TargetEvidence
from torchcompile_doctor.model.report import Finding, TargetStatus
from torchcompile_doctor.rules.binding import Binding, Params, RuleSet
from torchcompile_doctor.rules.facts import Facts, fill


@dataclass(frozen=True, kw_only=True)
class TargetFailedFacts(Facts):
    message: str | None = None  # how the target failed, in words
    stopped: str | None = None  # how the run was stopped from outside, in words (None: it failed by itself)
    cudagraph_overwritten: str | None = None  # the error is torch's CUDA-graph overwrite (TCD416 explains it)


@dataclass(frozen=True, kw_only=True)
class NothingCompiledFacts(Facts):
    compiled: str | None = None  # what torch.compile was given
    disabled_by: str | None = None  # what disabled Dynamo
    frames: int | None = None  # frames Dynamo looked at
    reason: str | None = None  # the likely reason, worded by the rule's `reasons`
    such_as_generate: str | None = None  # the method that ran the original module, as an example ("": none known)
    generate_included: str | None = None
    instead: str | None = None  # and what to do


@dataclass(frozen=True)
class NothingCompiledParams(Params):
    # per likely reason (`module`, `method`, `function`, `disabled`, `no_ops`, `unknown`): its `why` and `fix`
    reasons: Mapping[str, Mapping[str, str]] = field(default_factory=dict)


TARGET_FAILED = Binding("target_failed", Params, TargetFailedFacts)  # and, in a multi-rank run, the launcher's failure
NOTHING_COMPILED = Binding("nothing_compiled", NothingCompiledParams, NothingCompiledFacts)


@dataclass(frozen=True)
class TargetOutcome:
    status: TargetStatus
    exit_code: int | None
    message: str | None = None  # what went wrong, in words (None: nothing did)
    stopped: bool = False  # stopped from outside (a timeout, Ctrl-C, SIGTERM, SIGKILL), not failed by itself


def stopped(outcome: RunOutcome) -> TargetOutcome | None:
    """The run was stopped from outside (--timeout, Ctrl-C): that says how it ended, whatever the logs say."""
    how = outcome.how_stopped
    if outcome.timed_out:
        return TargetOutcome(TargetStatus.TIMEOUT, None, how, stopped=True)
    if outcome.interrupted:
        return TargetOutcome(TargetStatus.INTERRUPTED, None, how, stopped=True)
    return None


def killed(outcome: RunOutcome) -> TargetOutcome | None:
    """The process died of a signal: stopped by one another process sends to stop it, else crashed."""
    if outcome.signal is None:
        return None
    stopped = is_stopping_signal(outcome.signal)
    return TargetOutcome(TargetStatus.SIGNAL, -outcome.signal, outcome.how_it_died, stopped=stopped)


# the statuses of the exit record the parent writes for a run that did not end by itself (capture/runner.py)
_PARENTS_RECORDS = (TargetStatus.TIMEOUT, TargetStatus.INTERRUPTED, TargetStatus.SIGNAL)


def _from_parents_record(exit_event: TargetExit) -> TargetOutcome:
    """A re-read capture of a run that did not end by itself: the parent's record says how."""
    status = TargetStatus(exit_event.status)
    if status != TargetStatus.SIGNAL:
        return TargetOutcome(status, None, exit_event.message or f"stopped ({status})", stopped=True)
    code = exit_event.exit_code
    stopped = is_stopping_signal(-code)
    return TargetOutcome(status, code, exit_event.message or f"ended by signal {-code}", stopped=stopped)


def _from_exit_record(exit_event: TargetExit, returncode: int | None) -> TargetOutcome:
    code = returncode if returncode is not None else exit_event.exit_code
    if exit_event.status == TargetStatus.EXCEPTION:
        first_line = (exit_event.message or "").strip().split("\n")[0]
        return TargetOutcome(TargetStatus.EXCEPTION, code, f"{exit_event.exception_type}: {first_line}")
    if code == 0:
        return TargetOutcome(TargetStatus(exit_event.status), 0)
    return TargetOutcome(TargetStatus.SYS_EXIT, code, f"exited with code {code} (sys.exit({exit_event.exit_code}))")


def target_outcome_of(outcome: RunOutcome, exit_event: TargetExit | None) -> TargetOutcome:
    """How one process ended: stopped from outside, killed, its own exit record, else its exit code."""
    found = stopped(outcome) or killed(outcome)
    if found is not None:
        return found
    if exit_event is not None and exit_event.status in (TargetStatus.EXCEPTION, TargetStatus.OK, TargetStatus.SYS_EXIT):
        return _from_exit_record(exit_event, outcome.returncode)
    if exit_event is not None and exit_event.status in _PARENTS_RECORDS:
        return _from_parents_record(exit_event)
    if outcome.returncode is not None:
        code = outcome.returncode
        if code == 0:
            return TargetOutcome(TargetStatus.OK, 0)
        message = f"exited with code {code} before reporting how it ended (os._exit?)"
        return TargetOutcome(TargetStatus.EXIT, code, message)
    return TargetOutcome(TargetStatus.UNKNOWN, None)


def target_outcome(index: AnalysisIndex) -> TargetOutcome:
    exits = index.log.target_exits
    return target_outcome_of(index.context.outcome, exits[-1] if exits else None)


def target_failed(index: AnalysisIndex, derived: Derived, rules: RuleSet[Params]) -> list[Finding]:
    """TCD405, at the user's last frame on the failing stack, when the target did not end well."""
    rule = rules.only
    outcome = target_outcome(index)
    if outcome.message is None:
        return []
    exit_event = index.log.target_exits[-1] if index.log.target_exits else None
    stack: tuple[StackFrame, ...] = exit_event.stack if exit_event else ()
    # an error raised while Dynamo traced: torch's `from user code:` frames name the traced line; Python's
    # traceback only the call of the compiled function
    traced = exit_event.traced_stack if exit_event else ()
    frame = index.code.last_user_frame(traced) or (index.code.last_user_frame(stack) if stack else None)
    location = index.location(frame.file, frame.line, frame.function) if frame else None
    # the error is torch's CUDA-graph overwrite (TCD416 explains it): worded for that
    facts = TargetFailedFacts(
        message=outcome.message,
        stopped=outcome.message if outcome.stopped else None,
        where=location.where if location else "the target",
        cudagraph_overwritten="yes" if index.log.cudagraph_overwrites else None,
    )
    return [
        finding_from_rule(
            rule.worded_for(USER, facts),
            location=location,
            facts=facts,
            evidence=TargetEvidence(
                status=outcome.status,
                exit_code=outcome.exit_code,
                exception_type=exit_event.exception_type if exit_event else None,
                torch_text=without_doctor_frames(_said(exit_event.message))
                if exit_event and exit_event.message
                else None,
            ),
        )
    ]


def _said(message: str) -> str:
    """The exception's own words, without torch's `from user code:` section (the location says where)."""
    return message.split("\n\nfrom user code:")[0][:4000]


def nothing_compiled(index: AnalysisIndex, derived: Derived, rules: RuleSet[NothingCompiledParams]) -> list[Finding]:
    """TCD407: torch.compile was called (the side channel saw it) and the run finished, yet Dynamo traced no
    graph and gave up on no frame: nothing ran compiled. Worded by the likely reason, from what was compiled."""
    rule = rules.only
    log = index.log
    calls = _calls_that_compiled_nothing(index)
    if not calls:
        return []
    call = next((b for b in calls if b.dynamo_disabled_by), calls[0])
    templates = rules.params.reasons[_likely_reason(index, call)]
    facts = NothingCompiledFacts(
        compiled=call.compiled or "the function",
        disabled_by=call.dynamo_disabled_by or "",
        frames=len({m.compile_id.frame_id for m in log.metrics if m.compile_id}),
        **_bypass_facts(index, call),
    )
    facts = replace(facts, reason=fill(templates["why"], facts), instead=fill(templates["fix"], facts))
    location = None
    if call.file and call.line:
        function = index.code.defs.enclosing_function(call.file, call.line) or "<module>"
        location = index.location(call.file, call.line, function)
    evidence = CompileCallsEvidence(
        compiled=[b.compiled or "?" for b in calls],
        compiled_kinds=[b.compiled_kind or "?" for b in calls],
        dynamo_disabled_by=call.dynamo_disabled_by,
        compiles_traced=len(log.metrics),
    )
    return [finding_from_rule(rule, location=location, facts=facts, identity="torch.compile", evidence=evidence)]


# nn.Module methods that do not run `forward`: calling them on the compiled module is no bypass
_MODULE_HOUSEKEEPING = frozenset(
    "to eval train cuda cpu half float double parameters named_parameters buffers named_buffers modules"
    " named_modules children named_children state_dict load_state_dict zero_grad requires_grad_ apply compile"
    " forward register_buffer register_forward_hook register_forward_pre_hook get_submodule".split()
)


def _bypass_facts(index: AnalysisIndex, call: BackendUse) -> dict[str, str]:
    """The method that ran the original module instead of the compiled one, as the example of the why and fix:
    the method the user's own code calls on the name it bound torch.compile's result to (`model.generate(...)`),
    else transformers' `generate()` where the module is a transformers model; else none (a diffusers
    pipeline, a Lightning module: another example would mislead)."""
    method = _method_called_on_result(index, call)
    file = call.function_file
    if method is None and file and index.code.is_third_party(file) and index.code.package_name(file) == "transformers":
        method = "generate"
    return {
        "such_as_generate": f", such as `model.{method}()`," if method else "",
        "generate_included": f", `{method}()` included," if method else "",
    }


def _method_called_on_result(index: AnalysisIndex, call: BackendUse) -> str | None:
    """`generate` for `model = torch.compile(model)` followed by `model.generate(x)` in the same file."""
    if not call.file or not call.line:
        return None
    tree = index.code.defs.tree(call.file)
    if tree is None:
        return None
    bound = next(
        (
            node.targets[0].id
            for node in ast.walk(tree)
            if isinstance(node, ast.Assign)
            and node.lineno <= call.line <= (node.end_lineno or node.lineno)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ),
        None,
    )
    calls = sorted(
        (node.lineno, node.func.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == bound
        and node.lineno > call.line
        and node.func.attr not in _MODULE_HOUSEKEEPING
    )
    return calls[0][1] if bound and calls else None


def _calls_that_compiled_nothing(index: AnalysisIndex) -> list[BackendUse]:
    """The torch.compile calls of a finished run in which Dynamo traced no graph and gave up on no frame
    (empty when something was compiled, a compile failed, or the target did not finish well)."""
    log = index.log
    calls = [b for b in log.backends if b.compiled_kind != "decorator" or b.compiled is not None] or log.backends
    if not calls or log.output_graphs or any(m.fail_type for m in log.metrics):
        return []
    if target_outcome(index).status != TargetStatus.OK:
        return []  # the target's own failure (TCD405) says why the compiled code never ran
    return calls


def _likely_reason(index: AnalysisIndex, call: BackendUse) -> str:
    """Why nothing was compiled, as a key of the rule's reasons."""
    if call.dynamo_disabled_by:
        return "disabled"
    if index.log.metrics:
        return "no_ops"  # Dynamo looked at frames and found nothing to put in a graph
    # a capture made before the side channel said what was compiled: "unknown"
    return call.compiled_kind if call.compiled_kind in ("module", "method", "function") else "unknown"


TARGET_FAILED_DETECTOR = Detector(TARGET_FAILED, target_failed)
NOTHING_COMPILED_DETECTOR = Detector(NOTHING_COMPILED, nothing_compiled)
