import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, SEQ = 128, 64, 4, 2, 32


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.RMSNorm(D, eps=1e-6), nn.RMSNorm(D, eps=1e-6)
        self.q, self.k, self.v, self.o = (nn.Linear(D, D, bias=False) for _ in range(4))
        self.fc1, self.fc2 = nn.Linear(D, 4 * D, bias=False), nn.Linear(4 * D, D, bias=False)

    def forward(self, x):
        B, T, _ = x.shape
        h = self.norm1(x)
        q, k, v = (m(h).view(B, T, HEADS, -1).transpose(1, 2) for m in (self.q, self.k, self.v))
        x = x + self.o(F.scaled_dot_product_attention(q, k, v, is_causal=True).transpose(1, 2).reshape(B, T, D))
        return x + self.fc2(F.silu(self.fc1(self.norm2(x))))


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(SEQ, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = nn.RMSNorm(D, eps=1e-6)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, idx):
        x = self.embed(idx) + self.pos(torch.arange(idx.size(1)))
        for b in self.blocks:
            x = b(x)
        return self.head(self.norm(x))


class LoRA(nn.Module):
    def __init__(self, base, r=8, alpha=16):
        super().__init__()
        self.base, self.scale = base, alpha / r
        self.A = nn.Parameter(torch.empty(r, base.in_features))
        self.B = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.A, a=math.sqrt(5))

    def forward(self, x):
        return self.base(x) + (x @ self.A.t() @ self.B.t()) * self.scale

    @torch.no_grad()
    def merged(self):
        w = self.base.weight.float() + (self.B.float() @ self.A.float()) * self.scale
        out = nn.Linear(self.base.in_features, self.base.out_features, bias=False)
        out.weight.copy_(w)
        return out


def batches(n, stride_max, seed):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n):
        a = torch.randint(0, VOCAB, (16, 1), generator=g)
        s = torch.randint(1, stride_max, (16, 1), generator=g)
        seq = (a + s * torch.arange(SEQ + 1)) % VOCAB
        yield seq[:, :-1], seq[:, 1:]


def run(model, params, data, lr):
    opt = torch.optim.AdamW(params, lr=lr)
    for x, y in data:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
    return loss.item()


@torch.no_grad()
def evaluate(model, dtype=torch.bfloat16):
    x, y = next(batches(1, 6, seed=99))
    with torch.autocast("cpu", dtype=dtype):
        logits = model(x)
    return F.cross_entropy(logits.float().reshape(-1, VOCAB), y.reshape(-1)).item()


model = LM()
print(f"pretrain loss {run(model, model.parameters(), batches(60, 3, seed=0), 3e-3):.4f}")
model.requires_grad_(False)
for blk in model.blocks:
    blk.q, blk.v = LoRA(blk.q), LoRA(blk.v)
lora_params = [p for n, p in model.named_parameters() if n.endswith((".A", ".B"))]
for p in lora_params:
    p.requires_grad_(True)
print(f"lora loss {run(model, lora_params, batches(60, 6, seed=1), 1e-2):.4f}")
before = evaluate(model)

for blk in model.blocks:
    blk.q, blk.v = blk.q.merged(), blk.v.merged()
out_dir = tempfile.mkdtemp()
path = os.path.join(out_dir, "merged.safetensors")
sd = {k: v.detach().to(torch.bfloat16).contiguous() for k, v in model.state_dict().items()}
save_file(sd, path)

fresh = LM()
fresh.load_state_dict(load_file(path))
after = evaluate(fresh.eval())
print(f"eval loss before merge {before:.4f} after merge+bf16 export {after:.4f}")
assert math.isfinite(after) and abs(after - before) < 0.1
