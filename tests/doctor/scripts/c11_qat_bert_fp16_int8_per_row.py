"""Quantization-aware fine-tuning of a small BERT-like classifier (int8 weights, per-row scales,
LSQ learned activation scales, straight-through estimator), run in fp16."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, HEADS, LAYERS, N_CLASSES, PAD = 2000, 64, 4, 2, 4, 0
QMAX = 127


def round_ste(x):
    return x + (x.round() - x).detach()


def fake_quant_per_row(w):
    """Symmetric int8 fake quantization with one scale per output row."""
    scale = w.detach().abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / QMAX
    return torch.clamp(round_ste(w / scale), -QMAX, QMAX) * scale


class LSQActQuant(nn.Module):
    """Learned step size quantizer (Esser et al.) for activations."""

    def __init__(self, init_scale=0.05):
        super().__init__()
        self.scale = nn.Parameter(torch.tensor(init_scale))

    def forward(self, x):
        g = 1.0 / math.sqrt(x.numel() * QMAX)
        s = self.scale * g + (self.scale - self.scale * g).detach()       # gradient scaling
        return torch.clamp(round_ste(x / s), -QMAX, QMAX) * s


class QuantLinear(nn.Linear):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.act_q = LSQActQuant()

    def forward(self, x):
        return F.linear(self.act_q(x), fake_quant_per_row(self.weight), self.bias)


class QuantEmbedding(nn.Embedding):
    def forward(self, ids):
        return F.embedding(ids, fake_quant_per_row(self.weight), self.padding_idx)


class SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.query, self.key, self.value = QuantLinear(D, D), QuantLinear(D, D), QuantLinear(D, D)
        self.dense = QuantLinear(D, D)

    def forward(self, x, mask):
        B, T, _ = x.shape
        shape = lambda t: t.view(B, T, HEADS, D // HEADS).transpose(1, 2)
        q, k, v = shape(self.query(x)), shape(self.key(x)), shape(self.value(x))
        scores = q @ k.transpose(-1, -2) / math.sqrt(D // HEADS)
        scores = scores.masked_fill(~mask[:, None, None, :], torch.finfo(scores.dtype).min)
        ctx = scores.softmax(-1) @ v
        return self.dense(ctx.transpose(1, 2).reshape(B, T, D))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = SelfAttention()
        self.ln1 = nn.LayerNorm(D)
        self.intermediate = QuantLinear(D, 4 * D)
        self.output = QuantLinear(4 * D, D)
        self.ln2 = nn.LayerNorm(D)

    def forward(self, x, mask):
        x = self.ln1(x + self.attention(x, mask))
        return self.ln2(x + self.output(F.gelu(self.intermediate(x))))


class QBert(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = QuantEmbedding(VOCAB, D, padding_idx=PAD)
        self.position_embeddings = nn.Embedding(128, D)
        self.emb_ln = nn.LayerNorm(D)
        self.layers = nn.ModuleList([Layer() for _ in range(LAYERS)])
        self.classifier = QuantLinear(D, N_CLASSES)

    def forward(self, ids):
        mask = ids.ne(PAD)
        pos = torch.arange(ids.size(1), device=ids.device)
        x = self.emb_ln(self.word_embeddings(ids) + self.position_embeddings(pos))
        for layer in self.layers:
            x = layer(x, mask)
        return self.classifier(x[:, 0])


def batch(n=16, T=40):
    lens = torch.randint(10, T + 1, (n,))
    ids = torch.randint(1, VOCAB, (n, T)) * (torch.arange(T)[None] < lens[:, None])
    labels = (ids[:, 1] % N_CLASSES)
    return ids, labels


model = QBert().half()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4, eps=1e-4)
for step in range(15):
    ids, labels = batch()
    logits = model(ids)
    loss = F.cross_entropy(logits.float(), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        acc = (logits.argmax(-1) == labels).float().mean().item()
        print(f"step {step:2d} loss {loss.item():.4f} acc {acc:.2f}")
print("done", loss.item())
