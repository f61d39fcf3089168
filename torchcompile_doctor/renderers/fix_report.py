"""`doctor fix`'s output: on the terminal, the patch with its measured before → after (breaks, recompiles, compile
time, steady-state time), the effect of each change it holds, why each helpful change it leaves out stayed out, and
what every other candidate did; as JSON, all of it (`fix_to_json`); as a diff, only the patch (for `git apply`)."""

from __future__ import annotations

import json

from torchcompile_doctor.model.findings import RunFigures
from torchcompile_doctor.model.fix import FixReport, TrialRecord
from torchcompile_doctor.model.json import to_json
from torchcompile_doctor.model.paths import display_text
from torchcompile_doctor.model.trial import HELPFUL, Noise, seconds_words, timing_words

_FIGURES = (
    ("graph_breaks", "graph breaks"),
    ("recompiles", "recompiles"),
    ("graphs", "graphs"),
    ("recompile_limit_hits", "recompile-limit hits"),
    ("compile_failures", "compile failures"),
)


def _timings(after: RunFigures, noise: Noise) -> list[str]:
    """Compile and steady-state time before → after, as the verdict words them (model/trial.py timing_words):
    none when no run was timed as the trials are."""
    words = timing_words(noise, after)
    return [words] if words else []


def effect(before: RunFigures, after: RunFigures, noise: Noise) -> str:
    """`graph breaks 3 → 0, graphs 4 → 1, compile 2.10 s → 0.80 s, steady state 0.120 s → 0.100 s`: what changed,
    measured (the counts against the plain run's, the timings against those of the runs timed alike)."""
    parts = [
        f"{label} {getattr(before, name)} → {getattr(after, name)}"
        for name, label in _FIGURES
        if getattr(before, name) != getattr(after, name)
    ]
    return ", ".join(parts + _timings(after, noise))


def patch_effect(before: RunFigures, after: RunFigures, noise: Noise) -> str:
    """The patch's figures, before → after, whether they changed or not."""
    parts = [
        f"graph breaks {before.graph_breaks} → {after.graph_breaks}",
        f"recompiles {before.recompiles} → {after.recompiles}",
    ]
    return ", ".join(parts + _timings(after, noise))


def noise_line(noise: Noise) -> str | None:
    """What a timing had to exceed to count, from the runs timed as the trials are."""
    if noise.forked and not noise.timed:
        return "no plain run forked as the trials are ran to its end: their timings were not compared"
    if noise.compile_s.runs < 2:
        return None
    runs = (
        f"the plain run again, {noise.compile_s.runs} times forked as the trials are"
        if noise.forked
        else f"the plain run, {noise.compile_s.runs} times"
    )
    line = f"{runs}: compile {noise.compile_s.median:.2f} s ± {noise.compile_s.spread / 2:.2f} s"
    if noise.steady_s is not None:
        line += f", steady state {seconds_words(noise.steady_s.median)} ± {seconds_words(noise.steady_s.spread / 2)}"
    return line + "; a timing counts only beyond its spread"


def _trial_line(trial: TrialRecord, before: RunFigures, noise: Noise) -> str:
    codes = f" [{', '.join(trial.codes)}]" if trial.codes else ""
    line = f"  {trial.status:<14} {trial.change}{codes}"
    if trial.after is not None:
        line += f"\n                 measured: {effect(before, trial.after, noise)}"
    if trial.detail:
        line += f"\n                 {trial.detail}"
    if trial.label:
        line += f"\n                 kept: {trial.label}"
    if trial.caution and trial.status not in HELPFUL:
        line += f"\n                 note: {trial.caution}"
    return line


def render_terminal(report: FixReport) -> str:
    lines = [f"doctor fix {display_text(report.target, (report.project,))}", ""]
    noise = report.noise or Noise.of([])  # none given: nothing was timed as the trials are
    lines += [f"note: {display_text(note, (report.project,))}" for note in report.notes]
    patch = report.patch
    if patch is None:
        tried = any(trial.after is not None for trial in report.trials)
        lines.append("No measured change made this program better; nothing to apply." if tried else "Nothing to apply.")
    else:
        lines.append(
            f"The patch ({', '.join(patch.files)}), measured on this program: "
            + patch_effect(report.before, patch.after, noise)
        )
        for trial in report.trials:
            if trial.change in patch.changes and trial.after is not None:  # each change the patch holds was measured
                lines.append(
                    f"  - {trial.change} [{', '.join(trial.codes)}]: {effect(report.before, trial.after, noise)}"
                )
                if trial.label:  # the same numbers printed another way: the user sees the printout change
                    lines.append(f"    note: the program {trial.label}")
                if trial.caution:
                    lines.append(f"    note: {trial.caution}")
        lines += ["", patch.diff.rstrip("\n"), ""]
        if report.applied:
            lines.append(f"Written: {', '.join(report.applied)}")
            if report.backups:
                lines.append(f"The files as they were: {', '.join(report.backups)}")
        else:
            lines.append("Nothing was written: `doctor fix --apply` writes this patch.")
    lines += [f"Left out: {left.change}: {left.reason}" for left in report.left_out]
    if (said := noise_line(noise)) is not None:
        lines.append(f"note: {said}")
    others = [t for t in report.trials if patch is None or t.change not in patch.changes]
    if others:
        lines += ["", "Every candidate, measured one at a time against the plain run:"]
        lines += [_trial_line(trial, report.before, noise) for trial in report.trials]
    return "\n".join(lines) + "\n"


def fix_to_json(report: FixReport) -> str:
    return json.dumps(to_json(report), indent=2, ensure_ascii=False) + "\n"


def render_fix(report: FixReport, fmt: str) -> str:
    if fmt == "json":
        return fix_to_json(report)
    if fmt == "diff":
        return report.patch.diff if report.patch is not None else ""
    return render_terminal(report)
