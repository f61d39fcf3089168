"""tlparse's own test inputs (tests/data/tlparse/, see its README) read as a user would: what the report says is
what the log records, and only that."""

from __future__ import annotations

from support.doctor import doctor_in_process
from support.paths import DATA

from torchcompile_doctor import pipeline

TLPARSE = DATA / "tlparse"


def test_a_last_line_without_its_newline_is_not_a_truncation():
    data = (TLPARSE / "comp_failure.log").read_bytes()
    assert not data.endswith(b"\n")  # the file as tlparse keeps it
    (found,) = pipeline.reread(TLPARSE / "comp_failure.log").reports
    assert found.log_health.truncated is False
    assert not any("log health" in note for note in found.notes)


def test_a_custom_backends_failure_is_the_backends_not_a_construct_of_the_code():
    (found,) = pipeline.reread(TLPARSE / "comp_failure.log").reports
    (failure,) = found.findings
    assert failure.code == "TCD408"
    assert failure.title == "The `broken_backend` backend raised while compiling `fn`"
    assert "RuntimeError: broken backend" in failure.why
    assert "fix the construct" not in failure.fix.summary and 'backend="eager"' in failure.fix.summary


def test_what_the_log_does_not_record_is_said_so():
    run = doctor_in_process("report", str(TLPARSE / "comp_failure.log"))
    assert "torch None" not in run.stdout and "exit code None" not in run.stdout
    assert "torch version not recorded" in run.stdout
    assert "target: how it ended is not recorded in what was read" in run.stdout
    assert run.returncode == 0


def test_a_trace_without_a_compile_claims_no_graph():
    run = doctor_in_process("report", str(TLPARSE / "export_guard_added.log"))
    assert "No findings: what was read records no compiled graph." in run.stdout
    assert "one graph per compiled function" not in run.stdout
