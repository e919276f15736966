import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

CORPUS = ("in the beginning the engineers wrote small models and the small models learned to count "
          "then they wrote larger models and the larger models learned to read ") * 30


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.out = nn.Linear(d, d, bias=False)

    def forward(self, x, pad_mask):
        B, T, C = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.size(-1))
        causal = torch.ones(T, T, dtype=torch.bool, device=x.device).tril()
        allowed = causal[None, None] & pad_mask[:, None, None, :]
        scores = scores.masked_fill(~allowed, torch.finfo(scores.dtype).min)
        attn = scores.float().softmax(-1).to(v.dtype)
        return self.out((attn @ v).transpose(1, 2).reshape(B, T, C))


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, pad_mask):
        x = x + self.attn(self.n1(x), pad_mask)
        return x + self.ff(self.n2(x))


class TinyLM(nn.Module):
    def __init__(self, vocab, d=64, heads=4, layers=2, block=48):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(block, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight
        self.apply(self._init_weights)

    @staticmethod
    def _init_weights(m):
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)
        if isinstance(m, nn.Linear) and m.bias is not None:
            nn.init.zeros_(m.bias)

    def forward(self, idx, pad_mask):
        x = self.wte(idx) + self.wpe(torch.arange(idx.size(1), device=idx.device))
        for b in self.blocks:
            x = b(x, pad_mask)
        return self.lm_head(self.ln_f(x))


def lm_loss(logits, targets):
    return F.cross_entropy(logits.float().flatten(0, 1), targets.flatten(), ignore_index=-100)


def batches(data, block, bs, gen):
    while True:
        ix = torch.randint(len(data) - block - 1, (bs,), generator=gen)
        x = torch.stack([data[i:i + block] for i in ix])
        y = torch.stack([data[i + 1:i + block + 1] for i in ix])
        pad = torch.ones_like(x, dtype=torch.bool)
        pad[: bs // 4, : block // 4] = False
        y[: bs // 4, : block // 4] = -100
        yield x, y, pad


def main():
    torch.manual_seed(0)
    chars = sorted(set(CORPUS))
    data = torch.tensor([chars.index(c) for c in CORPUS])
    model = TinyLM(len(chars))
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1},
                             {"params": no_decay, "weight_decay": 0.0}], lr=3e-3, betas=(0.9, 0.95))
    loss_fn = torch.compile(lm_loss)
    accum, steps = 2, 40
    it = batches(data, 48, 16, torch.Generator().manual_seed(0))
    for step in range(steps):
        for g in opt.param_groups:
            g["lr"] = 3e-3 * min(1.0, (step + 1) / 8)
        for _ in range(accum):
            x, y, pad = next(it)
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(x, pad)
            loss = loss_fn(logits, y)
            (loss / accum).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        if step % 10 == 0 or step == steps - 1:
            print(f"step {step:2d} loss {loss.item():.4f} ppl {math.exp(loss.item()):.2f}")

    path = os.path.join(tempfile.mkdtemp(prefix="lm_"), "tinylm.pt")
    torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, path)
    restored = TinyLM(len(chars))
    restored.load_state_dict(torch.load(path, map_location="cpu", weights_only=True)["model"])
    assert restored.lm_head.weight is restored.wte.weight
    x, y, pad = next(it)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        val = lm_loss(restored(x, pad), y)
    print(f"restored eval loss {val.item():.4f}")


if __name__ == "__main__":
    main()
