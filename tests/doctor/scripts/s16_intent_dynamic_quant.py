import os
import random
import tempfile
import time
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)

INTENTS = {
    "weather": ["weather", "rain", "sunny", "forecast", "cold", "tomorrow"],
    "alarm": ["alarm", "wake", "set", "morning", "clock", "remind"],
    "music": ["play", "song", "music", "album", "artist", "volume"],
    "timer": ["timer", "minutes", "countdown", "start", "stop", "seconds"],
}
FILLER = ["please", "can", "you", "the", "me", "a", "for", "my", "now", "hey"]
VOCAB = ["<pad>", "<unk>"] + sorted({w for ws in INTENTS.values() for w in ws} | set(FILLER))
stoi = {w: i for i, w in enumerate(VOCAB)}
labels = list(INTENTS)


def make_utterances(n):
    out = []
    for _ in range(n):
        y = random.randrange(len(labels))
        words = random.sample(INTENTS[labels[y]], 2) + random.choices(FILLER, k=random.randint(2, 6))
        random.shuffle(words)
        out.append(([stoi.get(w, 1) for w in words], y))
    return out


def collate(batch, max_len=10):
    ids = torch.zeros(len(batch), max_len, dtype=torch.long)
    for i, (toks, _) in enumerate(batch):
        ids[i, :len(toks)] = torch.tensor(toks[:max_len])
    return ids, torch.tensor([y for _, y in batch], dtype=torch.long)


class IntentClassifier(nn.Module):
    def __init__(self, d=64, hidden=256):
        super().__init__()
        self.embed = nn.Embedding(len(VOCAB), d, padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.out = nn.Linear(hidden, len(labels))

    def forward(self, ids):
        mask = ids.ne(0).unsqueeze(-1).float()
        pooled = (self.embed(ids) * mask).sum(1) / mask.sum(1).clamp_min(1.0)
        return self.out(self.mlp(pooled))


train, test = make_utterances(2000), make_utterances(500)
model = IntentClassifier()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for epoch in range(4):
    random.shuffle(train)
    for i in range(0, len(train), 64):
        ids, y = collate(train[i:i + 64])
        loss = F.cross_entropy(model(ids), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} loss {loss.item():.4f}")
model.eval()

qmodel = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
tmp = tempfile.mkdtemp()
fp_path, q_path = os.path.join(tmp, "fp32.pt"), os.path.join(tmp, "int8.pt")
torch.save(model.state_dict(), fp_path)
torch.save(qmodel.state_dict(), q_path)
print(f"size fp32 {os.path.getsize(fp_path) / 1e3:.1f} kB  int8 {os.path.getsize(q_path) / 1e3:.1f} kB")

ids, y = collate(test)
with torch.inference_mode():
    for name, m in [("fp32", model), ("dynamic-int8", qmodel)]:
        t0 = time.perf_counter()
        for _ in range(20):
            logits = m(ids)
        dt = (time.perf_counter() - t0) / 20
        loss = F.cross_entropy(logits, y).item()
        acc = (logits.argmax(1) == y).float().mean().item()
        print(f"{name:>13s}: loss {loss:.4f} acc {acc:.3f} latency {dt * 1e3:.2f} ms/batch")
    agree = (model(ids).argmax(1) == qmodel(ids).argmax(1)).float().mean().item()
print(f"prediction agreement fp32 vs int8: {agree:.3f}")
