import math
import torch
import torch.nn as nn
from accelerate import Accelerator
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)

N_BINS, CONTEXT = 128, 64
QUANTILES = torch.tensor([0.1, 0.5, 0.9])
PAD_ID = N_BINS


def synthetic_series(n, length):
    t = torch.arange(length, dtype=torch.float32)
    period = torch.randint(8, 32, (n, 1)).float()
    amp = torch.rand(n, 1) * 2 + 0.5
    level = torch.randn(n, 1) * 3
    return level + amp * torch.sin(2 * math.pi * t / period) + 0.2 * torch.randn(n, length)


def tokenize(x):
    loc = x.mean(-1, keepdim=True)
    scale = x.abs().mean(-1, keepdim=True) + 1e-6
    z = (x - loc) / scale
    edges = torch.linspace(-4, 4, N_BINS - 1)
    return torch.bucketize(z, edges), z


def pinball(pred, target, q):
    diff = target.unsqueeze(-1) - pred
    return torch.maximum(q * diff, (q - 1) * diff).mean()


config = LlamaConfig(
    vocab_size=N_BINS + 1, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=CONTEXT,
    pad_token_id=PAD_ID, bos_token_id=None, eos_token_id=None,
)
model = LlamaForCausalLM(config).to(torch.bfloat16)
model.value_head = nn.Linear(config.hidden_size, len(QUANTILES))

accelerator = Accelerator(cpu=True)
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4)
model, optimizer = accelerator.prepare(model, optimizer)

for step in range(20):
    ids, z = tokenize(synthetic_series(16, CONTEXT))
    out = model(input_ids=ids, labels=ids, output_hidden_states=True)
    hidden = out.hidden_states[-1][:, :-1]
    q_pred = model.value_head(hidden)
    q_loss = pinball(q_pred.float(), z[:, 1:], QUANTILES)
    loss = out.loss + q_loss
    accelerator.backward(loss)
    optimizer.step()
    optimizer.zero_grad()
    if step % 10 == 0:
        print(f"step {step} ce {out.loss.item():.4f} pinball {q_loss.item():.4f}")

model.eval()
with torch.no_grad():
    ids, z = tokenize(synthetic_series(4, CONTEXT))
    gen = model.generate(ids[:, :48], max_new_tokens=16, do_sample=False)
    print("generated tokens:", gen[0, 48:].tolist())
