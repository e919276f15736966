"""Character-level GRU language model trained in pure fp16 with hand-kept fp32 master
weights and a static loss scale (the classic pre-AMP recipe)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

text = ("the quick brown fox jumps over the lazy dog. " * 40 +
        "pack my box with five dozen liquor jugs. " * 40)
chars = sorted(set(text))
stoi = {c: i for i, c in enumerate(chars)}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
V, SEQ, BS = len(chars), 32, 16
LOSS_SCALE = 2.0 ** 16
LR = 0.5


class CharGRU(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(V, 48)
        self.rnn = nn.GRU(48, 96, batch_first=True)
        self.head = nn.Linear(96, V)

    def forward(self, x):
        h, _ = self.rnn(self.emb(x))
        return self.head(h)


def get_batch():
    ix = torch.randint(0, len(data) - SEQ - 1, (BS,))
    x = torch.stack([data[i:i + SEQ] for i in ix])
    y = torch.stack([data[i + 1:i + SEQ + 1] for i in ix])
    return x, y


model = CharGRU()
# fp32 master copy of every parameter; the model itself runs in fp16
master = [p.detach().clone().float() for p in model.parameters()]
momentum = [torch.zeros_like(m) for m in master]
model.half()

for step in range(30):
    x, y = get_batch()
    logits = model(x)
    # per-sequence loss (sum over tokens, mean over sequences)
    loss = F.cross_entropy(logits.float().reshape(-1, V), y.reshape(-1), reduction="sum") / BS
    model.zero_grad(set_to_none=True)
    (loss * LOSS_SCALE).backward()
    with torch.no_grad():
        for p, m, buf in zip(model.parameters(), master, momentum):
            g = p.grad.float() / LOSS_SCALE
            buf.mul_(0.9).add_(g)
            m.add_(buf, alpha=-LR / SEQ)
            p.copy_(m)  # fp32 master -> fp16 model
    if step % 5 == 0:
        print(f"step {step} loss/token {loss.item() / SEQ:.4f}")

with torch.no_grad():
    x, y = get_batch()
    val = F.cross_entropy(model(x).float().reshape(-1, V), y.reshape(-1))
print("val loss", val.item())
