# triggers TCD203 at line 5 (variable: lr)
import torch


def sgd_update(w, grad, lr):
    return w - lr * grad


def main():
    update = torch.compile(sgd_update, backend="eager")
    w, grad = torch.ones(4), torch.full((4,), 0.1)
    for lr in (0.1, 0.05, 0.025):
        w = update(w, grad, lr)
    return w


main()
