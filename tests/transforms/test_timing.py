"""The timing transforms (transforms/timing.py) on fixture sources: the timing a compiled function does of itself
moved to wrap each call of it (golden edits), and the sites where that would change what the program computes or
records give no candidate, with why."""

from __future__ import annotations

import pytest

from torchcompile_doctor.patches.edits import edit_source
from torchcompile_doctor.transforms.engine import Built, Dropped
from torchcompile_doctor.transforms.registry import build_named
from torchcompile_doctor.transforms.site import Site

FORWARD = """\
import time

import torch


class Net(torch.nn.Module):
    def forward(self, x):
        t0 = time.perf_counter()
        y = self.body(x).relu()
        self.timings.append(time.perf_counter() - t0)
        return y


cmodel = torch.compile(Net())
for _ in range(3):
    out = cmodel(x)
print(len(cmodel.timings))
"""

FORWARD_AT_CALLER = """\
import time

import torch


class Net(torch.nn.Module):
    def forward(self, x):
        y = self.body(x).relu()
        return y


cmodel = torch.compile(Net())
for _ in range(3):
    t0 = time.perf_counter()
    out = cmodel(x)
    cmodel.timings.append(time.perf_counter() - t0)
print(len(cmodel.timings))
"""

STATS = """\
import time

import torch

stats = {"calls": 0, "seconds": 0.0}


def score(x):
    stats["calls"] += 1
    t0 = time.perf_counter()
    s = (x * x).sum()
    stats["seconds"] += time.perf_counter() - t0
    return s


cscore = torch.compile(score, backend="eager")
s = cscore(x)
"""

STATS_AT_CALLER = """\
import time

import torch

stats = {"calls": 0, "seconds": 0.0}


def score(x):
    s = (x * x).sum()
    return s


cscore = torch.compile(score, backend="eager")
stats["calls"] += 1
t0 = time.perf_counter()
s = cscore(x)
stats["seconds"] += time.perf_counter() - t0
"""

RETURNED = """\
import time

import torch


@torch.compile(backend="eager")
def step(x):
    start = time.time()
    loss = model(x).sum()
    return loss, time.time() - start


for x in batches:
    loss, elapsed = step(x)
    times.append(elapsed)
"""

RETURNED_AT_CALLER = """\
import time

import torch


@torch.compile(backend="eager")
def step(x):
    loss = model(x).sum()
    return loss


for x in batches:
    start = time.time()
    loss = step(x)
    elapsed = time.time() - start
    times.append(elapsed)
"""

TIMER_BLOCK = """\
import time

import torch


class Timer:
    def __init__(self, record):
        self.record = record

    def __enter__(self):
        self.start = time.perf_counter()

    def __exit__(self, *exc):
        self.record.append(time.perf_counter() - self.start)


class Net(torch.nn.Module):
    def forward(self, x):
        with Timer(self.timings):
            h = self.proj(x)
        return h.relu()


model = torch.compile(Net())
out = model(x)
"""

TIMER_UNWRAPPED = """\
import time

import torch


class Timer:
    def __init__(self, record):
        self.record = record

    def __enter__(self):
        self.start = time.perf_counter()

    def __exit__(self, *exc):
        self.record.append(time.perf_counter() - self.start)


class Net(torch.nn.Module):
    def forward(self, x):
        h = self.proj(x)
        return h.relu()


model = torch.compile(Net())
with Timer(model.timings):
    out = model(x)
"""

DECORATED = """\
import time

import torch


def timed(fn):
    def wrapper(*args):
        start = time.perf_counter()
        result = fn(*args)
        TIMINGS[fn.__name__].append(time.perf_counter() - start)
        return result

    return wrapper


@timed
def encode(x):
    return x.tanh()


def forward(x):
    return encode(x).mean()


cforward = torch.compile(forward)
y = cforward(x)
"""

