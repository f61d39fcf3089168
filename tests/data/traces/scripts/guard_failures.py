# Real guard-failure texts for tests/test_recompile_classify.py: each scenario compiles a tiny
# function (backend="eager", dynamic=False) and calls it so that exactly one kind of guard fails.
# Run one scenario:  TORCH_TRACE=/tmp/gf_NAME python guard_failures.py --one NAME
# Print the recompile_reasons texts of all scenarios (or of those named):  python guard_failures.py [NAME ...]
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def scenarios():
    import torch
    import torch.nn as nn

    def compiled(fn, **kwargs):
        return torch.compile(fn, backend="eager", dynamic=False, **kwargs)

    def dtype():
        f = compiled(lambda x: x + 1)
        f(torch.ones(4))
        f(torch.ones(4, dtype=torch.float64))

    def size():
        f = compiled(lambda x: x + 1)
        f(torch.ones(4))
        f(torch.ones(5))

    def rank():
        f = compiled(lambda x: x + 1)
        f(torch.ones(4))
        f(torch.ones(4, 4))

    def stride():
        f = compiled(lambda x: x + 1)
        f(torch.ones(4, 4))
        f(torch.ones(4, 4).t())

    def requires_grad():
        f = compiled(lambda x: x + 1)
        f(torch.ones(4))
        f(torch.ones(4, requires_grad=True))

    def int_arg():
        def fn(x, n):
            return x * n

        f = compiled(fn)
        f(torch.ones(4), 3)
        f(torch.ones(4), 4)

    def float_arg():
        def fn(x, scale):
            return x * scale

        f = compiled(fn)
        f(torch.ones(4), 0.5)
        f(torch.ones(4), 1.5)

    def bool_arg():
        def fn(x, flag):
            return x + 1 if flag else x - 1

        f = compiled(fn)
        f(torch.ones(4), True)
        f(torch.ones(4), False)

    def module_attribute():
        class Counter(nn.Module):
            def __init__(self):
                super().__init__()
                self.step = 0

            def forward(self, x):
                self.step += 1
                return x * self.step

        m = compiled(Counter())
        m(torch.ones(4))
        m(torch.ones(4))

    def function_arg():
        def fn(x, act):
            return act(x)

        f = compiled(fn)
        f(torch.ones(4), torch.relu)
        f(torch.ones(4), torch.sigmoid)

    def lambda_arg():
        def fn(x, act):
            return act(x)

        f = compiled(fn)
        f(torch.ones(4), lambda t: t + 1)
        f(torch.ones(4), lambda t: t + 1)

    def closure_arg():
        def make(k):
            def add(t):
                return t + k

            return add

        def fn(x, act):
            return act(x)

        f = compiled(fn)
        f(torch.ones(4), make(1))
        f(torch.ones(4), make(2))

    def module_arg():
        def fn(x, layer):
            return layer(x)

        f = compiled(fn)
        f(torch.ones(2, 4), nn.ReLU())
        f(torch.ones(2, 4), nn.Tanh())

    def grad_mode():
        f = compiled(lambda x: x + 1)
        with torch.no_grad():
            f(torch.ones(4))
        f(torch.ones(4))

    def autocast():
        f = compiled(lambda x: x @ x)
        f(torch.ones(4, 4))
        with torch.autocast("cpu", dtype=torch.bfloat16):
            f(torch.ones(4, 4))

    def deterministic():
        f = compiled(lambda x: x + 1)
        f(torch.ones(4))
        torch.use_deterministic_algorithms(True)
        try:
            f(torch.ones(4))
        finally:
            torch.use_deterministic_algorithms(False)

    def default_dtype():
        f = compiled(lambda x: x + torch.zeros(4))
        f(torch.ones(4))
        torch.set_default_dtype(torch.float64)
        try:
            f(torch.ones(4, dtype=torch.float32))
        finally:
            torch.set_default_dtype(torch.float32)

    def list_length():
        def fn(xs):
            return sum(xs)

        f = compiled(fn)
        f([torch.ones(4), torch.ones(4)])
        f([torch.ones(4), torch.ones(4), torch.ones(4)])

    def dict_keys():
        def fn(d):
            return sum(d.values())

        f = compiled(fn)
        f({"a": torch.ones(4)})
        f({"a": torch.ones(4), "b": torch.ones(4)})

    def type_change():
        def fn(x, n):
            return x * n

        f = compiled(fn)
        f(torch.ones(4), 3)
        f(torch.ones(4), 3.0)

    def none_arg():
        def fn(x, bias):
            return x * 2 if bias is None else x + bias

        f = compiled(fn)
        f(torch.ones(4), None)
        f(torch.ones(4), torch.ones(4))

    def device_meta():
        f = compiled(lambda x: x + 1)
        f(torch.ones(4))
        f(torch.ones(4, device="meta"))

    def global_int():
        fn_globals["SCALE"] = 2
        f = compiled(scaled)
        f(torch.ones(4))
        fn_globals["SCALE"] = 3
        f(torch.ones(4))

    return {name: fn for name, fn in locals().items() if callable(fn) and name != "compiled"}


SCALE = 2
fn_globals = globals()


def scaled(x):
    return x * SCALE


def main():
    if sys.argv[1:2] == ["--one"]:
        scenarios()[sys.argv[2]]()
        return
    sys.path.insert(0, str(Path(__file__).resolve().parents[4]))
    from torchcompile_doctor.events.load import load_artifacts

    names = sys.argv[1:] or [
        "dtype",
        "size",
        "rank",
        "stride",
        "requires_grad",
        "int_arg",
        "float_arg",
        "bool_arg",
        "module_attribute",
        "function_arg",
        "lambda_arg",
        "closure_arg",
        "module_arg",
        "grad_mode",
        "autocast",
        "deterministic",
        "default_dtype",
        "list_length",
        "dict_keys",
        "type_change",
        "none_arg",
        "device_meta",
        "global_int",
    ]
    for name in names:
        with tempfile.TemporaryDirectory() as trace:
            proc = subprocess.run(
                [sys.executable, __file__, "--one", name],
                env={**os.environ, "TORCH_TRACE": trace},
                capture_output=True,
                text=True,
            )
            log = load_artifacts(Path(trace))
            print(f"### {name} rc={proc.returncode}")
            if proc.returncode:
                print(proc.stderr[-2000:])
            for recompile in log.recompiles:
                for failure in recompile.failures:
                    print(repr(failure))


if __name__ == "__main__":
    main()
