"""depyf dumps: the static reader on real and malformed dumps, the dump as an event source, and the observe-only
hook on a real run."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap
import tracemalloc
import warnings
from pathlib import Path

import pytest
from support.paths import DATA, REPO

from torchcompile_doctor.capture_layout import CAPTURE_IN_DUMP
from torchcompile_doctor.errors import DoctorError
from torchcompile_doctor.events.dumps.depyf_dump import DumpHealth, read_dump, split_comment
from torchcompile_doctor.events.dumps.layout import GUARD_TREE_NAME, OBSERVE_HEADER
from torchcompile_doctor.events.dumps.source import INCOMPLETE, load_dump
from torchcompile_doctor.events.load import load_artifacts
from torchcompile_doctor.events.model import Guard
from torchcompile_doctor.events.parsers.guards_tree import parse_guard, parse_tree
from torchcompile_doctor.model.json import to_json

DUMPS = DATA / "depyf_dumps"


def _entry_with(frame, fragment: str) -> list[list[str]]:
    return [[g for g in entry.guards if fragment in g] for entry in frame.entries]


def test_module_counter_dump_has_one_frame_with_four_entries():
    frames, health = read_dump(DUMPS / "module_counter")
    assert health == DumpHealth(files=13)
    assert [f.function for f in frames] == ["forward"]
    forward = frames[0]
    assert forward.origin == "full_code_for_forward_0.py"
    assert [e.index for e in forward.entries] == [0, 1, 2, 3]
    assert forward.code_files == tuple(f"__transformed_code_{k}_for_forward.py" for k in range(4))
    for k, entry in enumerate(forward.entries):
        assert entry.source_file == "full_code_for_forward_0.py"
        assert len(entry.guards) == len(entry.comments) == 42
        assert entry.kinds == () and entry.compile_id is None  # depyf's full code has neither
        assert entry.guards[0] == "torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None"
        assert entry.comments[0] == "_dynamo/output_graph.py:1135 in init_ambient_guards"
        count = entry.guards.index(f"L['self'].count == {k}")
        assert entry.comments[count].startswith("self.count += 1  # sample_models/module_counter.py:17 in forward")
        assert "L['self'].training == True" in entry.guards
        assert (
            "check_tensor(L['obs'], Tensor, DispatchKeySet(CPU, BackendSelect, ADInplaceOrView, AutogradCPU), "
            "torch.float32, device=None, requires_grad=False, size=[64, 8], stride=[8, 1])"
        ) in entry.guards

    # the entries differ only in the pinned count, once the per-compile name of the builtins dict
    # (`G['__builtins_dict___6']`) is normalised
    def normalised(entry):
        return {re.sub(r"__builtins_dict___\d+", "__builtins_dict___N", g) for g in entry.guards}

    differing = set().union(*map(normalised, forward.entries)) - normalised(forward.entries[0])
    assert differing == {"L['self'].count == 1", "L['self'].count == 2", "L['self'].count == 3"}


def test_graph_break_dump_separates_resume_frame_and_drops_repeats():
    frames, health = read_dump(DUMPS / "graph_break_dtype")
    assert health == DumpHealth(files=13)
    by_name = {f.function: f for f in frames}
    assert set(by_name) == {"scale", "torch_dynamo_resume_in_scale_at_10"}
    scale, resume = by_name["scale"], by_name["torch_dynamo_resume_in_scale_at_10"]
    assert [len(e.guards) for e in scale.entries] == [12, 12]
    assert [len(e.guards) for e in resume.entries] == [10, 10]  # written twice by depyf, kept once
    assert resume.code_files == (
        "__transformed_code_0_for_torch_dynamo_resume_in_scale_at_10.py",
        "__transformed_code_1_for_torch_dynamo_resume_in_scale_at_10.py",
    )
    dtypes = [re.findall(r"torch\.float\d+", " ".join(g)) for g in _entry_with(scale, "check_tensor(L['x']")]
    assert dtypes == [["torch.float32"], ["torch.float64"]]
    dtypes = [re.findall(r"torch\.float\d+", " ".join(g)) for g in _entry_with(resume, "check_tensor(L['y']")]
    assert dtypes == [["torch.float32"], ["torch.float64"]]
    builtins_guard = [g for g in scale.entries[0].guards if "['print']" in g]
    assert len(builtins_guard) == 1 and builtins_guard[0].endswith("type=<class 'builtin_function_or_method'>")


def test_missing_path_and_file_are_one_line_errors(tmp_path):
    with pytest.raises(ValueError, match="does not exist") as missing:
        read_dump(tmp_path / "nope")
    not_dir = tmp_path / "file"
    not_dir.write_text("x")
    with pytest.raises(ValueError, match="is not a directory") as file_given:
        read_dump(not_dir)
    assert "\n" not in str(missing.value) and "\n" not in str(file_given.value)


def test_empty_dir_has_no_frames(tmp_path):
    assert read_dump(tmp_path) == ([], DumpHealth())


@pytest.fixture
def malformed(tmp_path):
    """The checked-in malformed dump plus what is not checked in: a huge file, symlinks, a dir, a FIFO."""
    dump = tmp_path / "dump"
    shutil.copytree(DUMPS / "malformed", dump)
    with open(dump / "full_code_for_huge_0.py", "wb") as huge:
        huge.truncate(25_000_000)  # sparse: 25 MB by size, nothing on disk
    outside = tmp_path / "outside.py"
    outside.write_bytes(
        (DUMPS / "malformed" / "full_code_for_forward_0.py").read_bytes().replace(b"forward", b"escape")
    )
    (dump / "full_code_for_escape_0.py").symlink_to(outside)
    (dump / "__guard_tree_0_for_passwd.txt").symlink_to("/etc/passwd")
    (dump / "full_code_for_alias_0.py").symlink_to(dump / "full_code_for_forward_0.py")
    (dump / "subdir").mkdir()
    os.mkfifo(dump / "__transformed_code_0_for_fifo.py")  # opening it would block
    return dump


def test_malformed_dump_is_skipped_and_counted(malformed, monkeypatch):
    monkeypatch.chdir(malformed)
    frames, health = read_dump(malformed)
    assert health == DumpHealth(
        files=13,
        skipped=9,  # every counted problem below, plus the symlink pointing inside
        syntax_errors=2,  # half-written full code, broken transformed code
        too_large=1,
        symlinks_outside=2,
        unknown_files=3,  # notes.txt, subdir, the FIFO
        undecodable=2,  # the Latin-1 byte in forward and in its half-written copy
    )
    assert not (malformed / "PWNED").exists() and not (malformed.parent / "PWNED").exists()
    by_name = {f.function: f for f in frames}
    assert set(by_name) == {"forward", "pwn"}  # not escape (outside), alias (link), decoy (a string)
    (entry,) = by_name["forward"].entries
    assert entry.guards == (
        "torch._functorch.aot_autograd.utils.top_saved_tensors_hooks ids == None",
        "L['self'].count == 0",
        "L['self'].training == True",
    )
    assert entry.comments[1] == "self.count += 1  # caf\ufffd/module_counter.py:17 in forward"
    assert by_name["pwn"].entries[0].guards == ("__import__('os').system('touch PWNED') == 0",)
    assert by_name["pwn"].code_files == ("__transformed_code_0_for_pwn.py",)


def test_an_observe_header_nested_too_deep_is_no_header(tmp_path):
    """Found by tests/test_fuzz.py: json's RecursionError on the header line escaped read_dump."""
    tree = "TREE_GUARD_MANAGER:\n+- RootGuardManager\n| +- GLOBAL_STATE: ___check_global_state()\n"
    header = OBSERVE_HEADER + '{"function": "f", "file": ' + "[" * 50_000 + "\n"
    (tmp_path / GUARD_TREE_NAME.format(index=0, function="f")).write_text(header + tree)
    (tmp_path / GUARD_TREE_NAME.format(index=1, function="f")).write_text(tree)
    frames, health = read_dump(tmp_path)
    assert health == DumpHealth(files=2)
    (frame,) = frames
    assert frame.origin == "" and [e.guards for e in frame.entries] == [("___check_global_state()",)] * 2


