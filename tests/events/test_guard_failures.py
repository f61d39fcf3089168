"""torch's guard-failure texts parsed and classified (events/guard_failures.py), on real texts of torch 2.13.

The texts below were printed by torch 2.13.0+cpu: tests/data/traces/scripts/guard_failures.py runs one
scenario per kind of guard failure (the object ids in them differ from run to run); the others are
read from the checked-in logs in tests/data/traces.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import DATA

from torchcompile_doctor.analysis.recompile_causes import describe_changes
from torchcompile_doctor.events.guard_failures import classify, is_carried_value, user_variable
from torchcompile_doctor.events.guard_failures import parse_guard_failure as parse_failure
from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.events.parsers.graph_break_reason import parse_stack

TRACES = DATA / "traces"
# where the scenarios ran, as torch wrote it into the texts below (recorded data, never read from the disk)
SCRIPT = "/work/main/tests/data/traces/scripts/guard_failures.py"

# --- texts printed by guard_failures.py (one per scenario, named after it) ---------------------

DTYPE = "0/0: tensor 'x' dtype mismatch. expected Float, actual Double"
SIZE = "0/0: tensor 'x' size mismatch at index 0. expected 4, actual 5"
RANK = "0/0: tensor 'x' rank mismatch. expected 1, actual 2"
STRIDE = "0/0: tensor 'x' stride mismatch at index 0. expected 4, actual 1"
REQUIRES_GRAD = "0/0: tensor 'x' requires_grad mismatch. expected requires_grad=0"
INT_ARG = (
    "0/0: n == 3                                                   # return x * n  #"
    " tests/data/traces/scripts/guard_failures.py:46 in fn\n"
    "User stack trace:\n"
    '  File "/work/main/tests/data/traces/scripts/guard_failures.py", line 46, in fn\n'
    "    return x * n"
)
FLOAT_ARG = (
    "0/0: scale == 0.5                                             # return x * scale  #"
    " tests/data/traces/scripts/guard_failures.py:54 in fn\n"
    "User stack trace:\n"
    '  File "/work/main/tests/data/traces/scripts/guard_failures.py", line 54, in fn\n'
    "    return x * scale"
)
BOOL_ARG = (
    "0/0: flag == True                                             # return x + 1 if flag"
    " else x - 1  # tests/data/traces/scripts/guard_failures.py:62 in fn\n"
    "User stack trace:\n"
    '  File "/work/main/tests/data/traces/scripts/guard_failures.py", line 62, in fn\n'
    "    return x + 1 if flag else x - 1"
)
MODULE_ATTRIBUTE = (
    "0/0: self.step == 0                                           # self.step += 1  #"
    " tests/data/traces/scripts/guard_failures.py:75 in forward (HINT: torch.compile"
    " considers integer attributes of the nn.Module to be static. If you are observing"
    " recompilation, you might want to make this integer dynamic using"
    " torch._dynamo.config.allow_unspec_int_on_nn_module = True, or convert this integer"
    " into a tensor.)\n"
    "User stack trace:\n"
    '  File "/work/main/tests/data/traces/scripts/guard_failures.py", line 75, in forward\n'
    "    self.step += 1"
)
FUNCTION_ARG = (
    "0/0: ___check_obj_id(act, 139929912797648), type=<class 'builtin_function_or_method'> "
    " # return act(x)  # tests/data/traces/scripts/guard_failures.py:84 in fn\n"
    "User stack trace:\n"
    '  File "/work/main/tests/data/traces/scripts/guard_failures.py", line 84, in fn\n'
    "    return act(x)"
)
LAMBDA_ARG = (
    "0/0: ___check_obj_id(act.__code__, 140327950749600), type=<class 'code'>  # return"
    " act(x)  # tests/data/traces/scripts/guard_failures.py:92 in fn\n"
    "User stack trace:\n"
    '  File "/work/main/tests/data/traces/scripts/guard_failures.py", line 92, in fn\n'
    "    return act(x)"
)
CLOSURE_ARG = (
    "0/0: act.__closure__[0].cell_contents == 1                    # return t + k  #"
    ' tests/data/traces/scripts/guard_failures.py:101 in add (HINT: guard on "k")\n'
    "User stack trace:\n"
    '  File "/work/main/tests/data/traces/scripts/guard_failures.py", line 106, in fn\n'
    "    return act(x)\n"
    '  File "/work/main/tests/data/traces/scripts/guard_failures.py", line 101, in add\n'
    "    return t + k"
)
MODULE_ARG = (
    "0/0: ___check_type_id(layer, 94696454231728), type=<class"
    " 'torch.nn.modules.activation.ReLU'>  # return layer(x)  #"
    " tests/data/traces/scripts/guard_failures.py:114 in fn (HINT: type ReLU)\n"
    "User stack trace:\n"
    '  File "/work/main/tests/data/traces/scripts/guard_failures.py", line 114, in fn\n'
    "    return layer(x)"
)
GRAD_MODE = "0/0: GLOBAL_STATE changed: grad_mode "
AUTOCAST = "0/0: GLOBAL_STATE changed: autocast(cpu)_enabled "
DETERMINISTIC = "0/0: GLOBAL_STATE changed: deterministic_algorithms "
DEFAULT_DTYPE = "0/0: GLOBAL_STATE changed: default_dtype "
LIST_LENGTH = (
    "0/0: len(xs) == 2                                             # return sum(xs)  #"
    " tests/data/traces/scripts/guard_failures.py:152 in fn\n"
    "User stack trace:\n"
    '  File "/work/main/tests/data/traces/scripts/guard_failures.py", line 152, in fn\n'
    "    return sum(xs)"
)
DICT_KEYS = "0/0: len(d) != 1"
TYPE_CHANGE = (
    "0/0: n == 3                                                   # return x * n  #"
    " tests/data/traces/scripts/guard_failures.py:168 in fn\n"
    "User stack trace:\n"
    '  File "/work/main/tests/data/traces/scripts/guard_failures.py", line 168, in fn\n'
    "    return x * n"
)
NONE_ARG = (
    "0/0: bias is None                                             # return x * 2 if bias is"
    " None else x + bias  # tests/data/traces/scripts/guard_failures.py:176 in fn\n"
    "User stack trace:\n"
    '  File "/work/main/tests/data/traces/scripts/guard_failures.py", line 176, in fn\n'
    "    return x * 2 if bias is None else x + bias"
)
DEVICE_META = (
    "0/0: tensor 'x' dispatch key set mismatch. expected DispatchKeySet(CPU, BackendSelect,"
    " ADInplaceOrView, AutogradCPU), actual DispatchKeySet(Meta, BackendSelect,"
    " ADInplaceOrView, AutogradMeta)"
)
GLOBAL_INT = (
    "0/0: G['SCALE'] == 2                                               # return x * SCALE "
    " # tests/data/traces/scripts/guard_failures.py:202 in scaled\n"
    "User stack trace:\n"
    '  File "/work/main/tests/data/traces/scripts/guard_failures.py", line 202, in scaled\n'
    "    return x * SCALE"
)


def _log_failures(name: str) -> list[str]:
    """The first (most recent) guard failure of every recompile in a checked-in log, in log order."""
    return [r.failures[0] for r in load_artifacts(TRACES / f"{name}.log").recompiles]


DTYPE_LOG, SHAPE_LOG = _log_failures("dtype_shape_recompile")
STACK_INT_LOG, STACK_FLOAT_LOG = _log_failures("item_recompile")
STEP_LOG = _log_failures("recompile_limit")


# (text, reason class, variable shown to users, old value, new value)
CASES = [
    pytest.param(DTYPE, "dtype", "x.dtype", "float32", "float64", id="dtype"),
    pytest.param(DTYPE_LOG, "dtype", "x.dtype", "float32", "float64", id="dtype-log"),
    pytest.param(SIZE, "shape_or_rank", "x.shape[0]", "4", "5", id="size"),
    pytest.param(SHAPE_LOG, "shape_or_rank", "x.shape[0]", "4", "5", id="size-log"),
    pytest.param(RANK, "shape_or_rank", "x.dim()", "1", "2", id="rank"),
    pytest.param(
        STRIDE,
        "other",
        "x.stride()[0]",
        "4",
        "1",
        id="stride",
    ),
    pytest.param(
        REQUIRES_GRAD,
        "requires_grad",
        "x.requires_grad",
        "False",
        "True",
        id="requires_grad",
    ),
    pytest.param(INT_ARG, "int_specialization", "n", "3", None, id="int-argument"),
    pytest.param(TYPE_CHANGE, "int_specialization", "n", "3", None, id="int-argument-then-float"),
    pytest.param(FLOAT_ARG, "float_specialization", "scale", "0.5", None, id="float-argument"),
    pytest.param(BOOL_ARG, "int_specialization", "flag", "True", None, id="bool-argument"),
    pytest.param(GLOBAL_INT, "int_specialization", "SCALE", "2", None, id="global-int"),
    pytest.param(MODULE_ATTRIBUTE, "module_attribute", "self.step", "0", None, id="module-attribute"),
    pytest.param(STEP_LOG[0], "module_attribute", "self.step", "0", None, id="module-attribute-log"),
    pytest.param(STACK_INT_LOG, "int_specialization", "___stack0", "5", None, id="stack0-int"),
    pytest.param(STACK_FLOAT_LOG, "float_specialization", "___stack0", "0.3846153550295881", None, id="stack0-float"),
    pytest.param(FUNCTION_ARG, "object_id", "act", None, None, id="object-id-builtin"),
    pytest.param(LAMBDA_ARG, "object_id", "act.__code__", None, None, id="object-id-lambda"),
    pytest.param(CLOSURE_ARG, "int_specialization", "act.__closure__[0].cell_contents", "1", None, id="closure-cell"),
    pytest.param(MODULE_ARG, "other", "type of layer", None, None, id="type-id-module-argument"),
    pytest.param(NONE_ARG, "other", "bias", "None", "not None", id="is-none"),
    pytest.param(GRAD_MODE, "grad_mode", "grad mode", None, None, id="grad-mode"),
    pytest.param(AUTOCAST, "global_state", "autocast(cpu)_enabled", None, None, id="autocast"),
    pytest.param(DETERMINISTIC, "global_state", "deterministic_algorithms", None, None, id="deterministic"),
    pytest.param(DEFAULT_DTYPE, "global_state", "default_dtype", None, None, id="default-dtype"),
    pytest.param(LIST_LENGTH, "dict_or_list_length", "len(xs)", "2", None, id="list-length"),
    pytest.param(DICT_KEYS, "dict_or_list_length", "len(d)", "1", None, id="dict-length"),
]


@pytest.mark.parametrize("text, reason_class, variable, old, new", CASES)
def test_classify_real_guard_failure(text, reason_class, variable, old, new):
    failure = parse_failure(text)
    assert failure is not None
    assert (failure.reason_class, failure.variable, failure.old, failure.new) == (reason_class, variable, old, new)
    # classify() on the guard alone agrees with parse_failure
    assert classify(failure.guard) == (reason_class, variable, old, new)


def test_device_change_shows_as_dispatch_key_set_mismatch():
    failure = parse_failure(DEVICE_META)
    assert failure.reason_class == "device"
    assert failure.variable == "x.device"
    assert "cpu" in (failure.old or "").lower() and "meta" in (failure.new or "").lower()


# --- the rest of a guard failure: entry, source line, user frame, hint --------------------------


def test_tensor_failure_without_user_stack():
    failure = parse_failure(DTYPE)
    assert failure.entry == "0/0"
    assert failure.guard == "tensor 'x' dtype mismatch. expected Float, actual Double"
    assert (failure.source, failure.file, failure.line, failure.hint) == (None, None, None, None)


def test_argument_failure_with_source_and_user_stack():
    failure = parse_failure(INT_ARG)
    assert failure.entry == "0/0"
    assert failure.guard == "n == 3"
    assert failure.source == "return x * n"
    assert (failure.file, failure.line) == (SCRIPT, 46)
    assert failure.hint is None


def test_module_attribute_failure_keeps_torch_hint():
    failure = parse_failure(MODULE_ATTRIBUTE)
    assert failure.guard == "self.step == 0"
    assert failure.source == "self.step += 1"
    assert (failure.file, failure.line) == (SCRIPT, 75)
    assert failure.hint.startswith("torch.compile considers integer attributes of the nn.Module to be static.")
    assert failure.hint.endswith("or convert this integer into a tensor.")


def test_closure_failure_points_at_the_innermost_user_frame():
    failure = parse_failure(CLOSURE_ARG)
    assert failure.source == "return t + k"
    assert (failure.file, failure.line) == (SCRIPT, 101)  # in add(), not the caller at line 106
    assert failure.hint == 'guard on "k"'


def test_object_id_guard_keeps_its_type_text():
    failure = parse_failure(FUNCTION_ARG)
    assert failure.guard.startswith("___check_obj_id(act, ")
    assert failure.guard.endswith("type=<class 'builtin_function_or_method'>")
    assert failure.source == "return act(x)"
    assert failure.line == 84


def test_global_state_failure_has_no_trailing_space():
    assert parse_failure(GRAD_MODE).guard == "GLOBAL_STATE changed: grad_mode"


def test_carried_values_from_a_graph_break():
    failure = parse_failure(STACK_INT_LOG)
    assert failure.entry == "2/0"
    assert is_carried_value(failure.variable)
    assert failure.source == "return correct.sum().item() / (mask.sum().item() + 1e-6)"
    assert (Path(failure.file).name, failure.line) == ("item_metrics.py", 5)
    float_failure = parse_failure(STACK_FLOAT_LOG)
    assert float_failure.source == "acc2 = masked_accuracy(logits2, target, mask)"
    assert (Path(float_failure.file).name, float_failure.line) == ("item_recompile.py", 19)
    assert not is_carried_value(parse_failure(INT_ARG).variable)


def test_every_reason_of_the_recompile_limit_log():
    log = load_artifacts(TRACES / "recompile_limit.log")
    texts = [text for recompile in log.recompiles for text in recompile.failures]
    assert len(texts) == 36  # 1 + 2 + ... + 8
    for text in texts:
        failure = parse_failure(text)
        entry = int(failure.entry.split("/")[1])
        assert (failure.reason_class, failure.variable, failure.old) == ("module_attribute", "self.step", str(entry))
        assert failure.source == "self.step += 1" and failure.line == 13


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Recompiling function forward in /x/y.py:12",
        "    triggered by the following guard failure(s):",
        "tensor 'x' dtype mismatch. expected Float, actual Double",  # no cache entry in front
    ],
)
def test_not_a_guard_failure(text):
    assert parse_failure(text) is None


def test_user_variable_of_legacy_sources():
    # torch before 2.6 printed L['x'] / G['x']; 2.13 prints the bare name (see INT_ARG) except for globals
    assert user_variable("L['x']") == "x"
    assert user_variable("L['self'].step") == "self.step"
    assert user_variable("G['SCALE']") == "SCALE"


# --- describe_changes --------------------------------------------------------------------------


def test_describe_changes_dtype_then_shape_from_a_log():
    failures = [parse_failure(text) for text in (DTYPE_LOG, SHAPE_LOG)]
    assert describe_changes(failures) == ["x.dtype: float32 → float64", "x.shape[0]: 4 → 5"]


def test_describe_changes_counter_attribute_up_to_the_limit():
    failures = [parse_failure(text) for text in STEP_LOG]
    assert describe_changes(failures) == ["self.step: 0 → 1 → 2 → … → 6 → 7"]
    assert describe_changes(failures, max_values=8) == ["self.step: 0 → 1 → 2 → 3 → 4 → 5 → 6 → 7"]


def test_describe_changes_with_only_the_old_value():
    assert describe_changes([parse_failure(STACK_INT_LOG)]) == ["___stack0: 5 → another value"]
    assert describe_changes([parse_failure(MODULE_ATTRIBUTE)]) == ["self.step: 0 → another value"]


def test_describe_changes_without_values_never_half_parses():
    # issue 14: a change line names the value and its before -> after, says what the guard means, or quotes
    # torch's text as torch's; never "<fragment>: changed"
    assert describe_changes([parse_failure(GRAD_MODE)]) == [
        "grad mode: enabled ↔ disabled (torch does not log which way)"
    ]
    assert describe_changes([parse_failure(FUNCTION_ARG), parse_failure(AUTOCAST)]) == [
        "act: a different object than the cache entry was compiled for",
        "autocast(cpu)_enabled: torch says `GLOBAL_STATE changed: autocast(cpu)_enabled`",
    ]


def test_describe_changes_drops_consecutive_repeats_only():
    module = parse_failure(MODULE_ATTRIBUTE)
    assert describe_changes([module, module]) == ["self.step: 0 → another value"]
    size = parse_failure(SIZE)  # a shape that goes back and forth is shown going back and forth
    assert describe_changes([size, size]) == ["x.shape[0]: 4 → 5 → 4 → 5"]
    assert describe_changes([]) == []


# --- issue 14: guard texts with quotes and brackets, torch's sentences, never half-parsed -------------
# Printed by torch 2.13 in the real-world dev cases (/work/shared/realworld-dev, *.truth.json and captures).

QUOTED_SIZE = "0/1: tensor 'kwargs['past_key_values'].layers[0].keys' size mismatch at index 2. expected 18, actual 22"
BUFFER_SIZE = (
    "0/0: tensor 'model._modules['layers']._modules['0']._buffers['k_cache']' size mismatch at index 2."
    " expected 24, actual 32"
)
TENSOR_TYPE = "7/0: expected type of 'input_ids' to be a tensor type, ' but found <class 'builtin_function_or_method'>"
KEY_ERROR = (
    "6/0: KeyError on self._modules['layer']._modules['0']._modules['SelfAttention']"
    "._modules['relative_attention_bias']"
)
UNKNOWN_SOURCE = "0/0: L['x'].size()[0] == 8  # (unknown source L['x'].size()[0], please file a bug)"
THREAD_RACE = (
    "0/0: Unexpected recompilation: runtime guards failed even though they passed during recompilation-reason"
    " analysis. Please open an issue with a minimal repro: https://github.com/pytorch/pytorch"
)
DICT_CONTAINS = "0/0: ___dict_contains('bias_layer', self._modules)"
OPTIMIZER_LR = (
    "2/0: self.param_groups[0]['lr'] == 0.003333333333333333       # for group in self.param_groups:"
    "  # optim/adam.py:229 in step"
)


@pytest.mark.parametrize(
    ("text", "reason_class", "variable", "old", "new"),
    [
        (QUOTED_SIZE, "shape_or_rank", "past_key_values.layers[0].keys.shape[2]", "18", "22"),
        (BUFFER_SIZE, "shape_or_rank", "model.layers[0].k_cache.shape[2]", "24", "32"),
        (TENSOR_TYPE, "type_change", "type of input_ids", "Tensor", "builtin_function_or_method"),
        (KEY_ERROR, "module_structure", "self.layer[0].SelfAttention.relative_attention_bias", "present", "missing"),
        (UNKNOWN_SOURCE, "shape_or_rank", "x.shape[0]", "8", None),
        (THREAD_RACE, "thread_race", "runtime guards", None, None),
        (DICT_CONTAINS, "module_structure", "self.bias_layer", "present", "missing"),
        (OPTIMIZER_LR, "float_specialization", "self.param_groups[0]['lr']", "0.003333333333333333", None),
    ],
)
def test_quoted_sources_and_torch_sentences(text, reason_class, variable, old, new):
    failure = parse_failure(text)
    assert (failure.reason_class, failure.variable, failure.old, failure.new) == (reason_class, variable, old, new)


def test_tensor_subject_keeps_its_quoted_name():
    assert parse_failure(QUOTED_SIZE).subject == "past_key_values.layers[0].keys"


def test_no_change_line_is_a_half_parsed_fragment():
    for text in (QUOTED_SIZE, BUFFER_SIZE, TENSOR_TYPE, KEY_ERROR, UNKNOWN_SOURCE, THREAD_RACE, DICT_CONTAINS):
        (line,) = describe_changes([parse_failure(text)])
        assert not line.endswith(": changed") and "please file a bug" not in line, line
    assert describe_changes([parse_failure(THREAD_RACE)]) == [
        "runtime guards: failed, then passed when torch re-checked them (another thread changed state in between)"
    ]


def test_root_cause_is_the_value_that_grows_without_bound():
    from torchcompile_doctor.analysis.recompile_causes import causes

    grad = {0: "0", 1: "1"}
    records = []
    for newest in range(1, 6, 2):  # entries 0, 2, 4 fail on the counter, 1, 3, 5 on requires_grad
        records.append(
            [
                parse_failure(f"1/{k}: tensor 'x' requires_grad mismatch. expected requires_grad={grad[k % 2]}")
                if k % 2
                else parse_failure(f"1/{k}: self.calls == {k // 2}")
                for k in range(newest, -1, -1)
            ]
        )
    root, other = causes(records)
    assert (root.variable, root.unbounded, root.counter) == ("self.calls", True, True)
    assert (other.variable, other.unbounded) == ("x.requires_grad", False)


# symbolic-shape guards of a function compiled with dynamic=True (torch 2.13, `TORCH_LOGS=recompiles`)
SIZE_RANGE = (
    "0/1: 2 <= x.size()[0] <= 10  # if x.shape[0] > 10:  # mp/rc/sym.py:6 in a (user code shown is first use of"
    " this value--the guard itself is not due user code but due to 0/1 specialization in the framework; to avoid"
    " specialization try torch._dynamo.decorators.mark_unbacked(tensor, dim)) and if x.shape[0] > 10:  #"
    " mp/rc/sym.py:6 in a (_dynamo/variables/tensor.py:2606 in evaluate_expr)"
)
DUCK_SIZING = (
    "0/0: G['cache'].size()[0] == x.size()[0]  # duck sizing added this equality because these variables had the"
    " same size 16 (to avoid this specialization, set torch.fx.experimental._config.use_duck_shape = False)"
)


def test_symbolic_size_guards_are_parsed():
    bounded = parse_failure(SIZE_RANGE)
    assert (bounded.guard, bounded.source, bounded.line) == ("2 <= x.size()[0] <= 10", "if x.shape[0] > 10:", 6)
    assert describe_changes([bounded]) == ["x.shape[0]: between 2 and 10 → another value"]
    duck = parse_failure(DUCK_SIZING)
    assert (duck.reason_class, duck.variable, duck.old) == ("shape_or_rank", "x.shape[0]", "16 (= cache.shape[0])")


# --- issue 27: the wordings of every supported release (texts from tests/data/torch_versions/RELEASE/*.torch_logs.txt)

TYPE_2_14 = "0/0: expected type of 'factor' to be <class 'torch.Tensor'>, but found <class 'float'>"  # 2.14, 2.15
GLOBAL_EMPTY = (
    "0/0: not G['messages']                                             # if messages:  #"
    " wt-versions/tests/data/torch_versions/programs/global_list_emptiness.py:10 in step"
)
GLOBAL_LENGTH = (
    "0/1: len(G['history']) == 1                                       # history.append(f\"loss {loss}\")  #"
    " wt-versions/tests/data/torch_versions/programs/fstring_to_global.py:11 in train_step"
)
FREED_CARRIED = "1/0: Cache line invalidated because L['___stack0'] got deallocated"  # 2.11, 2.13-2.15
FREED_ARGUMENT = "0/0: Cache line invalidated because L['lookup'] got deallocated"  # tests/rules/TCD224


@pytest.mark.parametrize(
    ("text", "reason_class", "variable", "subject", "old"),
    [
        (TYPE_2_14, "type_change", "type of factor", None, "Tensor"),
        (GLOBAL_EMPTY, "dict_or_list_length", "len(messages)", "messages", "0"),
        (GLOBAL_LENGTH, "dict_or_list_length", "len(history)", "history", "1"),
        (FREED_CARRIED, "guarded_object_freed", "___stack0", None, None),
        (FREED_ARGUMENT, "guarded_object_freed", "lookup", None, None),
    ],
)
def test_the_wordings_of_every_supported_release(text, reason_class, variable, subject, old):
    failure = parse_failure(text)
    assert (failure.reason_class, failure.variable, failure.subject, failure.old) == (
        reason_class,
        variable,
        subject,
        old,
    )


def test_an_empty_container_and_its_later_length_are_one_cause():
    """`not G['history']` then `len(G['history']) == 1`: one value (its length) going 0 -> 1, not two causes."""
    assert describe_changes(
        [parse_failure(GLOBAL_EMPTY.replace("messages", "history")), parse_failure(GLOBAL_LENGTH)]
    ) == ["len(history): 0 → 1"]


def test_a_negated_dict_contains_is_not_an_empty_container():
    assert parse_failure("0/0: not ___dict_contains('k', L['d'])").variable == "d['k']"


# --- issue 35: torch 2.15 ends dict and set guard failures with its hint, after the line comment or, for a guard
# that names no line, after the guard (guards.py appends ` (HINT: ...)` to each verbose code part); the user stack
# under a failure carries CPython's `~~~^^^` marker lines and may span a statement's lines

# torch 2.15's own wordings (torch/_dynamo/guards.py of the 2.15.0 wheel: DICT_NOT_CONTAINS and SET_CONTAINS pass
# their reason as recompile_hint, appended to the verbose code part, itself `code  # source  # file:line in fn`)
DICT_HINT_2_15 = (
    "0/0: not ___dict_contains('b', L['d'])                           # if 'b' in d:  # m.py:5 in f"
    " (HINT: Dictionary L['d'] must not contain key 'b'; Dynamo specialized the compiled code on this key being"
    " absent.)"
)
SET_HINT_2_15 = (
    "0/1: set.__contains__(L['seen'], 3)                              # if 3 in seen:  # m.py:7 in f"
    " (HINT: Set L['seen'] must contain item 3; Dynamo specialized the compiled code on this item being present.)"
)
STACK_2_15 = (
    "1/0: ___stack0 == 1.4889272451400757                          # return x / scale  # m.py:9 in f\n"
    "User stack trace:\n"
    '  File "/home/u/m.py", line 14, in <module>\n'
    "    scale_step(\n"
    "    ~~~~~~~~~~^\n"
    "        torch.randn(8),\n"
    "        ^^^^^^^^^^^^^^^\n"
    "    )\n"
    "    ^\n"
    '  File "/home/u/m.py", line 9, in f\n'
    "    return x / scale\n"
    "           ~~^~~~~~~\n"
)


@pytest.mark.parametrize(
    ("text", "variable", "hint"),
    [
        (
            DICT_HINT_2_15,
            "d['b']",
            "Dictionary d must not contain key 'b'; Dynamo specialized the compiled code on this key being absent.",
        ),
        (
            SET_HINT_2_15,
            "seen",
            "Set seen must contain item 3; Dynamo specialized the compiled code on this item being present.",
        ),
    ],
)
def test_a_2_15_hint_is_kept_apart_from_the_guard(text, variable, hint):
    """The hint is torch's sentence, with the guard's own names (`L['d']`) said as the user's (`d`)."""
    failure = parse_failure(text)
    assert (failure.variable, failure.hint) == (variable, hint)
    assert "HINT" not in failure.guard and "HINT" not in failure.worded_guard
    assert "L[" not in (failure.hint or "") and "L[" not in failure.worded_guard
    assert "__contains__" not in failure.worded_guard


