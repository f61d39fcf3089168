# Fine-tune a small randomly initialised GPT-2 for a few steps, then sample a short continuation.
# Expected findings (torch 2.13, CPU):
#   - graph break, third_party_library: logger.warning_once in transformers/modeling_utils.py:4769 (loss_function), reached from gpt2_finetune.py:27 in main (GB0291, 3 log records)
#   - recompile, grad_mode: transformers/utils/generic.py:937 (wrapper around GPT2LMHeadModel.forward) recompiles once when generation runs under torch.no_grad ("GLOBAL_STATE changed: grad_mode"), first called from gpt2_finetune.py:12
import torch
from transformers import AutoConfig, GPT2LMHeadModel


def greedy_continue(cmodel, prompt, new_tokens=4):
    ids = prompt
    for _ in range(new_tokens):
        logits = cmodel(input_ids=ids).logits
        next_id = logits[:, -1].argmax(dim=-1, keepdim=True)
        ids = torch.cat([ids, next_id], dim=1)
    return ids


def main():
    torch.manual_seed(0)
    config = AutoConfig.for_model("gpt2", n_layer=2, n_head=2, n_embd=64, vocab_size=1000, n_positions=128)
    model = GPT2LMHeadModel(config)
    cmodel = torch.compile(model, backend="aot_eager")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    model.train()
    for step in range(3):
        batch = torch.randint(0, 1000, (4, 32))
        loss = cmodel(input_ids=batch, labels=batch).loss
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step}: loss {loss.item():.3f}")
    model.eval()
    with torch.no_grad():
        out = greedy_continue(cmodel, torch.randint(0, 1000, (1, 8)))
    print("generated ids:", out[0, 8:].tolist())


if __name__ == "__main__":
    main()
