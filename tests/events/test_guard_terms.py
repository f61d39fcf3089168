"""torch's guard expressions read into typed terms (events/guard_terms.py): each field on texts of the shapes torch
writes in `dynamo_cpp_guards_str` (recorded captures under tests/data hold each shape)."""

from __future__ import annotations

from torchcompile_doctor.events.guard_terms import guard_term
from torchcompile_doctor.events.parsers.guards_tree import parse_tree


def test_a_comparison_names_the_value_as_a_guard_failure_does():
    term = guard_term("L['self']._modules['blocks']._modules['3'].offset == 3")
    assert term.comparison is not None
    assert (term.comparison.shown, term.comparison.variable, term.comparison.value) == (
        "self.blocks[3].offset",
        "self.blocks[3].offset",
        "3",
    )
    assert term.on_self and term.on_local and not term.comparison.read_back


def test_a_float_made_dynamic_on_2_11_is_read_back_not_pinned():
    term = guard_term("L['scale'] == ___as_tensor(L['scale']).item()")
    assert term.comparison is not None and term.comparison.read_back
    assert term.self_check  # `scale == scale`: nothing pinned


def test_a_tensor_check():
    term = guard_term(
        "check_tensor(L['x'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), "
        "torch.float32, device=None, requires_grad=False, size=[4, 8], stride=[1, 4])"
    )
    assert term.tensor is not None
    assert (term.tensor.name, term.tensor.dtype, term.tensor.size, term.tensor.stride) == (
        "x",
        "float32",
        (4, 8),
        (1, 4),
    )
    assert not term.tensor.contiguous


def test_object_and_type_ids_and_renumbering():
    obj = guard_term("___check_obj_id(__builtins_dict___2['len'], 140250244812448)")
    assert obj.object_id_of == "len"
    assert obj.comparable == guard_term("___check_obj_id(__builtins_dict___0['len'], 140250244999999)").comparable
    typ = guard_term("___check_type_id(L['n'], 9781312), type=<class 'int'>")
    assert (typ.type_id_of, typ.type_name, typ.type_only_of) == ("n", "int", "n")


def test_global_state_grad_mode():
    on = guard_term('___check_global_state() against {"grad_mode":true,"autocast_state":{}}')
    off = guard_term('___check_global_state() against {"grad_mode":false}')
    assert (on.global_state, on.grad_mode, off.grad_mode) == (True, True, False)
    assert guard_term("___check_global_state() against {not json").grad_mode is None


def test_tied_sizes_and_shape_relations():
    term = guard_term("L['returns'].size()[0] == L['values'].size()[0]")
    assert term.tied is not None and (term.tied.one, term.tied.other) == (("returns", 0), ("values", 0))
    assert term.shape_relation and guard_term("2 <= L['x'].size()[0]").shape_relation


def test_dict_keys_in_words():
    module = guard_term("not ___dict_contains('bias_layer', L['self']._modules)")
    assert module.dict_key is not None and module.dict_key.words == "self has no submodule `bias_layer`"
    plain = guard_term("___dict_contains('k', G['d'])")
    assert plain.dict_key is not None and plain.dict_key.words == "d has key 'k'"


def test_what_the_user_can_act_on():
    assert guard_term("L['alpha'] == 0.5").on_user_value
    assert not guard_term("L['self'].training == True").on_user_value
    assert not guard_term("___stack0 == 1.5").on_user_value
    assert guard_term("G['torch'] is G['__import_torch']").identity


def test_carried_values_and_a_loops_range():
    assert guard_term("___stack0 == 6.25").carried_names == ("___stack0",)
    assert guard_term("___stack0 == 6.25").comparison.carried  # type: ignore[union-attr]
    loop = guard_term("___normalize_range_iter(___stack0) == (2, 30, 1)")
    assert loop.readable == "the loop's range (start, stop, step) carried across the break == (2, 30, 1)"


def test_every_guard_of_a_tree_carries_its_term():
    tree = "TREE_GUARD_MANAGER:\n+- RootGuardManager\n| +- EQUALS_MATCH: L['step'] == 1  # if step:  # m.py:3 in f\n"
    (guard,) = parse_tree(tree)
    assert guard.term.comparison is not None and guard.term.comparison.value == "1"


# torch 2.15 ends dict and set guards with its hint, `(HINT: ...)`, after the guard's line comment or, where the
# guard names no line, right after the expression (guards.py's get_verbose_code_parts appends it to each part)
def test_a_hint_after_a_guard_with_no_line_is_not_part_of_the_expression():
    tree = (
        "TREE_GUARD_MANAGER:\n+- RootGuardManager\n"
        "| +- DICT_CONTAINS: not ___dict_contains('b', L['d']) (HINT: the dict's keys are guarded)\n"
        "| +- DICT_CONTAINS: ___dict_contains('a', L['d'])  # if 'a' in d:  # m.py:5 in f (HINT: the keys)\n"
    )
    without_line, with_line = parse_tree(tree)
    assert without_line.expression == "not ___dict_contains('b', L['d'])"
    assert without_line.term.dict_key is not None and without_line.term.dict_key.words == "d has no key 'b'"
    assert (with_line.expression, with_line.where) == ("___dict_contains('a', L['d'])", "m.py:5")
