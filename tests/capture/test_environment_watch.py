"""Which of torch's variables a program set while it ran (capture/environment_watch.py): `doctor fix` forks its
trials from a process that imported torch already only when the plain run set none. In-process: the watch hears
this process's own `os.environ` writes through the audit hook it adds (one that only notes names)."""

from __future__ import annotations

import os

from torchcompile_doctor.capture.environment_watch import EnvironmentWatch, read_changed


def test_torch_s_variables_set_or_removed_are_noted_and_others_are_not(tmp_path, monkeypatch):
    monkeypatch.setenv("TORCHINDUCTOR_FREEZING", "0")
    monkeypatch.setenv("OMP_NUM_THREADS", "2")
    watch = EnvironmentWatch({"TORCH_TRACE"})
    monkeypatch.setenv("TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS", "1")  # read when torch._dynamo.config is imported
    monkeypatch.delenv("TORCHINDUCTOR_FREEZING")  # removed: torch reads its default then
    monkeypatch.setenv("OMP_NUM_THREADS", "2")  # the value it had: nothing changed
    monkeypatch.setenv("TORCH_TRACE", "mine")  # the doctor's own
    monkeypatch.setenv("OPENBLAS_MAIN_FREE", "1")  # numpy's, not torch's
    monkeypatch.setenv("MY_APP_SETTING", "on")
    os.putenv("NCCL_DOCTOR_TEST", "1")  # os.putenv directly is heard too
    os.unsetenv("NCCL_DOCTOR_TEST")  # (this process's children never see it)
    assert watch.changed == {"TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS", "TORCHINDUCTOR_FREEZING", "NCCL_DOCTOR_TEST"}
    written = tmp_path / "doctor_environment.txt"
    watch.write(written)
    assert read_changed(written) == ("NCCL_DOCTOR_TEST", "TORCHDYNAMO_CAPTURE_SCALAR_OUTPUTS", "TORCHINDUCTOR_FREEZING")


def test_a_program_that_set_none_leaves_no_file(tmp_path, monkeypatch):
    watch = EnvironmentWatch(())
    monkeypatch.setenv("MY_APP_SETTING", "on")
    written = tmp_path / "doctor_environment.txt"
    watch.write(written)
    assert not written.exists() and read_changed(written) == ()
