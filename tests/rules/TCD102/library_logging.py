# triggers TCD102 at line 11
import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
config = GPT2Config(n_layer=1, n_head=2, n_embd=16, vocab_size=64, n_positions=16)
model = GPT2LMHeadModel(config)
cmodel = torch.compile(model, backend="eager")

ids = torch.randint(0, 64, (2, 8))
loss = cmodel(input_ids=ids, labels=ids).loss
loss.backward()
