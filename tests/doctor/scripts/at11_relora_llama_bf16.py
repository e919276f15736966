import math

import torch
import torch.nn as nn
from transformers import LlamaConfig, LlamaForCausalLM

torch.manual_seed(0)


class ReLoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, r=8, alpha=16):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.scaling = alpha / r
        self.A = nn.Parameter(torch.empty(r, base.in_features))
        self.B = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))

    def forward(self, x):
        lora = (x.to(self.A.dtype) @ self.A.t() @ self.B.t()) * self.scaling
        return self.base(x) + lora.to(x.dtype)

    @torch.no_grad()
    def merge_and_reinit(self):
        self.base.weight.data = self.base.weight.data + (self.B @ self.A) * self.scaling
        nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))
        nn.init.zeros_(self.B)


def add_relora(model, targets=("q_proj", "v_proj", "up_proj", "down_proj")):
    for p in model.parameters():
        p.requires_grad_(False)
    wrapped = []
    for name, module in list(model.named_modules()):
        for t in targets:
            child = getattr(module, t, None)
            if isinstance(child, nn.Linear):
                setattr(module, t, ReLoRALinear(child))
                wrapped.append(getattr(module, t))
    return wrapped


def reset_optimizer(opt, keep=0.1):
    for st in opt.state.values():
        for k in ("exp_avg", "exp_avg_sq"):
            st[k].mul_(keep)


def main():
    cfg = LlamaConfig(vocab_size=256, hidden_size=96, intermediate_size=256, num_hidden_layers=2,
                      num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=64)
    model = LlamaForCausalLM(cfg).to(torch.bfloat16)
    relora = add_relora(model)
    params = [p for p in model.parameters() if p.requires_grad]
    print(f"trainable {sum(p.numel() for p in params)} / {sum(p.numel() for p in model.parameters())}")
    opt = torch.optim.AdamW(params, lr=3e-3, weight_decay=0.0)

    gen = torch.Generator().manual_seed(0)
    def batch(n=16, seq=40):
        a = torch.randint(0, 256, (n, 1), generator=gen)
        return (a * 3 + torch.arange(seq) * 11) % 256

    restart_every = 15
    model.train()
    for step in range(1, 46):
        ids = batch()
        loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step % restart_every == 0:
            for m in relora:
                m.merge_and_reinit()
            reset_optimizer(opt)
            print(f"step {step}: merged {len(relora)} adapters and restarted")
        if step % 5 == 0:
            print(f"step {step} loss {loss.item():.4f}")

    model.eval()
    with torch.no_grad():
        ids = batch(64)
        print(f"eval loss {model(input_ids=ids, labels=ids).loss.item():.4f}")


if __name__ == "__main__":
    main()