def test_symlinked_dirs_and_symlink_loops_are_not_followed(tmp_path):
    dump, outside = tmp_path / "dump", tmp_path / "outside"
    shutil.copytree(DUMPS / "module_counter", dump)
    outside.mkdir()
    shutil.copy(DUMPS / "graph_break_dtype" / "full_code_for_scale_0.py", outside / "full_code_for_scale_0.py")
    (dump / "linked_dir").symlink_to(outside, target_is_directory=True)  # a dir outside
    (dump / "full_code_for_dirlink_0.py").symlink_to(outside, target_is_directory=True)  # named like a dump file
    (dump / "full_code_for_loop_0.py").symlink_to(dump / "full_code_for_loop_0.py")  # points at itself
    (dump / "__guard_tree_0_for_a.txt").symlink_to(dump / "__guard_tree_0_for_b.txt")
    (dump / "__guard_tree_0_for_b.txt").symlink_to(dump / "__guard_tree_0_for_a.txt")  # a loop of two
    (dump / "__transformed_code_9_for_gone.py").symlink_to(tmp_path / "missing.py")  # dangling
    frames, health = read_dump(dump)
    clean_frames, clean_health = read_dump(DUMPS / "module_counter")
    assert frames == clean_frames  # nothing from outside, nothing from the links
    assert health == DumpHealth(files=clean_health.files + 6, skipped=6, symlinks_outside=3)


