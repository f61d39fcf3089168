# triggers TCD403 at line 16
"""A library's branch between repeated blocks (BART's layerdrop test inside its loop over `self.layers`, in
train mode): regional compilation is offered at the model's real module lists (`model.encoder.layers`)."""

import torch
import transformers

torch.manual_seed(0)
config = transformers.BartConfig(
    vocab_size=64, d_model=16, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
    decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32, max_position_embeddings=32,
    encoder_layerdrop=0.1, decoder_layerdrop=0.1,
)  # fmt: skip
model = transformers.BartModel(config).train()
compiled = torch.compile(model, backend="eager")
out = compiled(input_ids=torch.randint(0, 64, (2, 8)), decoder_input_ids=torch.randint(0, 64, (2, 8)))
