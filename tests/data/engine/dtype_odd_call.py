# A function called with float32 twice, then float64 once (issue 33, bug 4): the cast belongs at the third call,
# the odd one, and the function and its resume after the break are one finding.
import torch


@torch.compile(backend="eager")
def f(x):
    y = x.sin()
    print("mid")
    return y.cos()


a = f(torch.ones(4))
b = f(torch.ones(4) * 2)
x64 = torch.ones(4, dtype=torch.float64)
c = f(x64)
print(float(a.sum()), float(b.sum()), float(c.sum()))
