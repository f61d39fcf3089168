"""The calls the capture counts per compiled callable, and the last call during which Dynamo compiled: live,
in this process, on a model whose forward runs eagerly (disabled, not recursively) and calls compiled layers,
as `doctor explain` judges recompiles inside one call by them."""

from __future__ import annotations


def test_a_call_that_compiles_nothing_is_not_counted_as_compiling(tmp_path):
    """Dynamo looks at the non-recursive disable wrapper on every call (its `frames.total` grows each time)
    without compiling anything: the count follows compile ids, so the later calls read as reusing the entries."""
    import torch

    from torchcompile_doctor.capture.call_counts import CallCounts
    from torchcompile_doctor.capture.hooks import _recording_module_calls
    from torchcompile_doctor.events.sidechannel import SideChannel

    class Layer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.fc = torch.nn.Linear(4, 4)

        def forward(self, x: torch.Tensor, bias: torch.Tensor | None = None) -> tuple[torch.Tensor, torch.Tensor]:
            if bias is None:
                bias = torch.zeros(4)
            return self.fc(x) + bias, bias

    class Stack(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = torch.nn.ModuleList(Layer() for _ in range(3))

        @torch.compiler.disable(recursive=False)
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            bias = None
            for layer in self.layers:
                x, bias = layer(x, bias)
            return x

    torch._dynamo.reset()
    compiled = torch.compile(Stack(), backend="eager")
    counts = CallCounts()
    channel = SideChannel(str(tmp_path / "events.jsonl"))  # the calling lines go there
    _recording_module_calls(compiled, channel, counts, None, None)
    frames = torch._dynamo.utils.counters["frames"]
    with torch.no_grad():
        compiled(torch.ones(2, 4))
        looked_at = frames["total"]
        compiled(torch.ones(2, 4))
        compiled(torch.ones(2, 4))
    assert frames["total"] > looked_at  # Dynamo converted a frame on the later calls, and compiled nothing
    ((calls, last_compile_call),) = counts._counts.values()
    assert (calls, last_compile_call) == (3, 1)
    channel.close()
    torch._dynamo.reset()


def test_the_lines_that_call_a_compiled_bound_method_are_recorded(tmp_path):
    """`torch.compile(self.compute_loss)` is called as a plain function is: the line that calls it is noted (the
    probe pass of issue 33: torch's own stacks leave that line out, and a fix at the odd call belongs there)."""
    import json

    import torch

    from torchcompile_doctor.capture.hooks import compile_hook
    from torchcompile_doctor.events.sidechannel import SideChannel

    class Trainer:
        def compute(self, x: torch.Tensor) -> torch.Tensor:
            return x.sin()

    trainer = Trainer()
    events = tmp_path / "events.jsonl"
    channel = SideChannel(str(events))
    torch._dynamo.reset()
    with compile_hook(channel, "eager"):
        compiled = torch.compile(trainer.compute, backend="eager")
        compiled(torch.ones(3))  # the calling line
    channel.close()
    torch._dynamo.reset()
    noted = [json.loads(line) for line in events.read_text(encoding="utf-8").splitlines()]
    sites = [e for e in noted if e.get("event") == "call_site"]
    assert [(s["function"], s["caller"]) for s in sites] == [
        ("compute", "test_the_lines_that_call_a_compiled_bound_method_are_recorded")
    ]
