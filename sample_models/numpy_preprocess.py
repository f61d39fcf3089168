# Tabular model that buckets a raw numeric feature with numpy before an embedding lookup.
# Expected findings (torch 2.13, CPU):
#   - graph break, numpy: np.digitize is not supported by torch._numpy, at numpy_preprocess.py:19 in forward (GB0294 'attempted to trace numpy function unsupported by PyTorch')
import numpy as np
import torch
import torch.nn as nn

AGE_BOUNDARIES = np.array([18.0, 25.0, 35.0, 45.0, 55.0, 65.0])


class TabularModel(nn.Module):
    def __init__(self, num_dense=6, dim=16):
        super().__init__()
        self.age_emb = nn.Embedding(len(AGE_BOUNDARIES) + 1, dim)
        self.dense = nn.Linear(num_dense, dim)
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(dim, 1))

    def forward(self, age, dense):
        buckets = np.digitize(age.numpy(), AGE_BOUNDARIES)
        age_ids = torch.from_numpy(buckets).long()
        h = self.age_emb(age_ids) + self.dense(dense)
        return self.head(h).squeeze(-1)


def main():
    torch.manual_seed(0)
    model = TabularModel()
    cmodel = torch.compile(model, backend="eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(3):
        age = torch.rand(32) * 70 + 10
        dense = torch.randn(32, 6)
        target = torch.randn(32)
        loss = nn.functional.mse_loss(cmodel(age, dense), target)
        loss.backward()
        opt.step()
        opt.zero_grad()
    print("loss", round(loss.item(), 4))


if __name__ == "__main__":
    main()
