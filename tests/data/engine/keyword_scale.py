# A float passed by keyword to a compiled function that recompiles after a break (issue 33, bug 3): the fix wraps
# the keyword's value, `scale=torch.tensor(float(step + 1))`, never the keyword's name.
import torch


def f(x, scale):
    y = x * 2
    print("mid", y.shape)
    return y * scale


cmodel = torch.compile(f, backend="eager")
x = torch.ones(4)
for step in range(3):
    out = cmodel(x, scale=float(step + 1))
print(float(out.sum()))
