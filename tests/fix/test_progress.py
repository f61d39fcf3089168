"""How `doctor fix` and `--try-fixes` tell their trials on stderr (the CLI's side; the engine's lines are tested in
test_trials.py): one plain line per finished trial when stderr is not a terminal (CI, a log file), nothing with
--quiet. In-process: the CLI's own progress sinks, fed as the engine feeds them."""

from __future__ import annotations

from torchcompile_doctor import cli


def test_a_line_per_finished_trial_on_a_stderr_that_is_no_terminal(capsys):
    with cli._trial_progress(quiet=False) as told:
        assert told is not None
        told.started(2)
        told.running("torch.compile(..., dynamic=True)")
        told.finished(1, 2, "torch.compile(..., dynamic=True): measured in 3.1 s: breaks 1 → 0")
        told.finished(2, 2, "the plain run again (its noise): measured in 2.9 s: breaks 1 → 1")
    assert capsys.readouterr().err.splitlines() == [
        "doctor: trial 1/2: torch.compile(..., dynamic=True): measured in 3.1 s: breaks 1 → 0",
        "doctor: trial 2/2: the plain run again (its noise): measured in 2.9 s: breaks 1 → 1",
    ]


def test_quiet_tells_nothing(capsys):
    with cli._trial_progress(quiet=True) as told:
        assert told is None
    with cli._status_unless(True)("running train.py"):
        pass
    assert capsys.readouterr().err == ""


def test_the_progress_bar_counts_trials_and_prints_each_line(capsys):
    bar = cli._TrialBar()
    bar.started(3)
    bar.running("a change")
    bar.finished(1, 3, "a change: measured in 1.0 s")
    task = bar._bar.tasks[0]
    assert (task.completed, task.total, task.description) == (1, 3, "measuring a change")
    bar.stop()
    assert "trial 1/3: a change: measured in 1.0 s" in capsys.readouterr().err
