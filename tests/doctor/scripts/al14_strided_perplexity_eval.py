import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
VOCAB, D, HEADS, LAYERS, CTX, STRIDE = 1000, 128, 4, 2, 128, 64


class TokenStream(Dataset):
    """Strided windows over a long synthetic token stream (HF-style sliding perplexity)."""

    def __init__(self, n_tokens=14_000):
        base = torch.randint(0, VOCAB, (n_tokens // 4,))
        self.tokens = torch.cat([base, base.flip(0), (base * 7) % VOCAB, base.roll(3)])
        self.starts = list(range(0, len(self.tokens) - CTX, STRIDE))

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, i):
        s = self.starts[i]
        ids = self.tokens[s:s + CTX + 1]
        labels = ids[1:].clone()
        if i > 0:
            labels[: CTX - STRIDE] = -100
        return ids[:-1], labels


class CausalLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D)
        self.pos = nn.Embedding(CTX, D)
        layer = nn.TransformerEncoderLayer(D, HEADS, 4 * D, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.ln = nn.LayerNorm(D)
        self.lm_head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, ids):
        t = ids.shape[1]
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), 1)
        h = self.body(self.tok(ids) + self.pos(torch.arange(t)), mask=mask)
        return self.lm_head(self.ln(h))


model = CausalLM().half().eval()
loader = DataLoader(TokenStream(), batch_size=16, shuffle=False)

total_nll, total_tokens = 0, 0
with torch.no_grad():
    for step, (ids, labels) in enumerate(loader):
        logits = model(ids)
        nll = F.cross_entropy(logits.reshape(-1, VOCAB), labels.reshape(-1), ignore_index=-100, reduction="sum")
        n = int((labels != -100).sum())
        total_nll += nll
        total_tokens += n
        if step % 5 == 0:
            print(f"batch {step:3d}: batch nll/token {nll.item() / n:.4f}, running tokens {total_tokens}")

mean_nll = total_nll / total_tokens
ppl = torch.exp(mean_nll)
print(f"evaluated {total_tokens} tokens in {len(loader)} batches")
print(f"mean nll {float(mean_nll):.4f}  perplexity {float(ppl):.2f}  (uniform baseline {VOCAB})")
print(f"bits per token {float(mean_nll) / math.log(2):.4f}")
