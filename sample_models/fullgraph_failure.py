# Focal loss compiled as a single graph (fullgraph=True), with a debug print of the per-sample losses.
# Expected findings (torch 2.13, CPU):
#   - compile failure (exit code 1): torch._dynamo.exc.Unsupported 'Failed to trace builtin operator' (GB0059, print_or_logging) for print() at fullgraph_failure.py:12 in focal_loss under fullgraph=True
import torch
import torch.nn.functional as F


def focal_loss(logits, targets, gamma=2.0):
    log_probs = F.log_softmax(logits, dim=-1)
    log_pt = log_probs.gather(1, targets[:, None]).squeeze(1)
    loss = -((1 - log_pt.exp()) ** gamma) * log_pt
    print("focal loss per sample:", loss.detach())
    return loss.mean()


def main():
    torch.manual_seed(0)
    loss_fn = torch.compile(focal_loss, fullgraph=True, backend="eager")
    logits = torch.randn(16, 5, requires_grad=True)
    targets = torch.randint(0, 5, (16,))
    loss = loss_fn(logits, targets)
    loss.backward()
    print("loss", loss.item())


if __name__ == "__main__":
    main()
