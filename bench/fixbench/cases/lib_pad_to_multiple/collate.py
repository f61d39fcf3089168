"""A small batching library: pads token lists into a batch tensor."""

import torch


def pad_batch(sequences, pad_id=0, pad_to_multiple_of=None):
    longest = max(len(s) for s in sequences)
    if pad_to_multiple_of:
        longest = -(-longest // pad_to_multiple_of) * pad_to_multiple_of
    ids = torch.full((len(sequences), longest), pad_id, dtype=torch.long)
    for i, s in enumerate(sequences):
        ids[i, : len(s)] = torch.tensor(s)
    return ids, (ids != pad_id).long()
