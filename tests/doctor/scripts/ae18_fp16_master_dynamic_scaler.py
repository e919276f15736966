import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, vocab=80, d=48, n_heads=4, n_layers=2, n_classes=3, max_len=32):
        super().__init__()
        self.h = n_heads
        self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(max_len, d)
        self.layers = nn.ModuleList(nn.ModuleDict(dict(ln1=nn.LayerNorm(d), qkv=nn.Linear(d, 3 * d),
                                                       o=nn.Linear(d, d), ln2=nn.LayerNorm(d),
                                                       ff=nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(),
                                                                        nn.Linear(2 * d, d))))
                                    for _ in range(n_layers))
        self.head = nn.Linear(d, n_classes)

    def forward(self, ids, mask):
        B, T = ids.shape
        x = self.tok(ids) + self.pos(torch.arange(T))[None]
        neg = torch.finfo(x.dtype).min
        key_bias = torch.zeros(B, 1, 1, T, dtype=x.dtype).masked_fill(~mask[:, None, None, :], neg)
        for L in self.layers:
            q, k, v = L["qkv"](L["ln1"](x)).view(B, T, 3, self.h, -1).permute(2, 0, 3, 1, 4)
            att = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1]) + key_bias
            y = att.float().softmax(-1).to(x.dtype) @ v
            x = x + L["o"](y.transpose(1, 2).reshape(B, T, -1))
            x = x + L["ff"](L["ln2"](x))
        m = mask[..., None].to(x.dtype)
        return self.head((x * m).sum(1) / m.sum(1))


class DynamicLossScaler:
    def __init__(self, init_scale=2.0 ** 12, growth_interval=50, backoff=0.5, growth=2.0):
        self.scale, self.growth_interval, self.backoff, self.growth = init_scale, growth_interval, backoff, growth
        self.good_steps = 0

    def update(self, found_inf):
        if found_inf:
            self.scale *= self.backoff
            self.good_steps = 0
        else:
            self.good_steps += 1
            if self.good_steps % self.growth_interval == 0:
                self.scale = min(self.scale * self.growth, 2.0 ** 15)


def make_batch(bs, g, vocab=80, T=32):
    lengths = torch.randint(6, T + 1, (bs,), generator=g)
    mask = torch.arange(T)[None] < lengths[:, None]
    ids = torch.randint(4, vocab, (bs, T), generator=g)
    y = (ids.masked_fill(~mask, 0) % 3 == 0).sum(1) * 3 // lengths.clamp(min=1)
    return ids.masked_fill(~mask, 0), mask, y.clamp(max=2)


def main():
    torch.manual_seed(0)
    g = torch.Generator().manual_seed(0)
    model = Encoder().half()
    master = [p.detach().float().clone().requires_grad_() for p in model.parameters()]
    opt = torch.optim.AdamW(master, lr=2e-3, weight_decay=0.01)
    scaler = DynamicLossScaler()
    for step in range(50):
        ids, mask, y = make_batch(32, g)
        logits = model(ids, mask)
        loss = F.cross_entropy(logits.float(), y)
        (loss * scaler.scale).backward()
        grads = [p.grad.float() / scaler.scale for p in model.parameters()]
        found_inf = not all(torch.isfinite(gr).all() for gr in grads)
        if not found_inf:
            for mp, gr in zip(master, grads):
                mp.grad = gr
            torch.nn.utils.clip_grad_norm_(master, 1.0)
            opt.step()
            with torch.no_grad():
                for p, mp in zip(model.parameters(), master):
                    p.copy_(mp)
        opt.zero_grad(set_to_none=True)
        model.zero_grad(set_to_none=True)
        scaler.update(found_inf)
        if step % 10 == 0:
            print(f"step {step:3d} loss {loss.item():.4f} scale {scaler.scale:.0f}")
    print(f"final loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
