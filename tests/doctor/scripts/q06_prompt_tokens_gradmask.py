import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
np.random.seed(0)
BASE_VOCAB, N_PROMPT, D, SEQ = 50, 10, 64, 20


class TinyLM(nn.Module):
    def __init__(self, vocab, d=D, n_layers=2):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab, d)
        self.pos_emb = nn.Embedding(64, d)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)

    def forward(self, ids):
        L = ids.shape[1]
        x = self.tok_emb(ids) + self.pos_emb(torch.arange(L))
        causal = nn.Transformer.generate_square_subsequent_mask(L)
        return self.lm_head(self.ln_f(self.encoder(x, mask=causal, is_causal=True)))


def resize_vocab(model, new_vocab):
    old = model.tok_emb.weight.data
    emb = nn.Embedding(new_vocab, old.shape[1])
    emb.weight.data[: old.shape[0]] = old
    emb.weight.data[old.shape[0]:] = old.mean(0, keepdim=True) + 0.01 * torch.randn(new_vocab - old.shape[0], old.shape[1])
    model.tok_emb = emb
    head = nn.Linear(old.shape[1], new_vocab, bias=False)
    head.weight.data[: old.shape[0]] = model.lm_head.weight.data
    head.weight.data[old.shape[0]:] = 0.0
    model.lm_head = head


def lm_batch(bs):
    start = torch.randint(0, BASE_VOCAB, (bs, 1))
    step = torch.randint(1, 4, (bs, 1))
    seq = (start + step * torch.arange(SEQ + 1)) % BASE_VOCAB
    return seq[:, :-1], seq[:, 1:]


def task_batch(bs):
    # the task: reverse-step sequence, to be triggered by the learned prompt tokens
    start = torch.randint(0, BASE_VOCAB, (bs, 1))
    seq = (start - torch.arange(SEQ + 1)) % BASE_VOCAB
    prompt = torch.arange(BASE_VOCAB, BASE_VOCAB + N_PROMPT).expand(bs, -1)
    ids = torch.cat([prompt, seq[:, :-1]], 1)
    tgt = torch.cat([torch.full((bs, N_PROMPT), -100), seq[:, 1:]], 1)
    return ids, tgt


model = TinyLM(BASE_VOCAB)
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
for step in range(100):
    x, y = lm_batch(32)
    loss = F.cross_entropy(model(x).reshape(-1, BASE_VOCAB), y.reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"pretrained LM loss {loss.item():.4f}")

resize_vocab(model, BASE_VOCAB + N_PROMPT)
model.requires_grad_(False)
model.tok_emb.weight.requires_grad_(True)
base_rows = model.tok_emb.weight[:BASE_VOCAB].detach().clone()

row_mask = np.zeros((BASE_VOCAB + N_PROMPT, 1))
row_mask[BASE_VOCAB:] = 1.0
row_mask = torch.from_numpy(row_mask)
model.tok_emb.weight.register_hook(lambda g: g * row_mask)

opt = torch.optim.Adam([model.tok_emb.weight], lr=5e-3)
V = BASE_VOCAB + N_PROMPT
for step in range(120):
    x, y = task_batch(32)
    loss = F.cross_entropy(model(x).reshape(-1, V), y.reshape(-1), ignore_index=-100)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 30 == 0:
        print(f"prompt-tuning step {step:3d} loss {loss.item():.4f}")

drift = (model.tok_emb.weight[:BASE_VOCAB] - base_rows).abs().max().item()
with torch.no_grad():
    x, y = task_batch(256)
    pred = model(x).argmax(-1)
    acc = (pred[:, N_PROMPT:] == y[:, N_PROMPT:]).float().mean().item()
print(f"task acc {acc:.3f}  base-row drift {drift:.4f}")
