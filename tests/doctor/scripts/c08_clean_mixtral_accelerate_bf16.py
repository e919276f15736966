"""Tiny Mixtral (random init from a config) trained with accelerate bf16 autocast, router aux loss on.

Clean script: should run to the end with finite losses.
"""
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader, Dataset
from transformers import MixtralConfig, MixtralForCausalLM

torch.manual_seed(0)


class CopyTask(Dataset):
    """Sequences made of a random prefix repeated twice; padded on the right."""

    def __init__(self, n=64, vocab=500, half=12, pad_id=0):
        self.items = []
        g = torch.Generator().manual_seed(1)
        for _ in range(n):
            L = int(torch.randint(6, half + 1, (1,), generator=g))
            pre = torch.randint(3, vocab, (L,), generator=g)
            ids = torch.cat([torch.tensor([1]), pre, pre, torch.tensor([2])])
            pad = 2 * half + 2 - len(ids)
            attn = torch.cat([torch.ones(len(ids)), torch.zeros(pad)]).long()
            labels = torch.cat([ids, torch.full((pad,), -100)])
            ids = torch.cat([ids, torch.full((pad,), pad_id)])
            self.items.append({"input_ids": ids, "attention_mask": attn, "labels": labels})

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


config = MixtralConfig(
    vocab_size=500, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, num_local_experts=4, num_experts_per_tok=2,
    max_position_embeddings=128, output_router_logits=True, router_aux_loss_coef=0.02,
    pad_token_id=0, bos_token_id=1, eos_token_id=2,
)
config._attn_implementation = "eager"
model = MixtralForCausalLM(config)

accelerator = Accelerator(mixed_precision="bf16", cpu=True)
loader = DataLoader(CopyTask(), batch_size=8, shuffle=True)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 5))
model, opt, loader, sched = accelerator.prepare(model, opt, loader, sched)

model.train()
for epoch in range(3):
    for batch in loader:
        out = model(**batch)
        accelerator.backward(out.loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
    accelerator.print(f"epoch {epoch} loss {out.loss.item():.4f} aux {out.aux_loss.item():.4f}")

model.eval()
with torch.no_grad(), accelerator.autocast():
    prompt = torch.tensor([[1, 17, 33, 90, 4, 250, 7]])
    gen = accelerator.unwrap_model(model).generate(prompt, max_new_tokens=8, do_sample=False, pad_token_id=0)
print("generated", gen.shape, gen[0].tolist())
assert torch.isfinite(out.loss)