def test_a_2_15_user_stack_with_markers_and_a_statement_over_lines_names_the_innermost_frame():
    failure = parse_failure(STACK_2_15)
    assert (failure.file, failure.line, failure.variable) == ("/home/u/m.py", 9, "___stack0")
    assert failure.worded_variable == "the value carried across the break"


def test_a_2_15_stack_block_reads_each_frame_past_markers_and_continued_statements():
    """A graph break's `User code traceback` on 2.15 (Python 3.11+): a call spanning lines, each with its markers."""
    frames = parse_stack(STACK_2_15.partition("User stack trace:\n")[2].split("\n"))
    assert [(f.line, f.function, f.code) for f in frames] == [
        (14, "<module>", "scale_step("),
        (9, "f", "return x / scale"),
    ]


@pytest.mark.parametrize(
    ("text", "variable", "worded_guard"),
    [
        ("0/0: ___check_type_id(___stack0, 9781312)", "the value carried across the break", None),
        ("0/0: ___odict_getitem(L['d'], 'k') is L['v']", "odict_getitem(d, 'k')", "odict_getitem(d, 'k') is v"),
        ("0/0: not ___dict_contains('bias', L['self']._modules)", "self.bias", "not 'bias' in self._modules"),
        ("0/0: ___normalize_range_iter(___stack0) == (2, 30, 1)", None, None),
    ],
)
def test_no_dynamo_internal_is_left_in_the_words_of_a_failure(text, variable, worded_guard):
    """A guard no reader knows still reads in the user's words: Dynamo's helpers by what they check or their plain
    name, a value carried across a break and a loop's range iterator in words (`worded_variable`, `worded_guard`)."""
    failure = parse_failure(text)
    assert "___" not in failure.worded_variable and "___" not in failure.worded_guard
    assert "L['" not in failure.worded_guard
    if variable is not None:
        assert failure.worded_variable.endswith(variable) or failure.worded_variable == variable
    if worded_guard is not None:
        assert failure.worded_guard == worded_guard
