"""The command line's options: each flag's name, type and help text, declared once (typer's Annotated types).

cli.py's commands take these; README documents them (`doctor COMMAND --help` prints them).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from torchcompile_doctor.renderers import FORMATS as REPORT_FORMATS

FORMAT_HELP = f"Report format: {', '.join(REPORT_FORMATS)}."

# Options several commands share, spelled once.
Args = Annotated[list[str] | None, typer.Argument(help="Arguments for the target (after `--`).", show_default=False)]
Module = Annotated[str | None, typer.Option("-m", "--module", help="Run a module as `python -m MODULE`.")]
Inputs = Annotated[str | None, typer.Option("--inputs", help="file.py:function returning the example inputs.")]
Backend = Annotated[str | None, typer.Option("--backend", help="Override every torch.compile backend.")]
Format = Annotated[str, typer.Option("--format", "-f", help=FORMAT_HELP)]
Output = Annotated[Path | None, typer.Option("--output", "-o", help="Write the report here instead of stdout.")]
Timeout = Annotated[float | None, typer.Option("--timeout", help="Stop the target after this many seconds.")]

# `doctor explain`
ExplainTarget = Annotated[
    str | None,
    typer.Argument(
        help="A script (train.py), or file.py:function with --inputs. Arguments after `--` go to the script."
    ),
]
ExplainInputs = Annotated[
    str | None, typer.Option("--inputs", help="file.py:function returning the example inputs (a tuple).")
]
ExplainBackend = Annotated[
    str | None,
    typer.Option(
        "--backend", help="Override every torch.compile backend (eager / aot_eager: findings seconds sooner)."
    ),
]
Artifacts = Annotated[
    Path | None,
    typer.Option("--artifacts", help="Keep the capture (TORCH_TRACE logs + side channel) in this directory."),
]
FreshCache = Annotated[
    bool,
    typer.Option(
        "--fresh-inductor-cache", help="Compile with an empty inductor cache (cached graphs log no perf hints)."
    ),
]
TryFixes = Annotated[
    bool, typer.Option("--try-fixes", help="Re-run with each suggested config fix and report its measured effect.")
]
Jobs = Annotated[int, typer.Option("--jobs", "-j", help="Experiments run side by side with --try-fixes.")]
Ranks = Annotated[
    int | None,
    typer.Option(
        "--nproc-per-node",
        min=1,
        help="Run TARGET under torchrun with N ranks (one trace per rank, one merged report).",
    ),
]


# `doctor fix`
FixFormat = Annotated[
    str,
    typer.Option(
        "--format", "-f", help="terminal (the patch and what each change measured), json, or diff (the patch)."
    ),
]
Budget = Annotated[
    float | None,
    typer.Option("--budget", help="Seconds the trials of the candidate fixes may take in all (default 900)."),
]
Apply = Annotated[
    bool,
    typer.Option(
        "--apply", help="Write the measured patch into the project (refused for files with uncommitted changes)."
    ),
]
FixJobs = Annotated[int, typer.Option("--jobs", "-j", help="Candidate fixes measured side by side.")]
Quiet = Annotated[
    bool,
    typer.Option(
        "--quiet", "-q", help="No progress on stderr (else a bar on a terminal, one line per finished trial otherwise)."
    ),
]
Candidate = Annotated[
    Path | None,
    typer.Option(
        "--candidate",
        help="Measure this unified diff (yours, an agent's) as doctor fix measures its own candidates; nothing else.",
    ),
]


# `doctor check`
CheckTarget = Annotated[
    str | None,
    typer.Argument(help="A script, -m MODULE or file.py:function (default: the `targets` of the config file)."),
]
Config = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="Config file (default: [tool.torchcompile-doctor] in pyproject.toml or "
        ".torchcompile-doctor.yaml, from the target's directory upward).",
    ),
]
Fullgraph = Annotated[
    bool | None, typer.Option("--fullgraph/--no-fullgraph", help="Fail on any graph break or compile failure.")
]
MaxBreaks = Annotated[int | None, typer.Option("--max-graph-breaks", min=0, help="Fail above this many.")]
MaxRecompiles = Annotated[int | None, typer.Option("--max-recompiles", min=0, help="Fail above this many.")]
FailOn = Annotated[
    str | None,
    typer.Option("--fail-on", help="Fail on findings of this severity or worse: critical, high, medium, low, info."),
]
BaselineFile = Annotated[Path | None, typer.Option("--baseline", help="Only findings not in this baseline fail.")]
UpdateBaseline = Annotated[
    bool,
    typer.Option("--update-baseline", help="Write the current findings as the baseline (fixed ones are pruned)."),
]
Select = Annotated[list[str] | None, typer.Option("--select", help="Only these rule codes or prefixes (TCD1).")]
Ignore = Annotated[list[str] | None, typer.Option("--ignore", help="Leave out these rule codes or prefixes.")]
CheckFormat = Annotated[str | None, typer.Option("--format", "-f", help=FORMAT_HELP)]
CheckTimeout = Annotated[float | None, typer.Option("--timeout", help="Stop each target after this many seconds.")]
CheckRanks = Annotated[
    int | None,
    typer.Option("--nproc-per-node", min=1, help="Run each target under torchrun with N ranks (merged report)."),
]
FromCapture = Annotated[
    Path | None,
    typer.Option(
        "--from-capture",
        help="Gate a kept capture (explain --artifacts DIR) or TORCH_TRACE dir instead of running a target.",
    ),
]


# `doctor guards`
GuardsTarget = Annotated[str | None, typer.Argument(help="A script to run (omit it to read an existing --dump DIR).")]
Dump = Annotated[
    Path | None,
    typer.Option("--dump", help="depyf dump dir: written while TARGET runs, or read when no TARGET is given."),
]

# `doctor report`
ReportPath = Annotated[
    list[Path],
    typer.Argument(
        help="A kept --artifacts dir, a TORCH_TRACE dir or one trace log, and/or the text log(s) of the same run "
        "(stderr under TORCH_LOGS; .gz read as is)."
    ),
]
Root = Annotated[Path | None, typer.Option("--root", help="The directory of your code (for relative paths).")]
Strict = Annotated[
    bool,
    typer.Option(
        "--strict", help="Fail (exit 2) on truncated files, bad lines, md5 mismatches or unknown event kinds."
    ),
]

# `doctor rules`, `doctor rule`
RulesFormat = Annotated[str, typer.Option("--format", "-f", help="terminal or json.")]
RuleCode = Annotated[str, typer.Argument(help="A rule code (TCD104) or a GB id (GB0124).")]
