# triggers TCD225 at line 11
import torch

# ids.tolist() breaks the graph; the code resumed after it is guarded on the bound `seen_tokens.extend`
seen_tokens = []


@torch.compile(backend="eager")
def embed(ids, table):
    vectors = table[ids]
    seen_tokens.extend(ids.tolist())
    return vectors.sum(0)


table = torch.randn(10, 4)
for _ in range(3):
    embed(torch.randint(0, 10, (3,)), table)
