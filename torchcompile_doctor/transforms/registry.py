"""Every transform by the name the catalogue gives it, in one explicit table."""

from __future__ import annotations

from torchcompile_doctor.transforms import (
    compile_callees,
    compile_scope,
    data_dependent,
    growing,
    library_calls,
    loops,
    modes,
    mutation,
    number_ops,
    numbers,
    numpy_ops,
    one_time,
    side_effects,
    sweeps,
    timing,
)
from torchcompile_doctor.transforms.engine import Built, Dropped, Transform, build
from torchcompile_doctor.transforms.site import Site

TRANSFORMS: dict[str, Transform] = {
    t.name: t
    for t in (
        Transform("guard_is_compiling", "side_effect", side_effects.guard_is_compiling),
        Transform("drop_item", "data_dependent", data_dependent.drop_item),
        Transform("drop_tolist", "data_dependent", data_dependent.drop_tolist),
        Transform("branchless_where", "data_dependent", data_dependent.branchless_where),
        Transform("numpy_to_torch", "numpy", numpy_ops.numpy_to_torch),
        Transform(
            "module_counter_buffer",
            "number",
            numbers.module_counter_buffer,
            reads_facts=True,
            words="the counter attribute made a buffer",
        ),
        Transform("cast_at_call_site", "mode", numbers.cast_at_call_site, reads_facts=True),
        Transform("mark_dynamic", "number", numbers.mark_dynamic, reads_facts=True),
        Transform("tensor_argument", "number", numbers.tensor_argument, reads_facts=True),
        Transform(
            "op_written_out",
            "number",
            number_ops.op_written_out,
            reads_facts=True,
            words="the op that needs the changing number as a Python number written with torch ops that take it "
            "as a tensor, and the number passed as a tensor",
        ),
        Transform(
            "compile_loop_body",
            "number",
            loops.compile_loop_body,
            reads_facts=True,
            words="the loop's body compiled, the loop over the changing bound left in Python",
        ),
        Transform(
            "mark_growing_cache",
            "number",
            growing.mark_growing_cache,
            reads_facts=True,
            words="the attributes the module grows marked dynamic before each call of the compiled module",
        ),
        Transform(
            "compile_forward_loop_body",
            "number",
            loops.compile_forward_loop_body,
            reads_facts=True,
            words="the loop's body a compiled method, the loop over the changing bound left in `forward`, which "
            "is no longer compiled whole",
        ),
        Transform("tensor_hyperparameter", "number", numbers.tensor_hyperparameter, reads_facts=True),
        Transform("pass_left_out_argument", "library_call", library_calls.pass_left_out_argument, reads_facts=True),
        Transform("drop_passed_argument", "library_call", library_calls.drop_passed_argument, reads_facts=True),
        Transform(
            "compile_network_only",
            "compile_scope",
            compile_scope.compile_network_only,
            words="the network compiled, its post-processing left out of the compiled function",
        ),
        Transform("eager_call", "mode", modes.eager_call),
        Transform(
            "eager_call_without_grad",
            "mode",
            modes.eager_call_without_grad,
            words="the compiled function called with gradients on, the eager one with gradients off",
        ),
        Transform("unwrap_progress", "side_effect", side_effects.unwrap_progress),
        Transform("guard_timer", "side_effect", side_effects.guard_timer, words="the timing kept for eager calls only"),
        Transform(
            "time_at_caller",
            "side_effect",
            timing.time_at_caller,
            words="the timing moved out of the compiled function, around each call of it",
        ),
        Transform(
            "unwrap_timer_block",
            "side_effect",
            timing.unwrap_timer_block,
            words="the timing block unwrapped in the compiled function, each call of it timed in the same block",
        ),
        Transform(
            "untimed_helper",
            "side_effect",
            timing.untimed_helper,
            words="the timing decorator taken off the helper, each call of the compiled function timed instead",
        ),
        Transform("math_to_torch", "numpy", numpy_ops.math_to_torch),
        Transform("hoist_to_module", "one_time", one_time.hoist_to_module, words="moved to import time"),
        Transform(
            "hoist_to_init",
            "one_time",
            one_time.hoist_to_init,
            words="computed once in `__init__`, kept as attributes of the module",
        ),
        Transform("hoist_probe", "one_time", one_time.hoist_probe, words="the probe read once at import time"),
        Transform("detach_out_of_place", "mutation", mutation.detach_out_of_place),
        Transform("data_write_no_grad", "mutation", mutation.data_write_no_grad),
        # built by `doctor fix` from the lines that call the compiled function (fix/candidates.py): at a site alone
        # there is nowhere to move the code to
        Transform("move_outside", "compile_scope", lambda site: "it needs the lines that call the compiled function"),
        Transform("move_after_call", "side_effect", lambda site: "it needs the lines that call the compiled function"),
        Transform("return_printed", "side_effect", lambda site: "it needs the lines that call the compiled function"),
        Transform(
            "guard_helper_call", "side_effect", lambda site: "it needs the compiled function that calls the helper"
        ),
        Transform(
            "leave_out_branch_argument",
            "library_call",
            lambda site: "it needs the lines that call the compiled function",
        ),
        Transform("set_fallback_attribute", "library_call", lambda site: "it needs the line that compiles the model"),
        Transform(
            "compile_called_modules",
            "compile_scope",
            compile_callees.compile_called_modules,
            words="the modules it calls compiled, the function itself left eager",
        ),
        Transform(
            "raise_recompile_limit",
            "recompile_limit",
            sweeps.raise_recompile_limit,
            reads_facts=True,
            words="the recompile limit raised to the sweep's size: its recompiles stay, no item runs eagerly",
        ),
        Transform(
            "reset_between_items",
            "recompile_limit",
            sweeps.reset_between_items,
            reads_facts=True,
            words="the compile caches reset at the start of each item of the sweep: each compiles afresh",
        ),
        Transform(
            "interp_to_torch",
            "numpy",
            numpy_ops.interp_to_torch,
            words="`np.interp` written with torch ops (`torch.searchsorted` and a linear blend)",
        ),
        Transform(
            "fresh_tensor_for_resized",
            "mutation",
            mutation.fresh_tensor_for_resized,
            words="a fresh tensor instead of the input resized in place",
        ),
        Transform(
            "compile_region",
            "compile_scope",
            compile_scope.compile_region,
            words="only the tensor work compiled, the Python work around it left eager",
        ),
        Transform("pass_from_caller", "one_time", lambda site: "it needs the lines that call the compiled function"),
        Transform(
            "raise_limit_for_number_sweep",
            "recompile_limit",
            lambda site: "it needs the loop that passes the numbers to the compiled function",
        ),
        Transform(
            "numpy_random_to_torch",
            "numpy",
            numpy_ops.numpy_random_to_torch,
            words="drawn by torch's generator (other values than numpy's stream)",
        ),
        Transform(
            "numpy_draw_kept_eager",
            "numpy",
            numpy_ops.numpy_draw_kept_eager,
            words="numpy's draw kept eager in a helper that returns a tensor (the same values)",
        ),
    )
}


def build_named(name: str, site: Site) -> Built | Dropped:
    """The named transform built at the site (a name the catalogue checked when it loaded)."""
    return build(TRANSFORMS[name], site)


def every_built(names: tuple[str, ...], site: Site) -> tuple[tuple[Built, ...], tuple[Dropped, ...]]:
    """Each of the named transforms that builds at the site (in the catalogue's order: the first is the one the
    report shows), and why the others did not."""
    made = [build_named(name, site) for name in dict.fromkeys(names)]
    built = tuple(m for m in made if isinstance(m, Built))
    return built, tuple(m for m in made if isinstance(m, Dropped))