def test_reading_a_dump_never_runs_or_imports_what_is_in_it(tmp_path, monkeypatch):
    """Files that would leave a marker (an absolute path, whatever the cwd) if run, imported or evaluated."""
    import builtins
    import importlib
    import runpy

    dump, marker = tmp_path / "dump", tmp_path / "RAN"
    shutil.copytree(DUMPS / "module_counter", dump)
    touch = f"__import__('pathlib').Path({str(marker)!r}).touch()"
    full_code = (dump / "full_code_for_forward_0.py").read_text()
    (dump / "full_code_for_forward_0.py").write_text(
        f"{touch}\n" + full_code.replace("__guard_hit and L['self'].training == True", f"__guard_hit and {touch}")
    )
    (dump / "__transformed_code_0_for_forward.py").write_text(f"import os\nos.system('touch {marker}')\n{touch}\n")
    (dump / "__guard_tree_0_for_evil.txt").write_text(f"+- LAMBDA_GUARD: {touch}  # x  # m.py:1 in f\n")
    (dump / "__init__.py").write_text(touch)
    (dump / "sitecustomize.py").write_text(touch)

    def forbidden(*args, **kwargs):
        raise AssertionError(f"the dump reader ran code: {args[:1]!r:.80}")

    for owner, name in [(builtins, "exec"), (builtins, "eval"), (importlib, "import_module"), (runpy, "run_path")]:
        monkeypatch.setattr(owner, name, forbidden)
    modules_before = set(sys.modules)
    monkeypatch.syspath_prepend(str(dump))
    frames, health = read_dump(dump)
    assert not marker.exists()
    assert {m for m in set(sys.modules) - modules_before if "forward" in m or m in ("sitecustomize", "dump")} == set()
    (forward,) = [f for f in frames if f.function == "forward"]
    assert touch in forward.entries[0].guards  # read as text, not run
    assert health.syntax_errors == 0 and health.unknown_files == 2  # __init__.py, sitecustomize.py


def test_a_file_of_gigabytes_is_not_read(tmp_path):
    dump = tmp_path / "dump"
    shutil.copytree(DUMPS / "module_counter", dump)
    for name in ("full_code_for_huge_0.py", "__transformed_code_0_for_huge.py", "__guard_tree_0_for_huge.txt"):
        with open(dump / name, "wb") as huge:
            huge.truncate(3 << 30)  # sparse: 3 GiB by size, nothing on disk
    tracemalloc.start()
    try:
        frames, health = read_dump(dump)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000  # the largest real file is 55 KB; nothing of the 3 GiB ones was read
    assert (health.too_large, health.skipped) == (3, 3)
    assert frames == read_dump(DUMPS / "module_counter")[0]


@pytest.mark.parametrize(("limit", "too_large"), [(2_000_000, 0), (60_000, 0), (2_000, 1)])
def test_a_file_that_grows_after_its_size_was_taken_is_still_bounded(monkeypatch, limit, too_large):
    real_fstat = os.fstat

    def stale_fstat(descriptor):  # the size before the writer appended (55 KB now)
        status = list(real_fstat(descriptor))
        status[stat.ST_SIZE] = min(status[stat.ST_SIZE], 1_000)
        return os.stat_result(status)

    monkeypatch.setattr(os, "fstat", stale_fstat)
    frames, health = read_dump(DUMPS / "module_counter", max_file_bytes=limit)
    assert health.too_large == too_large
    assert len(frames[0].entries) == (0 if too_large else 4)


