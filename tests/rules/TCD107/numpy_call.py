# triggers TCD107 at line 8
import numpy as np
import torch


def bucketize_ages(ages):
    edges = [18.0, 35.0, 60.0]
    buckets = np.digitize(ages.numpy(), edges)
    return torch.from_numpy(buckets)


f = torch.compile(bucketize_ages, backend="eager")
f(torch.tensor([12.0, 25.0, 40.0, 70.0]))
