"""torch 2.15's text read by the doctor's own readers (#35): a job's plain `TORCH_LOGS` stderr as 2.15 writes it
(tests/data/torch_versions/2.15/*.torch_logs.txt, recorded: that folder's README says how), whose user stacks carry
CPython's `~~~^^^` marker lines under each source line, read by `doctor report RUN.log`'s reader
(events/job_logs.py): each break at the user's line with its code, never a marker line, and 2.15's GB ids."""

from __future__ import annotations

import pytest
from support.paths import DATA

from torchcompile_doctor.events.job_logs import load_text_logs

RELEASE = DATA / "torch_versions" / "2.15"
# program -> (the line of its break, torch 2.15's GB id for it, the code there)
BREAKS = {
    "dict_by_tensor": (10, "GB0124", "return x * WEIGHTS[int(label)]"),
    "item_scale": (8, "GB0124", "scale = x.abs().max().item()"),
    "time_in_step": (10, "GB9193", "start = time.time()"),  # GB0007 before 2.15
}


@pytest.mark.parametrize("program", sorted(BREAKS))
def test_a_2_15_text_log_reads_each_break_at_the_users_line_past_the_marker_lines(program):
    text_log = RELEASE / f"{program}.torch_logs.txt"
    assert "^^^" in text_log.read_text(encoding="utf-8")  # the recording holds 2.15's markers
    (log,) = (run.logs[0] for run in load_text_logs([text_log]))
    line, gb_id, code = BREAKS[program]
    (graph_break,) = log.graph_breaks
    assert (graph_break.line, graph_break.gb_id) == (line, gb_id)
    assert graph_break.user_stack[-1].line == line and graph_break.user_stack[-1].code == code
    assert not any(set(frame.code) <= set("~^ ") for frame in graph_break.user_stack)


def test_a_2_15_recompile_names_the_carried_value_in_words():
    (log,) = (run.logs[0] for run in load_text_logs([RELEASE / "item_scale.torch_logs.txt"]))
    (recompile,) = log.recompiles
    (failure,) = recompile.guard_failures
    assert (failure.variable, failure.line, failure.reason_class) == ("___stack0", 9, "float_specialization")
    assert failure.worded_variable == "the value carried across the break"