def test_invalid_escapes_in_dump_code_warn_nobody(tmp_path):
    """Found by the long fuzz campaign: ast.parse warned (DeprecationWarning, SyntaxWarning from 3.12) on
    an invalid escape in a dumped file, and under `-W error` the file counted as a syntax error."""
    shutil.copytree(DUMPS / "module_counter", tmp_path / "dump")
    code = tmp_path / "dump" / "__transformed_code_0_for_forward.py"
    code.write_text(code.read_text() + 'PATTERN = "\\d+\\.\\py"\n')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error")
        frames, health = read_dump(tmp_path / "dump")
    assert caught == [] and health == DumpHealth(files=13)
    assert frames == read_dump(DUMPS / "module_counter")[0]


def test_size_limit_applies_to_every_file_read():
    frames, health = read_dump(DUMPS / "module_counter", max_file_bytes=2_000)
    assert health.too_large == 1 and health.skipped == 1  # full_code (55 KB); transformed files are < 1 KB
    assert frames[0].entries == () and len(frames[0].code_files) == 4


@pytest.mark.slow
def test_checked_in_malformed_dump_matches_its_script(tmp_path):
    subprocess.run([sys.executable, str(DUMPS / "make_malformed.py"), str(tmp_path / "m")], check=True)
    made = {p.name: p.read_bytes() for p in (tmp_path / "m").iterdir()}
    checked_in = {p.name: p.read_bytes() for p in (DUMPS / "malformed").iterdir()}
    assert made == checked_in


@pytest.mark.parametrize(
    ("check", "expected"),
    [
        (
            "L['self'].count == 3      # self.count += 1  # m.py:17 in forward",
            ("L['self'].count == 3", "self.count += 1  # m.py:17 in forward"),
        ),
        ("L['a#b'] == 1  # x  # m.py:2 in f", ("L['a#b'] == 1", "x  # m.py:2 in f")),
        ("___check_torch_function_mode_stack()", ("___check_torch_function_mode_stack()", "")),
        ("x == 'unterminated  # a.py:1 in f", ("x == 'unterminated", "a.py:1 in f")),
    ],
)
def test_split_comment(check, expected):
    assert split_comment(check) == expected


@pytest.mark.slow
def test_reading_a_dump_needs_no_torch(tmp_path):
    blocker = tmp_path / "torch.py"
    blocker.write_text("raise ImportError('torch is blocked in this test')\n")
    program = textwrap.dedent(
        f"""
        import sys
        from pathlib import Path
        from torchcompile_doctor.events.dumps.depyf_dump import read_dump
        frames, health = read_dump(Path({str(DUMPS / "module_counter")!r}))
        assert "torch" not in sys.modules and "depyf" not in sys.modules, sorted(sys.modules)
        print(len(frames), len(frames[0].entries), health.files)
        """
    )
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{REPO}"}
    out = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1", "4", "13"]


# A tiny target: a graph break (resume function), a dtype recompile, and a module-attribute guard
# nested under a container (the kind depyf's full code leaves out on torch 2.13).
TARGET = textwrap.dedent(
    """
    import torch
    import torch.nn as nn


    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c = c

        def forward(self, x):
            return x + self.c


    @torch.compile(backend="eager")
    def scale(x):
        y = x * 2
        print("scaled", tuple(y.shape))
        return y + 1


    def main():
        print(scale(torch.ones(3)).tolist())
        print(scale(torch.ones(3, dtype=torch.float64)).tolist())
        stack = torch.compile(nn.Sequential(Block(1), Block(2)), backend="eager")
        print(stack(torch.zeros(2)).tolist())
        return stack  # keep the modules (and so their cache entries) alive


    if __name__ == "__main__":
        main()
    """
)

RUNNER = textwrap.dedent(
    """
    import runpy, sys
    import torch
    from torchcompile_doctor.capture.depyf_observe import observe_into

    mode, target, dump = sys.argv[1:4]
    if mode == "failing-depyf":
        import depyf

        def broken(self, *args, **kwargs):
            raise RuntimeError("depyf is broken in this test")

        depyf.Decompiler.decompile = broken
    if mode == "plain":
        runpy.run_path(target, run_name="__main__")
    else:
        with observe_into(dump):
            runpy.run_path(target, run_name="__main__")
    print("hooks left:", len(torch._dynamo.convert_frame._bytecode_hooks))
    """
)


def _run(tmp_path: Path, mode: str) -> subprocess.CompletedProcess:
    target, runner = tmp_path / "target.py", tmp_path / "runner.py"
    target.write_text(TARGET)
    runner.write_text(RUNNER)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("TORCH_LOGS", None)
    return subprocess.run(
        [sys.executable, str(runner), mode, str(target), str(tmp_path / f"dump_{mode}")],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )


