import numpy as np
import torch

torch.manual_seed(0)
rng = np.random.default_rng(17)
DIM, WINDOW, NEG, LR = 32, 2, 5, 0.05

GROUPS = [
    "king queen prince princess throne crown royal palace".split(),
    "dog cat puppy kitten pet leash fur paw".split(),
    "car truck engine wheel road driver fuel brake".split(),
    "apple banana fruit juice orange peel ripe sweet".split(),
]
STOP = "the a of and to in is was with on".split()


def corpus(n_sent=3000):
    sents = []
    for _ in range(n_sent):
        g = GROUPS[rng.integers(len(GROUPS))]
        words = list(rng.choice(g, rng.integers(4, 8)))
        for _ in range(rng.integers(1, 4)):
            words.insert(rng.integers(0, len(words)), rng.choice(STOP))
        sents.append(words)
    return sents


sents = corpus()
itos = sorted({str(w) for s in sents for w in s})
stoi = {w: i for i, w in enumerate(itos)}
ids = [np.array([stoi[w] for w in s]) for s in sents]
counts = np.bincount(np.concatenate(ids), minlength=len(itos))
noise_dist = torch.from_numpy(counts ** 0.75 / (counts ** 0.75).sum()).float()
row_lr = torch.from_numpy(1.0 / np.sqrt(counts / counts.mean()))

pairs = []
for s in ids:
    for i, c in enumerate(s):
        for j in range(max(0, i - WINDOW), min(len(s), i + WINDOW + 1)):
            if j != i:
                pairs.append((c, s[j]))
pairs = torch.tensor(np.array(pairs), dtype=torch.long)
print(f"vocab {len(itos)}, training pairs {len(pairs)}")

in_embed = (torch.rand(len(itos), DIM) - 0.5) / DIM
out_embed = torch.zeros(len(itos), DIM)


def sgns_step(centers, contexts):
    negs = torch.multinomial(noise_dist, centers.numel() * NEG, replacement=True).view(-1, NEG)
    u = in_embed[centers]
    v_pos, v_neg = out_embed[contexts], out_embed[negs]
    s_pos = torch.sigmoid((u * v_pos).sum(-1))
    s_neg = torch.sigmoid(torch.einsum("bd,bkd->bk", u, v_neg))
    loss = -(torch.log(s_pos + 1e-7).mean() + torch.log(1 - s_neg + 1e-7).sum(-1).mean())
    g_pos = (s_pos - 1)[:, None]
    grad_u = g_pos * v_pos + torch.einsum("bk,bkd->bd", s_neg, v_neg)
    grad_pos = g_pos * u
    grad_neg = s_neg[..., None] * u[:, None, :]
    scale_c = (LR * row_lr[centers])[:, None]
    in_embed.index_add_(0, centers, -scale_c * grad_u)
    out_embed.index_add_(0, contexts, -LR * grad_pos)
    out_embed.index_add_(0, negs.reshape(-1), -LR * grad_neg.reshape(-1, DIM))
    return loss.item()


for epoch in range(3):
    perm = torch.randperm(len(pairs))
    losses = [sgns_step(*pairs[perm[k:k + 512]].t()) for k in range(0, len(pairs), 512)]
    print(f"epoch {epoch} sgns loss {np.mean(losses):.4f}")

emb = torch.nn.functional.normalize(in_embed, dim=1)
for w in ["king", "dog", "car", "apple"]:
    sims = emb @ emb[stoi[w]]
    best = sims.argsort(descending=True)[1:4].tolist()
    print(w, "->", [itos[i] for i in best])
