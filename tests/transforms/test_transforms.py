"""Each transform on a fixture source: the edited file as `doctor fix` writes it (golden), the hunk the report
prints is that edit's, and the site where its precondition does not hold gives no candidate, with why."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from torchcompile_doctor.patches.edits import edit_source
from torchcompile_doctor.transforms.engine import Built, Dropped
from torchcompile_doctor.transforms.registry import TRANSFORMS, build_named
from torchcompile_doctor.transforms.site import Site, SiteFacts


@dataclass(frozen=True)
class Case:
    transform: str
    source: str
    line: int
    edited: str | None  # None: the precondition does not hold, no candidate
    facts: SiteFacts = SiteFacts()


LOOP = "import torch\n\nfor step in range(3):\n    out = cmodel(x, scale=float(step + 1))  # the scale\n"
PRINTS = "import torch\n\n\ndef f(x):\n    print('x', x.shape)\n    y = x.sin()\n    return y\n"
ITEM = "import torch\n\n\ndef f(h):\n    n = int(h.norm().item())  # a count\n    return n\n"
BRANCH = "import torch\n\n\ndef f(x):\n    if x.sum() > 0:\n        y = x\n    else:\n        y = -x\n    return y\n"
NUMPY = "import numpy as np\nimport torch\n\n\ndef f(x):\n    return np.clip(x.numpy(), 0, 1)\n"
COUNTER = (
    "import torch\n\n\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.step = 0\n\n    def forward(self, x):\n        self.step += 1\n        return x * 2\n"
)
OPTIM = "import torch\n\nopt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)\n"
DTYPE = "import torch\n\nf(torch.randn(4))\nf(torch.randn(4))\nf(x64)\n"
MODEL_CALL = "import torch\n\nout = model(ids, attention_mask=mask)\n"
PENALTY = (
    "import torch\nfrom torch import nn\n\ncritic = nn.Sequential(nn.Linear(6, 1))\n\n\n"
    '@torch.compile(backend="eager")\ndef penalty(real, alpha):\n'
    "    x = (alpha * real).requires_grad_(True)\n"
    "    (g,) = torch.autograd.grad(critic(x).sum(), x, create_graph=True)\n"
    "    return g.norm()\n"
)
SWEEP = "import torch\n\nfor width in range(12):\n    model = torch.compile(make(width))\n    out = model(x)\n"
DETECT = """\
import torch


@torch.compile
def detect(x, thr=0.5):
    scores = net(x).sigmoid()
    keep = scores > thr
    return scores[keep]
"""
DETECT_SPLIT = """\
import torch


@torch.compile
def _detect_network(x, thr=0.5):
    scores = net(x).sigmoid()
    return scores


def detect(x, thr=0.5):
    scores = _detect_network(x, thr)
    keep = scores > thr
    return scores[keep]
"""

CONFIG_READ = """\
import json

import torch


class Head(torch.nn.Module):
    def forward(self, x):
        config = json.loads(CONFIG.read_text())
        return x * config["scale"]
"""
PROBE = "import torch\n\n\ndef f(x):\n    if torch.cuda.device_count() > 1:\n        return x * 2\n    return x\n"
LOOP_TQDM = (
    "from tqdm import tqdm\n\n\ndef f(self, x):\n    for block in tqdm(self.blocks, desc='b'):\n"
    "        x = block(x)\n    return x\n"
)
EAGER = "import torch\n\nmodel = torch.compile(net, backend='eager')\nout = model(x)\nlow = model(x.half())\n"
PLUGIN = """\
import importlib

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, activation="torch.nn.functional:silu"):
        super().__init__()
        self.activation = activation
        self.fc = nn.Linear(12, 12)

    def forward(self, x):
        module_name, func_name = self.activation.split(":")
        act = getattr(importlib.import_module(module_name), func_name)
        return act(self.fc(x))
"""
PLUGIN_HOISTED = PLUGIN.replace(
    """        module_name, func_name = self.activation.split(":")
        act = getattr(importlib.import_module(module_name), func_name)
        return act(self.fc(x))
""",
    "        return self.act(self.fc(x))\n",
).replace(
    "        self.fc = nn.Linear(12, 12)\n",
    "        self.fc = nn.Linear(12, 12)\n"
    "        self.module_name, self.func_name = self.activation.split(':')\n"
    "        self.act = getattr(importlib.import_module(self.module_name), self.func_name)\n",
)

TIMER = """\
import time

import torch


class Net(torch.nn.Module):
    def forward(self, x):
        y = self.body(x)
        t0 = time.perf_counter()
        y = y.relu()
        self.spent += time.perf_counter() - t0
        return y
"""

INTERP = """\
import numpy as np
import torch


