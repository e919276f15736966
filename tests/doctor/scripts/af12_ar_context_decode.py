import math

import torch
import torch.nn as nn
import torch.nn.functional as F

NUM_SYMBOLS = 32
SEQ_LEN = 48


class ContextAttention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, query, context, mask):
        b, t, d = query.shape
        h = self.heads
        q = self.q(query).view(b, t, h, d // h).transpose(1, 2)
        k, v = self.kv(context).view(b, t, 2, h, d // h).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // h)
        scores = scores + (1.0 - mask) * -1e9
        attn = scores.softmax(dim=-1)
        return self.out((attn @ v).transpose(1, 2).reshape(b, t, d))


class ContextModel(nn.Module):
    def __init__(self, dim=64, heads=4, layers=2):
        super().__init__()
        self.sym_emb = nn.Embedding(NUM_SYMBOLS, dim)
        self.pos_emb = nn.Parameter(torch.randn(SEQ_LEN, dim) * 0.02)
        self.blocks = nn.ModuleList([ContextAttention(dim, heads) for _ in range(layers)])
        self.norms = nn.ModuleList([nn.LayerNorm(dim) for _ in range(layers)])
        self.head = nn.Linear(dim, NUM_SYMBOLS)

    def forward(self, symbols):
        b, t = symbols.shape
        context = self.sym_emb(symbols) + self.pos_emb[:t]
        query = self.pos_emb[:t].expand(b, t, -1)
        mask = torch.tril(torch.ones(t, t, dtype=context.dtype), diagonal=-1)
        for attn, norm in zip(self.blocks, self.norms):
            query = query + attn(norm(query), context, mask)
            context = query
        return self.head(query)


def make_symbols(n, seed):
    g = torch.Generator().manual_seed(seed)
    start = torch.randint(0, NUM_SYMBOLS, (n, 1), generator=g)
    steps = torch.randint(-2, 3, (n, SEQ_LEN - 1), generator=g)
    return torch.cat([start, start + steps.cumsum(1)], dim=1) % NUM_SYMBOLS


@torch.no_grad()
def decode_with_model(model, reference):
    b = reference.shape[0]
    decoded = torch.zeros(b, 0, dtype=torch.long)
    total_bits = torch.zeros(b)
    for i in range(SEQ_LEN):
        prefix = torch.cat([decoded, torch.zeros(b, 1, dtype=torch.long)], dim=1)
        logits = model(prefix)[:, -1].float()
        probs = logits.softmax(-1)
        sym = reference[:, i]
        total_bits += -torch.log2(probs.gather(1, sym[:, None]).squeeze(1))
        decoded = torch.cat([decoded, sym[:, None]], dim=1)
    return decoded, total_bits


def main():
    torch.manual_seed(0)
    train, test = make_symbols(256, seed=0), make_symbols(8, seed=1)
    model = ContextModel()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    for step in range(40):
        batch = train[(step % 8) * 32:(step % 8) * 32 + 32]
        logits = model(batch)
        loss = F.cross_entropy(logits.reshape(-1, NUM_SYMBOLS), batch.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            print(f"step {step}: {loss.item() / math.log(2):.3f} bits/symbol")

    model = model.half().eval()
    decoded, bits = decode_with_model(model, test)
    assert torch.equal(decoded, test)
    print(f"decoded {decoded.numel()} symbols, {bits.sum().item() / decoded.numel():.3f} bits/symbol")


if __name__ == "__main__":
    main()
