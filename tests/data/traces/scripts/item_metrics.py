# Helper for item_recompile.py: two .item() calls -> a graph break in each call.
def masked_accuracy(logits, target, mask):
    pred = logits.argmax(dim=-1)
    correct = (pred == target) & mask
    return correct.sum().item() / (mask.sum().item() + 1e-6)
