# triggers TCD118 at line 18
import torch


class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a


def square_loss(x):
    sq = Mul.apply(x, x)
    return sq.mean()


f = torch.compile(square_loss, backend="eager")
f(torch.ones(3, requires_grad=True))
