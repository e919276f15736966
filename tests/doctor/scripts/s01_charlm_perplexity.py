import math
import random
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)

WORDS = ["the", "cat", "sat", "on", "a", "mat", "dog", "ran", "to", "park", "and", "then", "slept",
         "under", "tree", "bird", "sang", "loud", "song", "in", "morning", "light"]
VOCAB = sorted(set(" ".join(WORDS)) | {".", "\n"})
stoi = {c: i for i, c in enumerate(VOCAB)}


def make_corpus(n_sent):
    lines = []
    for _ in range(n_sent):
        lines.append(" ".join(random.choice(WORDS) for _ in range(random.randint(4, 10))) + ".")
    return "\n".join(lines)


def encode(text):
    return torch.tensor([stoi[c] for c in text], dtype=torch.long)


class CharLM(nn.Module):
    def __init__(self, vocab, d=96, n_layers=2, n_heads=4, ctx=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(ctx, d)
        layer = nn.TransformerEncoderLayer(d, n_heads, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.register_buffer("causal", torch.triu(torch.full((ctx, ctx), float("-inf")), 1), persistent=False)

    def forward(self, idx):
        T = idx.shape[1]
        h = self.tok(idx) + self.pos(torch.arange(T))
        h = self.blocks(h, mask=self.causal[:T, :T].to(h.dtype), is_causal=True)
        return self.lm_head(self.ln_f(h))


def batches(data, ctx, bs, shuffle):
    n = (len(data) - 1) // ctx
    starts = torch.arange(n) * ctx
    if shuffle:
        starts = starts[torch.randperm(n)]
    for i in range(0, n - bs + 1, bs):
        s = starts[i:i + bs]
        x = torch.stack([data[j:j + ctx] for j in s])
        y = torch.stack([data[j + 1:j + ctx + 1] for j in s])
        yield x, y


train_data = encode(make_corpus(3000))
valid_data = encode(make_corpus(2500))
ctx, bs = 64, 32

model = CharLM(len(VOCAB), ctx=ctx)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
step = 0
for x, y in batches(train_data, ctx, bs, shuffle=True):
    logits = model(x)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    step += 1
    if step % 20 == 0:
        print(f"step {step} train loss {loss.item():.3f}")
    if step == 60:
        break

model = model.half().eval()

batch_nlls = []
n_tokens = 0
with torch.no_grad():
    for x, y in batches(valid_data, ctx, bs, shuffle=False):
        logits = model(x)
        nll = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1), reduction="sum")
        batch_nlls.append(nll)
        n_tokens += y.numel()

total_nll = torch.stack(batch_nlls).sum()
ppl = torch.exp(total_nll / n_tokens)
print(f"eval tokens {n_tokens}  mean nll {total_nll.item() / n_tokens:.4f}  perplexity {ppl.item():.3f}")
