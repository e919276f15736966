import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
PAD, BOS, EOS, UNK = 0, 1, 2, 3
V, H, SRC_LEN, MAX_LEN, ALPHA = 20, 64, 6, 10, 0.6
BANNED = [PAD, BOS, UNK]


def reverse_task(n):
    src = torch.randint(4, V, (n, SRC_LEN))
    tgt = torch.cat([torch.full((n, 1), BOS), src.flip(1), torch.full((n, 1), EOS)], dim=1)
    return src, tgt


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, H)
        self.enc = nn.GRU(H, H, batch_first=True)
        self.dec = nn.GRUCell(H, H)
        self.out = nn.Linear(H, V)

    def encode(self, src):
        _, h = self.enc(self.emb(src))
        return h[0]

    def step(self, tok, h):
        h = self.dec(self.emb(tok), h)
        return F.log_softmax(self.out(h), dim=-1), h

    def forward(self, src, tgt):
        h = self.encode(src)
        logits = []
        for t in range(tgt.size(1) - 1):
            h = self.dec(self.emb(tgt[:, t]), h)
            logits.append(self.out(h))
        return F.cross_entropy(torch.stack(logits, 1).reshape(-1, V), tgt[:, 1:].reshape(-1))


LP_TABLE = torch.from_numpy(((5.0 + np.arange(MAX_LEN + 2)) / 6.0) ** ALPHA)


@torch.no_grad()
def beam_search(model, src, beam=4):
    h = model.encode(src.unsqueeze(0)).expand(beam, -1).contiguous()
    tokens = torch.full((beam, 1), BOS)
    scores = torch.full((beam,), float("-inf"))
    scores[0] = 0.0
    lengths = torch.zeros(beam, dtype=torch.long)
    best_scores = torch.full((beam,), float("-inf"))
    best_seqs = [None] * beam
    for _ in range(MAX_LEN):
        logp, h = model.step(tokens[:, -1], h)
        logp[:, BANNED] = float("-inf")
        cand = (scores.unsqueeze(1) + logp).view(-1)
        top, idx = cand.topk(beam)
        src_beam, tok = idx // V, idx % V
        tokens = torch.cat([tokens[src_beam], tok.unsqueeze(1)], dim=1)
        h, scores, lengths = h[src_beam], top, lengths[src_beam] + 1
        done = tok == EOS
        if done.any():
            norm = scores / LP_TABLE[lengths]
            better = done & (norm > best_scores)
            best_scores[better] = norm[better]
            for i in better.nonzero().flatten().tolist():
                best_seqs[i] = tokens[i, 1:-1].tolist()
            scores = scores.masked_fill(done, float("-inf"))
        if torch.isinf(scores).all():
            break
    i = int(best_scores.argmax())
    return best_seqs[i], best_scores[i].item()


model = Seq2Seq()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(150):
    src, tgt = reverse_task(64)
    loss = model(src, tgt)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step} xent {loss.item():.4f}")

model.eval()
src, tgt = reverse_task(8)
exact = 0
for s, t in zip(src, tgt):
    hyp, score = beam_search(model, s)
    exact += int(hyp == t[1:-1].tolist())
    print("src", s.tolist(), "hyp", hyp, f"score {score:.3f}")
print(f"exact match {exact}/{len(src)}")
