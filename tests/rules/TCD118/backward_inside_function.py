# triggers TCD118 at line 17
import torch


class ReplayGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        replay = x.detach().requires_grad_()
        with torch.enable_grad():
            out = (replay * 2).sum()
            torch.autograd.backward(out)
        return grad * 2


def loss(x):
    return ReplayGrad.apply(x).sum()


f = torch.compile(loss, backend="eager")
f(torch.ones(3, requires_grad=True)).backward()
