"""Hand-written transformer sentence encoder (fp16) with masked mean pooling, trained on a toy
sentence-pair similarity task. Batches are padded to the longest sequence."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, D, H, PAD = 200, 64, 4, 0


class SelfAttention(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.h, self.hd = h, d // h
        self.q, self.k, self.v, self.o = (nn.Linear(d, d) for _ in range(4))

    def forward(self, x, attention_mask):
        b, t, d = x.shape
        split = lambda z: z.view(b, t, self.h, self.hd).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = q @ k.transpose(-1, -2) / self.hd ** 0.5
        ext = (1.0 - attention_mask[:, None, None, :].to(scores.dtype)) * -1e9
        probs = torch.softmax(scores + ext, dim=-1)
        y = (probs @ v).transpose(1, 2).reshape(b, t, d)
        return self.o(y)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = SelfAttention(D, H)
        self.n1, self.n2 = nn.LayerNorm(D), nn.LayerNorm(D)
        self.ff = nn.Sequential(nn.Linear(D, 2 * D), nn.ReLU(), nn.Linear(2 * D, D))

    def forward(self, x, m):
        x = self.n1(x + self.attn(x, m))
        return self.n2(x + self.ff(x))


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.pos = nn.Embedding(64, D)
        self.layers = nn.ModuleList([Layer(), Layer()])

    def forward(self, ids, mask):
        x = self.emb(ids) + self.pos(torch.arange(ids.size(1)))
        for layer in self.layers:
            x = layer(x, mask)
        m = mask.unsqueeze(-1).to(x.dtype)
        return (x * m).sum(1) / m.sum(1).clamp(min=1.0)


def pad_batch(seqs):
    t = max(max(len(s) for s in seqs), 1)
    ids = torch.full((len(seqs), t), PAD)
    mask = torch.zeros(len(seqs), t)
    for i, s in enumerate(seqs):
        ids[i, :len(s)] = torch.tensor(s, dtype=torch.long)
        mask[i, :len(s)] = 1
    return ids, mask


def sample_pairs(n):
    a, b, y = [], [], []
    for _ in range(n):
        s = torch.randint(1, VOCAB, (int(torch.randint(0, 12, ())),)).tolist()  # some rows can be empty strings
        a.append(s)
        if torch.rand(()) < 0.5:
            b.append(s[::-1]); y.append(1.0)
        else:
            b.append(torch.randint(1, VOCAB, (int(torch.randint(1, 12, ())),)).tolist()); y.append(0.0)
    return a, b, torch.tensor(y)


model = Encoder().half()
opt = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(6):
    a, b, y = sample_pairs(16)
    ea = model(*[t.half() if t.is_floating_point() else t for t in pad_batch(a)])
    eb = model(*[t.half() if t.is_floating_point() else t for t in pad_batch(b)])
    sim = F.cosine_similarity(ea.float(), eb.float(), dim=-1)
    loss = F.mse_loss(sim, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} loss {loss.item():.4f}")
