import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, MAX_T, PAD = 100, 64, 4, 2, 40, 0


class Int8Linear(nn.Module):
    def __init__(self, in_f, out_f):
        super().__init__()
        self.register_buffer("qweight", torch.zeros(out_f, in_f, dtype=torch.int8))
        self.register_buffer("scales", torch.ones(out_f, dtype=torch.bfloat16))

    @classmethod
    def from_float(cls, lin):
        q = cls(lin.in_features, lin.out_features)
        w = lin.weight.detach().float()
        scale = w.abs().amax(dim=1).clamp(min=1e-5) / 127.0
        q.qweight.copy_(torch.round(w / scale[:, None]).clamp(-127, 127).to(torch.int8))
        q.scales.copy_(scale.to(torch.bfloat16))
        return q

    def forward(self, x):
        w = self.qweight.to(x.dtype) * self.scales.to(x.dtype)[:, None]
        return F.linear(x, w)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.qkv, self.out = nn.Linear(D, 3 * D, bias=False), nn.Linear(D, D, bias=False)
        self.up, self.down = nn.Linear(D, 4 * D, bias=False), nn.Linear(4 * D, D, bias=False)

    def forward(self, x, bias):
        B, T, C = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, HEADS, -1).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
        x = x + self.out(y.transpose(1, 2).reshape(B, T, C))
        return x + self.down(F.gelu(self.up(self.ln2(x))))


class LM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.pos = nn.Embedding(MAX_T, D)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln_f = nn.LayerNorm(D)
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids, keep):
        T = ids.size(1)
        x = self.tok(ids) + self.pos(torch.arange(T))
        allowed = torch.tril(torch.ones(T, T, dtype=torch.bool))[None, None] & keep[:, None, None, :]
        bias = torch.zeros(allowed.shape, dtype=x.dtype).masked_fill(~allowed, torch.finfo(x.dtype).min)
        for b in self.blocks:
            x = b(x, bias)
        return self.head(self.ln_f(x))


def quantize_(module):
    for name, child in module.named_children():
        if isinstance(child, nn.Linear):
            setattr(module, name, Int8Linear.from_float(child))
        else:
            quantize_(child)
    return module


def padded_batch(g, n=16):
    lens = torch.randint(10, MAX_T, (n,), generator=g)
    ids = torch.full((n, MAX_T), PAD)
    for i, L in enumerate(lens.tolist()):
        a, s = int(torch.randint(1, VOCAB, (1,), generator=g)), int(torch.randint(1, 3, (1,), generator=g))
        ids[i, :L] = (a + s * torch.arange(L)) % (VOCAB - 1) + 1
    keep = ids != PAD
    labels = ids[:, 1:].masked_fill(~keep[:, 1:], -100)
    return ids, keep, labels


def loss_fn(model, batch):
    ids, keep, labels = batch
    logits = model(ids, keep)[:, :-1]
    return F.cross_entropy(logits.float().reshape(-1, VOCAB), labels.reshape(-1), ignore_index=-100)


g = torch.Generator().manual_seed(0)
model = LM()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
for step in range(60):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        loss = loss_fn(model, padded_batch(g))
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"train loss {loss.item():.4f}")

eval_batch = padded_batch(torch.Generator().manual_seed(123), n=32)
model = model.to(torch.bfloat16).eval()
with torch.no_grad():
    ref_loss = loss_fn(model, eval_batch).item()
    quantize_(model)
    q_loss = loss_fn(model, eval_batch).item()

path = os.path.join(tempfile.mkdtemp(), "model-int8.safetensors")
save_file({k: v.contiguous() for k, v in model.state_dict().items()}, path)
reloaded = quantize_(LM()).to(torch.bfloat16).eval()
reloaded.load_state_dict(load_file(path))
with torch.no_grad():
    r_loss = loss_fn(reloaded, eval_batch).item()
print(f"bf16 eval {ref_loss:.4f} int8 eval {q_loss:.4f} reloaded int8 eval {r_loss:.4f}")
assert all(math.isfinite(v) for v in (ref_loss, q_loss, r_loss))
