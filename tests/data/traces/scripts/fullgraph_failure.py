# fullgraph=True with a print: compilation fails with torch._dynamo.exc.Unsupported (caught here).
import torch


def fn(x):
    print("not allowed under fullgraph")
    return x + 1


compiled = torch.compile(fn, backend="eager", fullgraph=True)
try:
    compiled(torch.ones(4))
except Exception as exc:  # the script must exit 0
    print("caught:", type(exc).__name__)
