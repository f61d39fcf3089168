# Focal loss compiled as a single graph (fullgraph=True) that warns when some per-sample losses are NaN.
# Expected findings (torch 2.13, CPU):
#   - compile failure (exit code 1): GuardOnDataDependentSymNode 'Could not guard on data-dependent expression Ne(u0, 0)' for `if nan_count:` at fullgraph_item_check.py:13 in focal_loss; fullgraph=True turns on capture_scalar_outputs, so .item() itself does not break
import torch
import torch.nn.functional as F


def focal_loss(logits, targets, gamma=2.0):
    log_probs = F.log_softmax(logits, dim=-1)
    log_pt = log_probs.gather(1, targets[:, None]).squeeze(1)
    loss = -((1 - log_pt.exp()) ** gamma) * log_pt
    nan_count = torch.isnan(loss).sum().item()
    if nan_count:
        print(f"warning: {nan_count} NaN losses")
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
