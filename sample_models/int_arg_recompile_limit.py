# Linear regression trained with a hand-written SGD update that has a learning-rate warm-up.
# Expected findings (torch 2.13, CPU):
#   - recompile, int_specialization: warmup_sgd_update (int_arg_recompile_limit.py:8) recompiles on every new `step` value ("step == 0", "step == 1", ...), 8 records counting the refused one
#   - recompile limit hit (config.recompile_limit = 8) for warmup_sgd_update; it runs eagerly from the 9th step on
import torch


def warmup_sgd_update(weight, grad, step, base_lr=0.1, warmup_steps=20):
    lr = base_lr * min(1.0, (step + 1) / warmup_steps)
    return weight - lr * grad


def main():
    torch.manual_seed(0)
    x = torch.randn(64, 10)
    y = x @ torch.randn(10, 1) + 0.1 * torch.randn(64, 1)
    w = torch.zeros(10, 1, requires_grad=True)
    update = torch.compile(warmup_sgd_update, backend="eager", dynamic=False)
    for step in range(12):
        loss = ((x @ w - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w.copy_(update(w, w.grad, step))
        w.grad = None
    print(f"loss after {step + 1} steps: {loss.item():.4f}")


if __name__ == "__main__":
    main()