class Calibrated(torch.nn.Module):
    def forward(self, x):
        raw = torch.sigmoid(x)
        calibrated = np.interp(raw.detach().numpy(), [0.0, 0.5, 1.0], [0.0, 0.3, 1.0])
        return torch.from_numpy(calibrated).float()
"""
INTERP_TORCH = '''\
import numpy as np
import torch


def _torch_interp(x, xp, fp):
    """`np.interp(x, xp, fp)` in torch ops (xp increasing; outside it, fp's end values)."""
    xp = torch.as_tensor(xp, dtype=x.dtype, device=x.device)
    fp = torch.as_tensor(fp, dtype=x.dtype, device=x.device)
    right = torch.searchsorted(xp, x.contiguous()).clamp(1, len(xp) - 1)
    x0, x1, y0, y1 = xp[right - 1], xp[right], fp[right - 1], fp[right]
    inside = y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return torch.where(x <= xp[0], fp[0], torch.where(x >= xp[-1], fp[-1], inside))


class Calibrated(torch.nn.Module):
    def forward(self, x):
        raw = torch.sigmoid(x)
        calibrated = _torch_interp(raw.detach(), [0.0, 0.5, 1.0], [0.0, 0.3, 1.0])
        return calibrated.float()
'''
RESIZED = """\
import torch


@torch.compile
def distances(points, out):
    n = points.shape[0]
    out.resize_(n, n)
    diff = points.unsqueeze(0) - points.unsqueeze(1)
    out.copy_(diff.pow(2).sum(-1))
    return out
"""

STEP = """\
import torch


@torch.compile(backend="eager")
def train_step(x, y):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    return loss
"""
STEP_SPLIT = """\
import torch


@torch.compile(backend="eager")
def _train_step_compiled(x, y):
    loss = loss_fn(model(x), y)
    return loss


def train_step(x, y):
    opt.zero_grad()
    loss = _train_step_compiled(x, y)
    loss.backward()
    opt.step()
    return loss
"""
TOKENIZE = """\
import torch


@torch.compile
def classify(sentences):
    ids = torch.tensor([[VOCAB[w] for w in s.split()] for s in sentences])
    return net(ids).softmax(-1)
"""
TOKENIZE_SPLIT = """\
import torch


@torch.compile
def _classify_compiled(ids):
    return net(ids).softmax(-1)


def classify(sentences):
    ids = torch.tensor([[VOCAB[w] for w in s.split()] for s in sentences])
    return _classify_compiled(ids)
"""

AUGMENT = """\
import numpy as np
import torch


class Augment(torch.nn.Module):
    def forward(self, x):
        scale = np.random.uniform(0.8, 1.2)
        return x * float(scale)
"""

UNROLLED = """\
import torch


@torch.compile(backend="eager")
def integrate(x, dt, n_steps):
    h = x * 0
    for _ in range(n_steps):
        h = h + dt
        x = x + dt * torch.tanh(x + h)
    return x


for n in (4, 6, 8):
    out = integrate(x0, 0.1, n)
"""
UNROLLED_BODY = """\
import torch


@torch.compile(backend="eager")
def _integrate_step(h, dt, x):
    h = h + dt
    x = x + dt * torch.tanh(x + h)
    return h, x


def integrate(x, dt, n_steps):
    h = x * 0
    for _ in range(n_steps):
        h, x = _integrate_step(h, dt, x)
    return x


for n in (4, 6, 8):
    out = integrate(x0, 0.1, n)
"""

REFINER = """\
import torch


class Refiner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.update = torch.nn.Linear(4, 4)

    def forward(self, x, iters):
        flow = x * 0
        for _ in range(iters):
            flow = flow + self.update(x + flow)
        return flow


model = Refiner().eval()
compiled = torch.compile(model, backend="eager")
out = compiled(x, 3)
"""
REFINER_STEP = """\
import torch


class Refiner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.update = torch.nn.Linear(4, 4)

    @torch.compile(backend="eager")
    def _forward_step(self, flow, x):
        flow = flow + self.update(x + flow)
        return flow

    def forward(self, x, iters):
        flow = x * 0
        for _ in range(iters):
            flow = self._forward_step(flow, x)
        return flow


model = Refiner().eval()
compiled = model
out = compiled(x, 3)
"""

KV_CACHE = """\
import torch


class CachedAttention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.k_cache = torch.zeros(0, 8)
        self.v_cache = torch.zeros(0, 8)

    def forward(self, q, k, v):
        self.k_cache = torch.cat([self.k_cache, k], dim=0)
        self.v_cache = torch.cat((self.v_cache, v))
        return torch.softmax(q @ self.k_cache.T, -1) @ self.v_cache


attn = CachedAttention()
step = torch.compile(attn, backend="eager")
for _ in range(9):
    out = step(q, k, v)
"""

HUBER_STEP = """\
import torch
import torch.nn.functional as F


@torch.compile(backend="eager")
def step(x, y, delta):
    return F.huber_loss(x, y, delta=delta)


for i in range(9):
    out = step(x, y, 0.5 + i / 10)
"""
HUBER_HELPER = """\
def huber_loss(input, target, reduction="mean", delta=1.0):
    # F.huber_loss with `delta` a tensor: graph data, not a constant
    error = (input - target).abs()
    loss = torch.where(error < delta, 0.5 * error**2, delta * (error - 0.5 * delta))
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


"""
SLOPE_MODULE = """\
import torch


class Probe(torch.nn.Module):
    def forward(self, h, slope):
        return torch.nn.functional.leaky_relu(h, slope)


probe = torch.compile(Probe(), backend="eager")
for s in (0.1, 0.2, 0.3):
    out = probe(h, slope=s)
"""
SLOPE_HELPER = """\
def leaky_relu(input, negative_slope=0.01, inplace=False):
    # F.leaky_relu with `negative_slope` a tensor: graph data, not a constant
    return torch.where(input > 0, input, input * negative_slope)


"""
CONTEXT_BUFFER = """\
import torch


class Context(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("seen", torch.zeros(2, 0, 8))

    def forward(self, h):
        self.seen = torch.cat([self.seen, h[:, None]], dim=1)
        return self.seen.mean(dim=1)


model = Context()
compiled = torch.compile(model, backend="eager")
for _ in range(9):
    out = compiled(h)
"""
DICT_CACHES = """\
import torch


class Layer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.caches = {"k": torch.zeros(0, 8), "v": torch.zeros(0, 8)}

    def forward(self, k, v):
        self.caches["k"] = torch.cat([self.caches["k"], k])
        self.caches["v"] = torch.cat([self.caches["v"], v])
        return self.caches["k"].T @ self.caches["v"]


layer = torch.compile(Layer(), backend="eager")
for _ in range(9):
    out = layer(k, v)
"""

LIST_CACHES = """\
import torch


class Decoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in range(3))
        self.caches = [torch.zeros(0, 8) for _ in range(3)]

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            self.caches[i] = torch.cat([self.caches[i], layer(x)], dim=0)
        return self.caches[-1].sum(0)


decoder = Decoder()
step = torch.compile(decoder, backend="eager")
for _ in range(9):
    out = step(x)
"""

PHASES = """\
import torch


class Trainer:
    def __init__(self):
        self.loss_fn = torch.compile(self.compute)

    def run(self, phase, x):
        with torch.set_grad_enabled(phase == "train"):
            loss = self.loss_fn(x)
        return loss
"""

CASES = {
    "eager_call: the odd call on the eager module": Case(
        "eager_call", EAGER, 5, EAGER.replace("low = model(x.half())", "low = net(x.half())")
    ),
    "eager_call: a model not compiled by name here": Case("eager_call", EAGER, 3, None),
    "eager_call: a method compiled as an attribute": Case(
        "eager_call",
        PHASES,
        10,
        PHASES.replace("loss = self.loss_fn(x)", "loss = self.compute(x)"),
    ),
    "eager_call_without_grad: the compiled method with grad on, the eager one with grad off": Case(
        "eager_call_without_grad",
        PHASES,
        10,
        PHASES.replace(
            "loss = self.loss_fn(x)", "loss = (self.loss_fn if torch.is_grad_enabled() else self.compute)(x)"
        ),
    ),
    "eager_call_without_grad: a line that calls nothing compiled": Case("eager_call_without_grad", PHASES, 11, None),
    # the choice names torch: in a file that never imports it the trial would end in a NameError
    "eager_call_without_grad: never in a file without `import torch`": Case(
        "eager_call_without_grad", PHASES.replace("import torch\n", "import numpy\n"), 10, None
    ),
    "raise_recompile_limit: a sweep's size, after import torch": Case(
        "raise_recompile_limit",
        SWEEP,
        4,
        SWEEP.replace(
            "import torch\n",
            "import torch\ntorch._dynamo.config.recompile_limit = 12"
            "  # one compile per item of the sweep is inherent\n",
        ),
        SiteFacts(sweep_items=12, sweep_loop=3),
    ),
    "raise_recompile_limit: no sweep": Case("raise_recompile_limit", SWEEP, 4, None),
    "compile_loop_body: the body of a loop over a changing bound compiled, the loop left in Python": Case(
        "compile_loop_body", UNROLLED, 14, UNROLLED_BODY, SiteFacts(variable="n_steps")
    ),
    "compile_loop_body: at the compiled function's own line too": Case(
        "compile_loop_body", UNROLLED, 5, UNROLLED_BODY, SiteFacts(variable="n_steps")
    ),
    "compile_loop_body: the body reads the loop's index": Case(
        "compile_loop_body",
        UNROLLED.replace("h = h + dt\n", "h = h + dt * i\n").replace("for _ in", "for i in"),
        14,
        None,
        SiteFacts(variable="n_steps"),
    ),
    "compile_forward_loop_body: a module compiled whole: its forward's loop body a compiled method": Case(
        "compile_forward_loop_body", REFINER, 9, REFINER_STEP, SiteFacts(variable="iters")
    ),
    "compile_forward_loop_body: at the line calling the compiled module too": Case(
        "compile_forward_loop_body", REFINER, 18, REFINER_STEP, SiteFacts(variable="iters")
    ),
    "compile_forward_loop_body: the module is not compiled in this file": Case(
        "compile_forward_loop_body",
        REFINER.replace('torch.compile(model, backend="eager")', "model"),
        9,
        None,
        SiteFacts(variable="iters"),
    ),
    "op_written_out: a loss's float the op needs as a number: the op written with torch ops, the value a tensor": Case(
        "op_written_out",
        HUBER_STEP,
        11,
        HUBER_STEP.replace("@torch.compile(", HUBER_HELPER + "@torch.compile(")
        .replace("F.huber_loss(x", "huber_loss(x")
        .replace("step(x, y, 0.5 + i / 10)", "step(x, y, torch.tensor(0.5 + i / 10))"),
        SiteFacts(variable="delta", passed="0.5 + i / 10"),
    ),
    "op_written_out: an activation's slope passed by position in a compiled module's forward": Case(
        "op_written_out",
        SLOPE_MODULE,
        11,
        SLOPE_MODULE.replace("class Probe", SLOPE_HELPER + "class Probe")
        .replace("torch.nn.functional.leaky_relu(h", "leaky_relu(h")
        .replace("slope=s)", "slope=torch.tensor(s))"),
        SiteFacts(variable="slope", passed="s"),
    ),
    "op_written_out: an in-place activation (the helper does not honour `inplace=`)": Case(
        "op_written_out",
        SLOPE_MODULE.replace("leaky_relu(h, slope)", "leaky_relu(h, slope, inplace=True)"),
        11,
        None,
        SiteFacts(variable="slope", passed="s"),
    ),
    "op_written_out: the float reaches no op that needs a number": Case(
        "op_written_out",
        HUBER_STEP.replace("F.huber_loss(x, y, delta=delta)", "(x - y).abs().clamp(max=delta).mean()"),
        11,
        None,
        SiteFacts(variable="delta", passed="0.5 + i / 10"),
    ),
    "tensor_argument: not where the op consuming it needs a Python number (a tensor breaks there)": Case(
        "tensor_argument", HUBER_STEP, 11, None, SiteFacts(variable="delta", passed="0.5 + i / 10")
    ),
    "mark_growing_cache: a registered buffer grown on dim 1, from the line calling the compiled module": Case(
        "mark_growing_cache",
        CONTEXT_BUFFER,
        17,
        CONTEXT_BUFFER.replace(
            "import torch\n", "import torch\ntorch._dynamo.config.force_parameter_static_shapes = False\n", 1
        ).replace(
            "    out = compiled(h)", "    torch._dynamo.decorators.mark_unbacked(model.seen, 1)\n    out = compiled(h)"
        ),
        SiteFacts(variable="self.seen", dim="1", first_value="0"),
    ),
    "mark_growing_cache: a dict's caches, on a module compiled where it is made": Case(
        "mark_growing_cache",
        DICT_CACHES,
        16,
        DICT_CACHES.replace(
            "    out = layer(k, v)",
            "    torch._dynamo.decorators.mark_unbacked(layer.caches['k'], 0)\n"
            "    torch._dynamo.decorators.mark_unbacked(layer.caches['v'], 0)\n    out = layer(k, v)",
        ),
        SiteFacts(variable="self.caches['k']", dim="0", first_value="0"),
    ),
    "mark_growing_cache: a list's caches grown in a loop over the layers, each item marked": Case(
        "mark_growing_cache",
        LIST_CACHES,
        20,
        LIST_CACHES.replace(
            "    out = step(x)",
            "    for grown in decoder.caches:\n        torch._dynamo.decorators.mark_unbacked(grown, 0)\n"
            "    out = step(x)",
        ),
        SiteFacts(variable="self.caches[0]", dim="0", first_value="0"),
    ),
    "mark_growing_cache: a list item grown by its own index is marked alone": Case(
        "mark_growing_cache",
        LIST_CACHES.replace("self.caches[i]", "self.caches[0]"),
        20,
        LIST_CACHES.replace("self.caches[i]", "self.caches[0]").replace(
            "    out = step(x)", "    torch._dynamo.decorators.mark_unbacked(decoder.caches[0], 0)\n    out = step(x)"
        ),
        SiteFacts(variable="self.caches[0]", dim="0", first_value="0"),
    ),
    "mark_growing_cache: a tensor passed in, no module's (mark_dynamic marks it at the call)": Case(
        "mark_growing_cache", DICT_CACHES, 16, None, SiteFacts(variable="k", dim="0", first_value="0")
    ),
    "mark_growing_cache: every cache the module grows marked before the call of the compiled module": Case(
        "mark_growing_cache",
        KV_CACHE,
        11,
        KV_CACHE.replace(
            "    out = step(q, k, v)",
            "    torch._dynamo.decorators.mark_unbacked(attn.k_cache, 0)\n"
            "    torch._dynamo.decorators.mark_unbacked(attn.v_cache, 0)\n    out = step(q, k, v)",
        ),
        SiteFacts(variable="self.k_cache", dim=0, first_value="0"),
    ),
    "mark_growing_cache: a cache first compiled at 3 rows is marked dynamic": Case(
        "mark_growing_cache",
        KV_CACHE,
        11,
        KV_CACHE.replace(
            "    out = step(q, k, v)",
            "    torch._dynamo.mark_dynamic(attn.k_cache, 0)\n    torch._dynamo.mark_dynamic(attn.v_cache, 0)\n"
            "    out = step(q, k, v)",
        ),
        SiteFacts(variable="self.k_cache", dim=0, first_value="3"),
    ),
    "mark_growing_cache: the module is not compiled in this file": Case(
        "mark_growing_cache",
        KV_CACHE.replace('torch.compile(attn, backend="eager")', "attn"),
        11,
        None,
        SiteFacts(variable="self.k_cache", dim=0, first_value="0"),
    ),
    "mark_growing_cache: an attribute not grown by torch.cat": Case(
        "mark_growing_cache", KV_CACHE, 11, None, SiteFacts(variable="self.mask", dim=0)
    ),
    "compile_loop_body: the int bounds no loop": Case(
        "compile_loop_body", UNROLLED, 14, None, SiteFacts(variable="dt")
    ),
    "compile_loop_body: the body breaks out": Case(
        "compile_loop_body",
        UNROLLED.replace("        h = h + dt\n", "        if n_steps > 5:\n            break\n"),
        14,
        None,
        SiteFacts(variable="n_steps"),
    ),
    "compile_called_modules: the penalty eager, the critic compiled": Case(
        "compile_called_modules",
        PENALTY,
        9,
        PENALTY.replace(
            '\n@torch.compile(backend="eager")\ndef penalty',
            '\ncompiled_critic = torch.compile(critic, backend="eager")\n\n\ndef penalty',
        ).replace("torch.autograd.grad(critic(x).sum()", "torch.autograd.grad(compiled_critic(x).sum()"),
    ),
    "compile_called_modules: no module of the file called": Case(
        "compile_called_modules", PENALTY.replace("critic(x)", "f(x)"), 9, None
    ),
    "compile_called_modules: no gradient computed in it": Case(
        "compile_called_modules",
        PENALTY.replace(
            "    (g,) = torch.autograd.grad(critic(x).sum(), x, create_graph=True)\n", "    g = critic(x)\n"
        ).replace(".requires_grad_(True)", ""),
        9,
        None,
    ),
    "reset_between_items: the caches reset as each item starts": Case(
        "reset_between_items",
        SWEEP,
        4,
        SWEEP.replace("    model =", "    torch.compiler.reset()\n    model ="),
        SiteFacts(sweep_items=12, sweep_loop=3),
    ),
    "unwrap_progress: the plain iterable": Case(
        "unwrap_progress", LOOP_TQDM, 5, LOOP_TQDM.replace("tqdm(self.blocks, desc='b')", "self.blocks")
    ),
    "unwrap_progress: no progress bar": Case(
        "unwrap_progress", LOOP_TQDM.replace("tqdm(self.blocks, desc='b')", "self.blocks"), 5, None
    ),
    "hoist_to_module: a config read moved to import time": Case(
        "hoist_to_module",
        CONFIG_READ,
        8,
        CONFIG_READ.replace("        config = json.loads(CONFIG.read_text())\n", "").replace(
            "\n\n\nclass Head", "\n\n\nconfig = json.loads(CONFIG.read_text())\n\n\nclass Head"
        ),
    ),
    "hoist_to_module: reads the function's input": Case(
        "hoist_to_module", CONFIG_READ.replace("CONFIG.read_text()", "x.read_text()"), 8, None
    ),
    "hoist_to_init: an import in forward done once in __init__": Case("hoist_to_init", PLUGIN, 15, PLUGIN_HOISTED),
    "hoist_to_init: reads the call's input": Case(
        "hoist_to_init", PLUGIN.replace("self.activation.split", "x.name.split"), 15, None
    ),
    "hoist_to_init: the attribute it reads is set in forward too": Case(
        "hoist_to_init",
        PLUGIN.replace("        return act(", "        self.activation = 'x:y'\n        return act("),
        15,
        None,
    ),
    "guard_timer: the clock reads and what uses them, for eager calls only": Case(
        "guard_timer",
        TIMER,
        9,
        TIMER.replace(
            "        t0 = time", "        if not torch.compiler.is_compiling():\n            t0 = time"
        ).replace("        self.spent", "        if not torch.compiler.is_compiling():\n            self.spent"),
    ),
    "guard_timer: the time is returned": Case("guard_timer", TIMER.replace("return y", "return y, t0"), 9, None),
    "hoist_probe: the device count read once": Case(
        "hoist_probe",
        PROBE,
        5,
        "import torch\n\n\nDEVICE_COUNT = torch.cuda.device_count()\n\n\ndef f(x):\n"
        "    if DEVICE_COUNT > 1:\n        return x * 2\n    return x\n",
    ),
    "hoist_probe: no probe": Case("hoist_probe", PROBE.replace("torch.cuda.device_count()", "x.sum()"), 5, None),
    "math_to_torch: the torch twin": Case(
        "math_to_torch",
        "import math\nimport torch\n\n\ndef f(x, t):\n    return x / math.exp(t)\n",
        6,
        "import math\nimport torch\n\n\ndef f(x, t):\n    return x / torch.exp(t)\n",
    ),
    "math_to_torch: no twin": Case(
        "math_to_torch", "import math\n\n\ndef f(x, t):\n    return x / math.gamma(t)\n", 5, None
    ),
    "detach_out_of_place: the name rebound": Case(
        "detach_out_of_place",
        "def f(pred, target):\n    target.detach_()\n    return pred - target\n",
        2,
        "def f(pred, target):\n    target = target.detach()\n    return pred - target\n",
    ),
    "detach_out_of_place: no detach_": Case(
        "detach_out_of_place", "def f(pred, target):\n    target.zero_()\n    return pred\n", 2, None
    ),
    "data_write_no_grad: the write under no_grad": Case(
        "data_write_no_grad",
        "import torch\n\n\ndef f(p):\n    p.data.mul_(0.9)\n    return p\n",
        5,
        "import torch\n\n\ndef f(p):\n    with torch.no_grad():\n        p.mul_(0.9)\n    return p\n",
    ),
    "data_write_no_grad: no .data": Case("data_write_no_grad", "def f(p):\n    p.mul_(0.9)\n    return p\n", 2, None),
    "compile_network_only: the network compiled, the post-processing after it": Case(
        "compile_network_only", DETECT, 7, DETECT_SPLIT
    ),
    "compile_network_only: not compiled by decorator": Case(
        "compile_network_only", DETECT.replace("@torch.compile\n", ""), 6, None
    ),
    "interp_to_torch: np.interp in torch ops, the tensor used as one": Case("interp_to_torch", INTERP, 8, INTERP_TORCH),
    "interp_to_torch: the result read as a numpy array": Case(
        "interp_to_torch", INTERP.replace("torch.from_numpy(calibrated).float()", "calibrated.sum()"), 8, None
    ),
    "interp_to_torch: values not read from a tensor": Case(
        "interp_to_torch", INTERP.replace("raw.detach().numpy()", "points"), 8, None
    ),
    "fresh_tensor_for_resized: the copy made a fresh local tensor": Case(
        "fresh_tensor_for_resized",
        RESIZED,
        7,
        RESIZED.replace("    out.resize_(n, n)\n", "").replace(
            "out.copy_(diff.pow(2).sum(-1))", "out = diff.pow(2).sum(-1)"
        ),
    ),
    "fresh_tensor_for_resized: the resized input read before the copy": Case(
        "fresh_tensor_for_resized", RESIZED.replace("    diff = points", "    out.zero_()\n    diff = points"), 7, None
    ),
    "compile_region: forward and loss compiled, the step's Python around them eager": Case(
        "compile_region", STEP, 8, STEP_SPLIT
    ),
    "compile_region: the tokenization a recompile guards left eager": Case(
        "compile_region", TOKENIZE, 4, TOKENIZE_SPLIT, SiteFacts(variable="sentences[0]")
    ),
    "compile_region: the guard on a global, not a parameter": Case(
        "compile_region", TOKENIZE, 4, None, SiteFacts(variable="net")
    ),
    "compile_region: nothing eager before the region": Case(
        "compile_region", STEP.replace("    opt.zero_grad()\n", ""), 7, None
    ),
    "numpy_random_to_torch: the draw made by torch, the same shape and dtype": Case(
        "numpy_random_to_torch",
        AUGMENT,
        7,
        AUGMENT.replace(
            "np.random.uniform(0.8, 1.2)", "torch.empty((), dtype=torch.float64).uniform_(0.8, 1.2)"
        ).replace("float(scale)", "scale"),
    ),
    "numpy_random_to_torch: an integer draw below one bound": Case(
        "numpy_random_to_torch",
        AUGMENT.replace("np.random.uniform(0.8, 1.2)", "np.random.randint(5, size=3)"),
        7,
        AUGMENT.replace("np.random.uniform(0.8, 1.2)", "torch.randint(0, 5, (3,))").replace("float(scale)", "scale"),
    ),
    "numpy_random_to_torch: a draw that reads the function's input": Case(
        "numpy_random_to_torch", AUGMENT.replace("uniform(0.8, 1.2)", "uniform(0.8, x)"), 7, None
    ),
    "numpy_draw_kept_eager: numpy's stream kept, the value a tensor": Case(
        "numpy_draw_kept_eager",
        AUGMENT,
        7,
        AUGMENT.replace(
            "\n\n\nclass Augment",
            "\n\n\n@torch.compiler.disable\ndef _scale_drawn():\n    return torch.tensor(np.random.uniform(0.8, 1.2))"
            "\n\n\nclass Augment",
        )
        .replace("np.random.uniform(0.8, 1.2)\n        return", "_scale_drawn()\n        return")
        .replace("float(scale)", "scale"),
    ),
    "numpy_draw_kept_eager: no numpy draw": Case("numpy_draw_kept_eager", AUGMENT, 8, None),
    "tensor_argument: a keyword's value wrapped, its name kept (bug 3)": Case(
        "tensor_argument",
        LOOP,
        4,
        LOOP.replace("scale=float(step + 1)", "scale=torch.tensor(float(step + 1))"),
        SiteFacts(variable="scale"),
    ),
    "tensor_argument: a positional argument": Case(
        "tensor_argument",
        "import torch\n\nout = f(x, step)\n",
        3,
        "import torch\n\nout = f(x, torch.tensor(step))\n",
        SiteFacts(variable="step"),
    ),
    "tensor_argument: not passed at the line": Case(
        "tensor_argument", "import torch\n\nout = f(x)\n", 3, None, SiteFacts(variable="step")
    ),
    "guard_is_compiling: a print": Case(
        "guard_is_compiling",
        PRINTS,
        5,
        PRINTS.replace(
            "    print('x', x.shape)\n", "    if not torch.compiler.is_compiling():\n        print('x', x.shape)\n"
        ),
    ),
    "guard_is_compiling: never an assignment": Case("guard_is_compiling", PRINTS, 6, None),
    # the guard names torch: in a file that never imports it the trial would end in a NameError
    "guard_is_compiling: never in a file without `import torch`": Case(
        "guard_is_compiling", PRINTS.removeprefix("import torch\n\n\n"), 2, None
    ),
    "guard_timer: never in a file without `import torch`": Case(
        "guard_timer", TIMER.replace("import torch\n", "import numpy\n"), 9, None
    ),
    "drop_item: the tensor kept": Case("drop_item", ITEM, 5, ITEM.replace("int(h.norm().item())", "h.norm().long()")),
    "drop_item: no .item()": Case("drop_item", ITEM, 6, None),
    "drop_tolist: the tensor kept": Case(
        "drop_tolist",
        "import torch\n\n\ndef f(x):\n    ids = list(x.tolist())\n    return ids\n",
        5,
        "import torch\n\n\ndef f(x):\n    ids = x\n    return ids\n",
    ),
    "branchless_where: if/else assignment": Case(
        "branchless_where",
        BRANCH,
        5,
        "import torch\n\n\ndef f(x):\n    y = torch.where(x.sum() > 0, x, -x)\n    return y\n",
    ),
    "branchless_where: no if": Case("branchless_where", BRANCH, 9, None),
    "numpy_to_torch: the twin from the table": Case(
        "numpy_to_torch", NUMPY, 6, NUMPY.replace("np.clip(x.numpy(), 0, 1)", "torch.clamp(x, 0, 1)")
    ),
    "numpy_to_torch: no twin": Case("numpy_to_torch", NUMPY.replace("np.clip", "np.polyfit"), 6, None),
    "module_counter_buffer: a buffer set in __init__, added to in forward": Case(
        "module_counter_buffer",
        COUNTER,
        10,
        COUNTER.replace("self.step = 0", 'self.register_buffer("step", torch.tensor(0))').replace(
            "self.step += 1", "self.step.add_(1)"
        ),
        SiteFacts(attribute="step"),
    ),
    "module_counter_buffer: no number set in __init__": Case(
        "module_counter_buffer", COUNTER.replace("self.step = 0", "pass"), 10, None, SiteFacts(attribute="step")
    ),
    "tensor_hyperparameter: the optimizer's lr": Case(
        "tensor_hyperparameter",
        OPTIM,
        3,
        OPTIM.replace("lr=0.01", "lr=torch.tensor(0.01)"),
        SiteFacts(hyperparameter="lr"),
    ),
    "tensor_hyperparameter: a tensor already": Case(
        "tensor_hyperparameter",
        OPTIM.replace("lr=0.01", "lr=torch.tensor(0.01)"),
        3,
        None,
        SiteFacts(hyperparameter="lr"),
    ),
    "cast_at_call_site: at the odd call": Case(
        "cast_at_call_site",
        DTYPE,
        5,
        DTYPE.replace("f(x64)", "f(x64.to(torch.float32))"),
        SiteFacts(passed="x64", first_value="float32"),
    ),
    "mark_dynamic: before the call": Case(
        "mark_dynamic",
        "import torch\n\nout = f(k)\n",
        3,
        "import torch\n\ntorch._dynamo.mark_dynamic(k, 0)\nout = f(k)\n",
        SiteFacts(variable="k", dim=0),
    ),
    "mark_dynamic: a tensor grown from one row is marked unbacked (torch specializes sizes 0 and 1)": Case(
        "mark_dynamic",
        "import torch\n\nfor _ in range(9):\n    out = attend(q, history)\n    history = torch.cat([history, out])\n",
        4,
        "import torch\n\nfor _ in range(9):\n    torch._dynamo.decorators.mark_unbacked(history, 0)\n"
        "    out = attend(q, history)\n    history = torch.cat([history, out])\n",
        SiteFacts(variable="history", dim=0, first_value="1"),
    ),
    "mark_dynamic: a size first seen at 2 is marked dynamic": Case(
        "mark_dynamic",
        "import torch\n\nout = f(k)\n",
        3,
        "import torch\n\ntorch._dynamo.mark_dynamic(k, 0)\nout = f(k)\n",
        SiteFacts(variable="k", dim=0, first_value="2"),
    ),
    "drop_passed_argument: the keyword the library branches on": Case(
        "drop_passed_argument",
        MODEL_CALL,
        3,
        "import torch\n\nout = model(ids)\n",
        SiteFacts(branched_argument="attention_mask"),
    ),
    "pass_left_out_argument: the library's default passed": Case(
        "pass_left_out_argument",
        "import torch\n\nout = model(ids)\n",
        3,
        "import torch\n\nout = model(ids, attention_mask=torch.ones_like(ids))\n",
        SiteFacts(none_argument="attention_mask", none_argument_value="torch.ones_like(ids)"),
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_transform_edits_the_fixture_as_expected(name: str) -> None:
    case = CASES[name]
    made = build_named(case.transform, Site("prog.py", case.source, case.line, case.facts))
    if case.edited is None:
        assert isinstance(made, Dropped) and made.reason
        return
    assert isinstance(made, Built), made
    assert edit_source(case.source, made.edits) == case.edited


@pytest.mark.parametrize("name", [n for n, c in CASES.items() if c.edited is not None])
def test_the_hunk_printed_is_the_edit_written(name: str) -> None:
    """The report's before/after are the lines of the source the edit changes, as written (dedented alike; runs of
    changes far apart joined by a `...` line)."""
    case = CASES[name]
    made = build_named(case.transform, Site("prog.py", case.source, case.line, case.facts))
    assert isinstance(made, Built)
    edited = edit_source(case.source, made.edits)
    for shown, text in ((made.hunk.before, case.source), (made.hunk.after, edited)):
        lines = [line.strip() for line in text.splitlines()]
        for piece in shown.split("\n...\n"):
            wanted = [line.strip() for line in piece.splitlines()]
            assert any(lines[i : i + len(wanted)] == wanted for i in range(len(lines))), (piece, text)
    assert made.hunk.after.strip() and made.hunk.before != made.hunk.after


def test_a_site_whose_edit_does_not_parse_is_dropped_with_why() -> None:
    """A source the edit cannot be made on (here: a file that does not parse) gives no candidate, and says why."""
    made = build_named("guard_is_compiling", Site("prog.py", "import torch\nprint(x\n", 2))
    assert isinstance(made, Dropped) and made.reason


def test_a_guard_known_by_its_line_alone_is_still_built() -> None:
    """The report's fix where only the line is known (no file): the guard is shown, the file's imports unknown."""
    assert isinstance(build_named("guard_is_compiling", Site("", "print(x)\n", 1)), Built)


def test_every_transform_is_tested() -> None:
    tested = {c.transform for c in CASES.values()}
    # built by doctor fix from the lines that call the compiled function (tests/fix)
    assert set(TRANSFORMS) - tested <= {
        "move_outside",
        "move_after_call",
        "guard_helper_call",
        "return_printed",
        "leave_out_branch_argument",  # tests/fix/test_library_arguments.py
        "set_fallback_attribute",
        "pass_from_caller",
        "raise_limit_for_number_sweep",  # tests/transforms/test_sweeps.py
        "time_at_caller",  # tests/transforms/test_timing.py
        "unwrap_timer_block",
        "untimed_helper",
    }
