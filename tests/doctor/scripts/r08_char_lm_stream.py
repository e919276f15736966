import math
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import IterableDataset, DataLoader, get_worker_info

torch.manual_seed(0)
rng = np.random.default_rng(8)
WORDS = "the cat dog sat ran on a mat log and then slept quickly under big red old tree".split()
SHARDS = tempfile.mkdtemp(prefix="lm_shards_")
for s in range(4):
    with open(os.path.join(SHARDS, f"shard{s}.txt"), "w") as f:
        for _ in range(400):
            f.write(" ".join(rng.choice(WORDS, rng.integers(3, 12))) + ".\n")

CHARS = sorted(set(" .\n" + "".join(WORDS)))
PAD, BOS = 0, 1
stoi = {c: i + 2 for i, c in enumerate(CHARS)}
itos = {i: c for c, i in stoi.items()}
VOCAB = len(CHARS) + 2


class LineStream(IterableDataset):
    def __init__(self, folder):
        self.files = sorted(os.path.join(folder, f) for f in os.listdir(folder))

    def __iter__(self):
        info = get_worker_info()
        files = self.files if info is None else self.files[info.id::info.num_workers]
        for path in files:
            with open(path) as f:
                for line in f:
                    yield [BOS] + [stoi[c] for c in line.rstrip("\n")] + [stoi["\n"]]


def collate(lines):
    lengths = torch.tensor([len(l) for l in lines])
    ids = torch.full((len(lines), int(lengths.max())), PAD, dtype=torch.long)
    for i, l in enumerate(lines):
        ids[i, :len(l)] = torch.tensor(l)
    mask = torch.arange(ids.shape[1])[None] < lengths[:, None]
    return ids, mask


class CharLM(nn.Module):
    def __init__(self, dim=96):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, dim, padding_idx=PAD)
        self.rnn = nn.GRU(dim, dim, batch_first=True)
        self.lm_head = nn.Linear(dim, VOCAB)

    def forward(self, ids, h=None):
        out, h = self.rnn(self.emb(ids), h)
        return self.lm_head(out), h


model = CharLM()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
dl = DataLoader(LineStream(SHARDS), batch_size=32, collate_fn=collate, num_workers=2)

for epoch in range(2):
    tot_nll, tot_tok = 0.0, 0
    for ids, mask in dl:
        inp, tgt, tmask = ids[:, :-1], ids[:, 1:], mask[:, 1:]
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits, _ = model(inp)
        nll = F.cross_entropy(logits.float().reshape(-1, VOCAB), tgt.reshape(-1), reduction="none")
        nll = nll.view_as(tgt) * tmask
        loss = nll.sum() / tmask.sum()
        opt.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        tot_nll += nll.sum().item()
        tot_tok += tmask.sum().item()
    print(f"epoch {epoch} ppl {math.exp(tot_nll / tot_tok):.3f}")


@torch.no_grad()
def generate(n_chars=60, temperature=0.8):
    ids = torch.tensor([[BOS]])
    h, out = None, []
    for _ in range(n_chars):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits, h = model(ids, h)
        probs = F.softmax(logits[:, -1].float() / temperature, dim=-1)
        probs[:, PAD] = 0.0
        ids = torch.multinomial(probs, 1)
        ch = itos.get(ids.item(), "")
        if ch == "\n":
            break
        out.append(ch)
    return "".join(out)


for _ in range(3):
    print("sample:", repr(generate()))
