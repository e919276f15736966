import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, DIM, SEQ = 1024, 64, 128


class GatedConvLM(nn.Module):
    def __init__(self, vocab=VOCAB, dim=DIM, depth=3, kernel=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.convs = nn.ModuleList(nn.Conv1d(dim, 2 * dim, kernel) for _ in range(depth))
        self.norms = nn.ModuleList(nn.LayerNorm(dim) for _ in range(depth))
        self.final_norm = nn.LayerNorm(dim)
        self.kernel = kernel

    def forward(self, ids):
        h = self.embed(ids)
        for conv, norm in zip(self.convs, self.norms):
            x = F.pad(norm(h).transpose(1, 2), (self.kernel - 1, 0))
            a, b = conv(x).chunk(2, dim=1)
            h = h + (a * torch.sigmoid(b)).transpose(1, 2)
        return self.final_norm(h)


def chunked_cross_entropy(hidden, weight, targets, chunk=1024, dtype=torch.float16):
    """Cross-entropy over the vocab without materialising the full [tokens, vocab] fp32 logits."""
    hidden = hidden.reshape(-1, hidden.size(-1))
    targets = targets.reshape(-1)
    w = weight.to(dtype)
    total = torch.zeros((), dtype=dtype)
    for s in range(0, hidden.size(0), chunk):
        logits = hidden[s:s + chunk].to(dtype) @ w.t()
        lse = torch.logsumexp(logits, dim=-1)
        tgt = logits.gather(-1, targets[s:s + chunk, None]).squeeze(-1)
        total = total + (lse - tgt).sum()
    return total / targets.numel()


def make_stream(n_seq, gen):
    table = torch.randint(0, VOCAB, (VOCAB,), generator=gen)
    x = torch.empty(n_seq, SEQ + 1, dtype=torch.long)
    x[:, 0] = torch.randint(0, VOCAB, (n_seq,), generator=gen)
    for t in range(1, SEQ + 1):
        x[:, t] = table[x[:, t - 1]]
    noise = torch.rand(x.shape, generator=gen) < 0.15
    return torch.where(noise, torch.randint(0, VOCAB, x.shape, generator=gen), x)


def main():
    gen = torch.Generator().manual_seed(0)
    train, val = make_stream(256, gen), make_stream(128, gen)
    model = GatedConvLM()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)

    for epoch in range(2):
        model.train()
        perm = torch.randperm(len(train), generator=gen)
        for i in range(0, len(train), 32):
            batch = train[perm[i:i + 32]]
            hidden = model(batch[:, :-1])
            loss = chunked_cross_entropy(hidden, model.embed.weight, batch[:, 1:])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            if (i // 32) % 4 == 0:
                print(f"epoch {epoch} step {i // 32} loss {loss.item():.4f}")
        model.eval()
        with torch.no_grad():
            vloss = chunked_cross_entropy(model(val[:, :-1]), model.embed.weight, val[:, 1:])
        print(f"epoch {epoch} val loss {vloss.item():.4f}")


if __name__ == "__main__":
    main()
