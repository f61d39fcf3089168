"""MBartModel in eval mode, the issue's example of a skipped frame: transformers 5.5.4's
`config.use_return_dict` property logs a deprecation warning (`logger.warning_once`), a graph break
reached through an attribute access at the start of `MBartModel.forward`, so torch skips the whole
model body. A small config, random weights, one call, as the public graph-break corpus builds it.

Captured with transformers 5.5.4 (see README.md); the tests re-read the capture, they do not run this.
"""

import torch
import transformers

torch.manual_seed(0)
config = transformers.MBartConfig(
    vocab_size=1000,
    d_model=64,
    encoder_layers=2,
    decoder_layers=2,
    encoder_attention_heads=4,
    decoder_attention_heads=4,
    encoder_ffn_dim=128,
    decoder_ffn_dim=128,
    max_position_embeddings=64,
)
model = transformers.MBartModel(config).eval()
inputs = dict(input_ids=torch.randint(0, 1000, (2, 16)), decoder_input_ids=torch.randint(0, 1000, (2, 16)))
torch._dynamo.reset()
compiled = torch.compile(model, backend="eager")
with torch.no_grad():
    compiled(**inputs)
