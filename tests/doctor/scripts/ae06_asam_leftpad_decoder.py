import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class ASAM:
    def __init__(self, params, base_optimizer, rho=0.5, eta=0.01):
        self.params = [p for p in params if p.requires_grad]
        self.base, self.rho, self.eta = base_optimizer, rho, eta
        self.e_w = {}

    @torch.no_grad()
    def ascent_step(self):
        scaled = []
        for p in self.params:
            if p.grad is None:
                continue
            t_w = p.abs() + self.eta
            scaled.append((t_w * p.grad).norm())
        norm = torch.stack(scaled).norm() + 1e-12
        for p in self.params:
            if p.grad is None:
                continue
            t_w = p.abs() + self.eta
            e_w = t_w * t_w * p.grad * (self.rho / norm)
            p.add_(e_w)
            self.e_w[p] = e_w

    @torch.no_grad()
    def descent_step(self):
        for p, e_w in self.e_w.items():
            p.sub_(e_w)
        self.e_w.clear()
        self.base.step()

    def zero_grad(self):
        self.base.zero_grad(set_to_none=True)


class Block(nn.Module):
    def __init__(self, d, n_heads):
        super().__init__()
        self.n_heads = n_heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x, bias):
        B, T, D = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(B, T, 3, self.n_heads, D // self.n_heads).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1]) + bias
        y = (att.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D)
        x = x + self.proj(y)
        return x + self.mlp(self.ln2(x))


class TinyDecoder(nn.Module):
    def __init__(self, vocab=64, d=64, n_layers=2, n_heads=4, max_len=32):
        super().__init__()
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(max_len, d)
        self.blocks = nn.ModuleList(Block(d, n_heads) for _ in range(n_layers))
        self.ln_f, self.lm_head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def forward(self, ids, attention_mask):
        B, T = ids.shape
        x = self.tok(ids) + self.pos(torch.arange(T))[None]
        causal = torch.ones(T, T, dtype=torch.bool).tril()
        allowed = causal[None, None] & attention_mask[:, None, None, :].bool()
        bias = (1.0 - allowed.to(x.dtype)) * -1e9
        for blk in self.blocks:
            x = blk(x, bias)
        return self.lm_head(self.ln_f(x))


def left_pad_collate(seqs, pad_id=0):
    T = max(len(s) for s in seqs)
    ids = torch.full((len(seqs), T), pad_id, dtype=torch.long)
    mask = torch.zeros(len(seqs), T, dtype=torch.long)
    for i, s in enumerate(seqs):
        ids[i, T - len(s):] = torch.tensor(s)
        mask[i, T - len(s):] = 1
    labels = ids.masked_fill(mask == 0, -100)
    return ids, mask, labels


def sample_sequences(n, vocab=64, seed=0):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        L = int(torch.randint(8, 32, (1,), generator=g))
        start, stride = int(torch.randint(1, vocab, (1,), generator=g)), int(torch.randint(1, 5, (1,), generator=g))
        out.append([1 + (start + i * stride) % (vocab - 1) for i in range(L)])
    return out


def main():
    torch.manual_seed(0)
    model = TinyDecoder().half()
    base = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    opt = ASAM(model.parameters(), base, rho=0.5)
    data = sample_sequences(192)
    loader = torch.utils.data.DataLoader(data, batch_size=32, shuffle=True, collate_fn=left_pad_collate)
    for epoch in range(2):
        for step, (ids, mask, labels) in enumerate(loader):
            logits = model(ids, mask)
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1))
            loss.backward()
            opt.ascent_step()
            opt.zero_grad()
            logits = model(ids, mask)
            F.cross_entropy(logits[:, :-1].reshape(-1, logits.shape[-1]), labels[:, 1:].reshape(-1)).backward()
            opt.descent_step()
            opt.zero_grad()
            if step % 2 == 0:
                print(f"epoch {epoch} step {step:2d} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