@pytest.fixture(scope="module")
def plain_run(tmp_path_factory) -> subprocess.CompletedProcess:
    """The target without any hook: what each observed run must print too (one torch process, shared)."""
    return _run(tmp_path_factory.mktemp("plain"), "plain")


@pytest.mark.slow
def test_observe_into_dumps_without_changing_the_program(tmp_path, plain_run):
    plain, observed = plain_run, _run(tmp_path, "observe")
    assert plain.returncode == 0 and observed.returncode == 0, observed.stderr
    assert observed.stdout == plain.stdout
    assert "hooks left: 0" in observed.stdout

    frames, health = read_dump(tmp_path / "dump_observe")
    assert health == DumpHealth(files=health.files) and health.files == 10  # 5 entries x (code + guard tree)
    by_name = {f.function: f for f in frames}
    assert set(by_name) == {"scale", "torch_dynamo_resume_in_scale_at_18", "inner"}
    scale = by_name["scale"]
    assert scale.origin.endswith("target.py:15")
    assert scale.code_files == ("__transformed_code_0_for_scale.py", "__transformed_code_1_for_scale.py")
    assert [e.compile_id for e in scale.entries] == ["0/0", "0/1"]
    assert all(len(e.kinds) == len(e.guards) > 0 for f in frames for e in f.entries)
    tensor_guards = [[g for g, k in zip(e.guards, e.kinds, strict=True) if k == "TENSOR_MATCH"] for e in scale.entries]
    assert ["torch.float32" in g[0] for g in tensor_guards] == [True, False]
    assert ["torch.float64" in g[0] for g in tensor_guards] == [False, True]
    # the complete C++ tree has the nested `c` attribute guards of the Sequential's blocks
    (inner_entry,) = by_name["inner"].entries
    constants = [g for g in inner_entry.guards if re.search(r"_modules\['[01]'\]\.c == [12]$", g)]
    assert len(constants) == 2, inner_entry.guards
    # what was written is plain, parseable Python defining the transformed function
    source = (tmp_path / "dump_observe" / "__transformed_code_0_for_scale.py").read_text()
    assert "def __transformed_code_0_for_scale(x):" in source


@pytest.mark.slow
def test_observe_into_survives_depyf_failing(tmp_path, plain_run):
    plain, observed = plain_run, _run(tmp_path, "failing-depyf")
    assert observed.returncode == 0, observed.stderr
    assert observed.stdout == plain.stdout
    dump = tmp_path / "dump_failing-depyf"
    notes = sorted(p.name for p in dump.glob("*.failed.txt"))
    assert notes == [
        "__transformed_code_0_for_inner.py.failed.txt",
        "__transformed_code_0_for_scale.py.failed.txt",
        "__transformed_code_0_for_torch_dynamo_resume_in_scale_at_18.py.failed.txt",
        "__transformed_code_1_for_scale.py.failed.txt",
        "__transformed_code_1_for_torch_dynamo_resume_in_scale_at_18.py.failed.txt",
    ]
    assert "depyf is broken in this test" in (dump / notes[1]).read_text()
    frames, health = read_dump(dump)
    assert health.failed_decompiles == 5 and health.skipped == 0
    assert {f.function: len(f.entries) for f in frames} == {
        "scale": 2,
        "torch_dynamo_resume_in_scale_at_18": 2,
        "inner": 1,
    }
    assert all(f.code_files == () for f in frames)


# --- a dump as an event source (events/load.py: load_dump) -------------------------------------------------


def _analyzed(log, root: Path):
    from torchcompile_doctor.analysis import AnalysisContext, analyze

    return analyze(log, AnalysisContext(target=str(root), root=str(root), offline=True))