UNDECORATED = """\
import time

import torch


def timed(fn):
    def wrapper(*args):
        start = time.perf_counter()
        result = fn(*args)
        TIMINGS[fn.__name__].append(time.perf_counter() - start)
        return result

    return wrapper


def encode(x):
    return x.tanh()


def forward(x):
    return encode(x).mean()


cforward = torch.compile(forward)
start = time.perf_counter()
y = cforward(x)
TIMINGS[encode.__name__].append(time.perf_counter() - start)
"""

SPENT = """\
import time

import torch


class Net(torch.nn.Module):
    def forward(self, x):
        start = time.perf_counter()
        y = self.body(x)
        self.spent += time.perf_counter() - start
        return y


model = Net()
model = torch.compile(model)
loss = loss_fn(model(x), target)
other = Net()
cother = torch.compile(other)
out = cother(x)
print(model.spent, other.spent)
"""

SPENT_AT_CALLER = """\
import time

import torch


class Net(torch.nn.Module):
    def forward(self, x):
        y = self.body(x)
        return y


model = Net()
model = torch.compile(model)
start = time.perf_counter()
loss = loss_fn(model(x), target)
model.spent += time.perf_counter() - start
other = Net()
cother = torch.compile(other)
start = time.perf_counter()
out = cother(x)
other.spent += time.perf_counter() - start
print(model.spent, other.spent)
"""

IN_DICT = RETURNED.replace("return loss, time.time() - start", 'return {"loss": loss, "seconds": time.time() - start}')
IN_DICT = IN_DICT.replace(
    "loss, elapsed = step(x)\n    times.append(elapsed)", 'out = step(x)\n    times.append(out["seconds"])'
)
IN_DICT_AT_CALLER = RETURNED_AT_CALLER.replace("    return loss\n", '    return {"loss": loss}\n').replace(
    "    loss = step(x)\n    elapsed = time.time() - start\n    times.append(elapsed)",
    '    out = step(x)\n    out["seconds"] = time.time() - start\n    times.append(out["seconds"])',
)

EAGER_TOO = STATS.replace("s = cscore(x)\n", "s = cscore(x)\nreference = score(x)\n")
EAGER_TOO_AT_CALLER = STATS_AT_CALLER + (
    'stats["calls"] += 1\nt0 = time.perf_counter()\nreference = score(x)\n'
    'stats["seconds"] += time.perf_counter() - t0\n'
)
TIMEIT = FORWARD.replace("import time\n", "from timeit import default_timer\n").replace(
    "time.perf_counter()", "default_timer()"
)

# the instance made through a method that returns it, compiled by name: the record is the module's own (`self` read
# as `model`, not as the compiled wrapper, which reads the module's attributes but sets its own)
AN_INSTANCE = FORWARD.replace("cmodel = torch.compile(Net())", "model = Net().eval()\ncmodel = torch.compile(model)")
AN_INSTANCE_AT_CALLER = FORWARD_AT_CALLER.replace(
    "cmodel = torch.compile(Net())", "model = Net().eval()\ncmodel = torch.compile(model)"
).replace("    cmodel.timings.append(", "    model.timings.append(")

