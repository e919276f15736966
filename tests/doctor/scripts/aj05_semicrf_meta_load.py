import math
import os
import tempfile

import torch
import torch.nn as nn

torch.manual_seed(0)
VOCAB, K, T, MAX_SEG = 60, 3, 12, 4


def sample(n):
    toks = torch.zeros(n, T, dtype=torch.long)
    segs = []
    for b in range(n):
        pos, cur = 0, []
        while pos < T:
            l = min(int(torch.randint(1, MAX_SEG + 1, ())), T - pos)
            y = int(torch.randint(0, K, ()))
            toks[b, pos:pos + l] = torch.randint(y * 20, y * 20 + 20, (l,))
            cur.append((pos, pos + l, y))
            pos += l
        segs.append(cur)
    return toks, segs


class SemiMarkovCRF(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, d)
        self.conv = nn.Conv1d(d, d, 3, padding=1)
        self.label_proj = nn.Linear(d, K)
        self.trans = nn.Parameter(torch.zeros(K, K))
        self.start = nn.Parameter(torch.zeros(K))
        prior = torch.tensor([math.log(0.5 ** l) for l in range(1, MAX_SEG + 1)])
        self.register_buffer("length_bias", prior, persistent=False)

    def segment_scores(self, toks):
        h = torch.relu(self.conv(self.emb(toks).transpose(1, 2))).transpose(1, 2)
        csum = torch.cat([torch.zeros_like(h[:, :1]), h.cumsum(1)], dim=1)
        scores = {}
        for j in range(1, T + 1):
            for l in range(1, min(MAX_SEG, j) + 1):
                rep = (csum[:, j] - csum[:, j - l]) / l
                scores[(j, l)] = self.label_proj(rep) + self.length_bias[l - 1]
        return scores

    def log_partition(self, scores, B):
        alpha = [self.start.expand(B, K)]
        for j in range(1, T + 1):
            terms = []
            for l in range(1, min(MAX_SEG, j) + 1):
                prev = alpha[j - l] if j - l > 0 else self.start.expand(B, K)
                inc = torch.logsumexp(prev.unsqueeze(2) + self.trans, dim=1) if j - l > 0 else prev
                terms.append(inc + scores[(j, l)])
            alpha.append(torch.logsumexp(torch.stack(terms), dim=0))
        return torch.logsumexp(alpha[T], dim=1)

    def gold(self, scores, segs):
        out = []
        for b, cur in enumerate(segs):
            s, prev = self.start[cur[0][2]], None
            for (i, j, y) in cur:
                s = s + scores[(j, j - i)][b, y]
                if prev is not None:
                    s = s + self.trans[prev, y]
                prev = y
            out.append(s)
        return torch.stack(out)

    def forward(self, toks, segs):
        scores = self.segment_scores(toks)
        return (self.log_partition(scores, toks.size(0)) - self.gold(scores, segs)).mean()


model = SemiMarkovCRF()
opt = torch.optim.Adam(model.parameters(), lr=5e-3)
for step in range(40):
    toks, segs = sample(16)
    loss = model(toks, segs)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step} semi-crf nll {loss.item():.4f}")

with tempfile.TemporaryDirectory() as d:
    ckpt = os.path.join(d, "semicrf_bf16.pt")
    torch.save({k: v.to(torch.bfloat16) for k, v in model.state_dict().items()}, ckpt)

    with torch.device("meta"):
        served = SemiMarkovCRF()
    served.load_state_dict(torch.load(ckpt), assign=True)
    served = served.float().eval()

    with torch.no_grad():
        toks, segs = sample(32)
        print("served nll", served(toks, segs).item())