def test_a_plain_depyf_dump_yields_guard_events_with_the_incomplete_warning():
    log = load_dump(DUMPS / "module_counter")
    assert [str(t.compile_id) for t in log.guard_trees] == ["0/0", "0/1", "0/2", "0/3"]
    assert {(m.co_name, m.co_filename, m.co_firstlineno) for m in log.metrics} == {
        ("forward", "full_code_for_forward_0.py", None)
    }
    assert [m.compile_id for m in log.metrics] == [t.compile_id for t in log.guard_trees]
    assert [w.message for w in log.warnings] == [INCOMPLETE]
    first = log.guard_trees[0].guards
    assert len(first) == 42 and {"TENSOR_MATCH", "EQUALS_MATCH", "ID_MATCH"} <= {g.kind for g in first}
    count = next(g for g in log.guard_trees[3].guards if g.expression == "L['self'].count == 3")
    assert (count.kind, count.source, count.where) == (
        "EQUALS_MATCH",
        "self.count += 1",
        "sample_models/module_counter.py:17",
    )
    [frame] = _analyzed(log, REPO).guards
    assert (frame.function, frame.file, len(frame.entries)) == ("forward", "full_code_for_forward_0.py", 4)
    assert [e.changed[:1] for e in frame.entries[1:]] == [
        ("self.count: 0 → 1",),
        ("self.count: 1 → 2",),
        ("self.count: 2 → 3",),
    ]


def test_an_observe_dump_gives_the_guard_events_of_the_trace_it_was_made_from(tmp_path):
    """The same C++ guard trees, written as the observe hook writes them, read back as the same events: the
    analysis builds the same frames from them (torch's guard_count and latency are not in a dump)."""
    trace = DATA / "traces" / "dtype_shape_recompile.log"
    traced = load_artifacts(trace)
    metrics = {m.compile_id: m for m in traced.metrics}
    for index, tree in enumerate(traced.guard_trees):
        m = metrics[tree.compile_id]
        header = {
            "function": m.co_name,
            "file": m.co_filename,
            "line": m.co_firstlineno,
            "compile_id": str(m.compile_id),
        }
        leaves = "\n".join(f"{'| ' * g.depth}+- {g.kind}: {g.expression}" + _comment(g) for g in tree.guards)
        text = f"{OBSERVE_HEADER}{json.dumps(header)}\nTREE_GUARD_MANAGER:\n+- RootGuardManager\n{leaves}\n"
        (tmp_path / GUARD_TREE_NAME.format(index=index, function=m.co_name)).write_text(text)
    log = load_dump(tmp_path)
    assert log.guard_trees == traced.guard_trees and log.warnings == []
    from_dump, from_trace = _analyzed(log, REPO).guards, _analyzed(traced, REPO).guards
    assert from_trace and sum(len(f.entries) for f in from_trace) == len(traced.guard_trees) >= 3
    unknown_in_a_dump = {"guard_count": None, "latency_us": None}
    assert [to_json(f) for f in from_dump] == [
        {**to_json(f), "entries": [{**e, **unknown_in_a_dump} for e in to_json(f)["entries"]]} for f in from_trace
    ]


def _comment(guard) -> str:
    if guard.where is None:
        return ""
    return f"  # {guard.source}  # {guard.where} in f" if guard.source else f"  # {guard.where} in f"


def test_a_dump_with_the_capture_in_it_is_read_as_that_capture(tmp_path):
    capture = DATA / "captures" / "helper_two_callsites"
    shutil.copytree(capture, tmp_path / CAPTURE_IN_DUMP)
    shutil.copytree(DUMPS / "module_counter", tmp_path, dirs_exist_ok=True)  # its own files are not needed then
    assert load_dump(tmp_path) == load_artifacts(capture)


def test_not_a_dump_is_a_one_line_doctor_error(tmp_path):
    (tmp_path / "file").write_text("x")
    (tmp_path / "empty").mkdir()
    (tmp_path / "unusable").mkdir()
    (tmp_path / "unusable" / "notes.txt").write_text("x")
    (tmp_path / "unusable" / "full_code_for_f_0.py").write_text("def broken(:\n")
    for path, message in [
        (tmp_path / "nope", "is not a directory"),
        (tmp_path / "file", "is not a directory"),
        (tmp_path / "empty", "nothing to read in .*empty: no trace, no capture, no log records"),
        (tmp_path / "unusable", "no guards in depyf dump"),
    ]:
        with pytest.raises(DoctorError, match=message) as error:
            load_dump(path)
        assert "\n" not in str(error.value)


def test_a_depyf_check_and_a_tree_leaf_are_read_by_the_same_parser():
    check = "L['self'].count == 3  # self.count += 1  # m.py:17 in forward (HINT: make it dynamic)"
    (leaf,) = parse_tree(f"TREE_GUARD_MANAGER:\n+- RootGuardManager\n| +- EQUALS_MATCH: {check}\n")
    assert (
        parse_guard("EQUALS_MATCH", check)
        == leaf
        == Guard("EQUALS_MATCH", "L['self'].count == 3", 1, "self.count += 1", "m.py:17")
    )