GOLDEN = {
    "the function called eagerly too: that call timed alike (the record keeps its count)": (
        "time_at_caller",
        EAGER_TOO,
        10,
        EAGER_TOO_AT_CALLER,
    ),
    "timeit's default_timer": (
        "time_at_caller",
        TIMEIT,
        8,
        FORWARD_AT_CALLER.replace("import time\n", "from timeit import default_timer\n").replace(
            "time.perf_counter()", "default_timer()"
        ),
    ),
    "the elapsed time returned in a dict, set by the caller on the dict it binds": (
        "time_at_caller",
        IN_DICT,
        8,
        IN_DICT_AT_CALLER,
    ),
    "an attribute total, on the module compiled (not its wrapper), a call inside a larger statement": (
        "time_at_caller",
        SPENT,
        10,
        SPENT_AT_CALLER,
    ),
    "a module's forward timing itself: timed around each call of the compiled module": (
        "time_at_caller",
        FORWARD,
        8,
        FORWARD_AT_CALLER,
    ),
    "the record line names the same block": ("time_at_caller", FORWARD, 10, FORWARD_AT_CALLER),
    "an instance made as `Net().eval()`, compiled by name: its own record": (
        "time_at_caller",
        AN_INSTANCE,
        8,
        AN_INSTANCE_AT_CALLER,
    ),
    "a call counter and a seconds total in a global dict, both at the caller": (
        "time_at_caller",
        STATS,
        10,
        STATS_AT_CALLER,
    ),
    "the elapsed time returned beside the loss, bound by the caller": (
        "time_at_caller",
        RETURNED,
        8,
        RETURNED_AT_CALLER,
    ),
    "a `with Timer(...)` block unwrapped, the compiled call put in it": (
        "unwrap_timer_block",
        TIMER_BLOCK,
        11,
        TIMER_UNWRAPPED,
    ),
    "a timing decorator taken off the helper, the compiled call timed into its record": (
        "untimed_helper",
        DECORATED,
        8,
        UNDECORATED,
    ),
}


@pytest.mark.parametrize("name", list(GOLDEN))
def test_the_timing_is_moved_to_the_caller(name: str) -> None:
    transform, source, line, edited = GOLDEN[name]
    made = build_named(transform, Site("prog.py", source, line))
    assert isinstance(made, Built), made
    assert edit_source(source, made.edits) == edited


FEEDS = FORWARD.replace("y = self.body(x).relu()", "y = self.body(x).relu() * t0")
NOT_COMPILED = FORWARD.replace("cmodel = torch.compile(Net())", "cmodel = Net()")
IN_COMPREHENSION = FORWARD.replace("    out = cmodel(x)", "    outs = [cmodel(b) for b in x]")
LOCAL_RECORDED = FORWARD.replace("self.timings.append(", "self.timings.append(y.numel() * ")
TWO_RETURNS = RETURNED.replace(
    "    loss = model(x).sum()\n", "    loss = model(x).sum()\n    if x is None:\n        return loss, 0.0\n"
)
NOT_UNPACKED = RETURNED.replace("loss, elapsed = step(x)", "both = step(x)")
HELPER_IN_LOOP = DECORATED.replace(
    "    return encode(x).mean()", "    for _ in range(2):\n        x = encode(x)\n    return x"
)

REFUSED = {
    "a clock read whose value feeds the computation stays": ("time_at_caller", FEEDS, 8),
    "a function the file never compiles": ("time_at_caller", NOT_COMPILED, 8),
    "a compiled call in a comprehension (one record per item)": ("time_at_caller", IN_COMPREHENSION, 8),
    "a record that reads the function's own values": ("time_at_caller", LOCAL_RECORDED, 8),
    "the elapsed time returned twice": ("time_at_caller", TWO_RETURNS, 8),
    "a caller that does not unpack the returned tuple": ("time_at_caller", NOT_UNPACKED, 8),
    "no timer class at the line": ("unwrap_timer_block", FORWARD, 8),
    "a timer class no compiled function uses": (
        "unwrap_timer_block",
        TIMER_BLOCK.replace("model = torch.compile(Net())", "model = Net()"),
        11,
    ),
    "no decorator's wrapper at the line": ("untimed_helper", FORWARD, 8),
    "a decorated helper called in a loop (one record per call of it)": ("untimed_helper", HELPER_IN_LOOP, 8),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_no_move_where_it_would_change_what_runs_or_is_recorded(name: str) -> None:
    transform, source, line = REFUSED[name]
    made = build_named(transform, Site("prog.py", source, line))
    assert isinstance(made, Dropped) and made.reason, made


def test_guard_timer_stays_the_alternative_at_the_same_site() -> None:
    """Both are built at a forward's clock read; the trials measure them and keep the best."""
    for name in ("time_at_caller", "guard_timer"):
        assert isinstance(build_named(name, Site("prog.py", FORWARD, 8)), Built)
