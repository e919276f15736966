import math
import torch
import torch.nn as nn
import torch.nn.functional as F


def zeropower_via_newtonschulz5(G, steps=5, eps=1e-7):
    a, b, c = 3.4445, -4.7750, 2.0315
    X = G.bfloat16()
    transposed = X.shape[0] > X.shape[1]
    if transposed:
        X = X.T
    X = X / (X.norm() + eps)
    for _ in range(steps):
        A = X @ X.T
        B = b * A + c * A @ A
        X = a * X + B @ X
    return (X.T if transposed else X).to(G.dtype)


class Muon(torch.optim.Optimizer):
    def __init__(self, params, lr=0.02, momentum=0.95):
        super().__init__(params, dict(lr=lr, momentum=momentum))

    @torch.no_grad()
    def step(self):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                buf = self.state[p].setdefault("momentum_buffer", torch.zeros_like(p))
                buf.mul_(group["momentum"]).add_(p.grad)
                g = p.grad.add(buf, alpha=group["momentum"])
                update = zeropower_via_newtonschulz5(g)
                scale = max(1.0, p.shape[0] / p.shape[1]) ** 0.5
                p.add_(update, alpha=-group["lr"] * scale)


class Attention(nn.Module):
    def __init__(self, d, n_heads):
        super().__init__()
        self.h, self.hd = n_heads, d // n_heads
        self.qkv, self.out = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)

    def forward(self, x, cache=None, pos=0):
        B, T, D = x.shape
        q, k, v = self.qkv(x).view(B, T, 3, self.h, self.hd).permute(2, 0, 3, 1, 4)
        if cache is not None:
            cache["k"][:, :, pos:pos + T] = k
            cache["v"][:, :, pos:pos + T] = v
            k, v = cache["k"][:, :, :pos + T], cache["v"][:, :, :pos + T]
        att = q @ k.transpose(-1, -2) / math.sqrt(self.hd)
        if T > 1:
            att = att.masked_fill(~torch.ones(T, k.shape[2], dtype=torch.bool).tril(k.shape[2] - T), float("-inf"))
        return self.out((att.softmax(-1) @ v).transpose(1, 2).reshape(B, T, D))


class Block(nn.Module):
    def __init__(self, d, n_heads):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, n_heads)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d, bias=False), nn.GELU(), nn.Linear(4 * d, d, bias=False))

    def forward(self, x, cache=None, pos=0):
        x = x + self.attn(self.ln1(x), cache, pos)
        return x + self.mlp(self.ln2(x))


class TinyLM(nn.Module):
    def __init__(self, vocab=50, d=64, n_layers=2, n_heads=4, max_len=64):
        super().__init__()
        self.max_len, self.n_heads = max_len, n_heads
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(max_len, d)
        self.blocks = nn.ModuleList(Block(d, n_heads) for _ in range(n_layers))
        self.ln_f, self.head = nn.LayerNorm(d), nn.Linear(d, vocab, bias=False)

    def allocate_cache(self, batch):
        shape = (batch, self.n_heads, self.max_len, self.tok.embedding_dim // self.n_heads)
        return [{"k": torch.zeros(shape), "v": torch.zeros(shape)} for _ in self.blocks]

    def forward(self, ids, caches=None, pos=0):
        x = self.tok(ids) + self.pos(torch.arange(pos, pos + ids.shape[1]))[None]
        for i, blk in enumerate(self.blocks):
            x = blk(x, None if caches is None else caches[i], pos)
        return self.head(self.ln_f(x))

    @torch.no_grad()
    def generate(self, prompt, n_new, temperature=0.8):
        caches = self.allocate_cache(prompt.shape[0])
        logits = self(prompt, caches, 0)
        out, pos = prompt, prompt.shape[1]
        for _ in range(n_new):
            probs = F.softmax(logits[:, -1].float() / temperature, dim=-1)
            nxt = torch.multinomial(probs, 1)
            out = torch.cat([out, nxt], dim=1)
            logits = self(nxt, caches, pos)
            pos += 1
        return out


def batches(n, bs=32, T=32, vocab=50, seed=0):
    g = torch.Generator().manual_seed(seed)
    for _ in range(n):
        start = torch.randint(0, vocab, (bs, 1), generator=g)
        step = torch.randint(1, 4, (bs, 1), generator=g)
        yield (start + step * torch.arange(T + 1)) % vocab


def main():
    torch.manual_seed(0)
    model = TinyLM()
    hidden = [p for n, p in model.blocks.named_parameters() if p.ndim == 2]
    other = [p for p in model.parameters() if all(p is not h for h in hidden)]
    opts = [Muon(hidden, lr=0.02), torch.optim.AdamW(other, lr=3e-3, weight_decay=0.0)]
    for step, seq in enumerate(batches(60)):
        logits = model(seq[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), seq[:, 1:].reshape(-1))
        loss.backward()
        for opt in opts:
            opt.step()
            opt.zero_grad(set_to_none=True)
        if step % 10 == 0:
            print(f"step {step:3d} loss {loss.item():.4f}")
    model = model.half().eval()
    prompt = torch.tensor([[3, 5, 7, 9], [10, 11, 12, 13]])
    sample = model.generate(prompt, n_new=12)
    print("generated:", sample.tolist())


if __name__ == "__main__":
    main()
