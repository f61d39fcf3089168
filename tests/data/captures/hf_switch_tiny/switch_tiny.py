"""A tiny SwitchTransformers (transformers 5.23, random weights) compiled whole and called without an
attention_mask: its stack indexes the mask while it is None under compile (an observed TypeError that
makes torch skip the stack's forward). The capture beside this script was made from it (../README.md)."""

import torch
import transformers

torch.manual_seed(0)
config = transformers.SwitchTransformersConfig(
    vocab_size=64, d_model=16, d_kv=8, d_ff=32, num_layers=1, num_decoder_layers=1, num_heads=2, num_experts=2
)
model = transformers.SwitchTransformersModel(config).eval()
ids = torch.randint(0, 64, (2, 8))
compiled = torch.compile(model, backend="eager")
with torch.no_grad():
    out = compiled(input_ids=ids, decoder_input_ids=ids)
