"""Masked-LM pre-training of a hand-written BERT with tied input/output embeddings.
fp16 weights + activation (gradient) checkpointing to fit longer sequences."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)

VOCAB, D, HEADS, LAYERS, T = 1500, 64, 4, 3, 64
PAD, CLS, SEP, MASK = 0, 1, 2, 3


class BertSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.qkv = nn.Linear(D, 3 * D)
        self.out = nn.Linear(D, D)

    def forward(self, x, attention_mask):
        B, L, _ = x.shape
        q, k, v = self.qkv(x).view(B, L, 3, HEADS, D // HEADS).permute(2, 0, 3, 1, 4)
        scores = q @ k.transpose(-1, -2) / math.sqrt(D // HEADS)
        scores = scores.masked_fill(attention_mask[:, None, None, :] == 0, torch.finfo(torch.float32).min)
        probs = F.dropout(scores.softmax(-1), 0.1, self.training)
        return self.out((probs @ v).transpose(1, 2).reshape(B, L, D))


class BertLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = BertSelfAttention()
        self.ln1 = nn.LayerNorm(D)
        self.ffn = nn.Sequential(nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))
        self.ln2 = nn.LayerNorm(D)

    def forward(self, x, attention_mask):
        x = self.ln1(x + self.attention(x, attention_mask))
        return self.ln2(x + self.ffn(x))


class BertForMLM(nn.Module):
    def __init__(self, gradient_checkpointing=True):
        super().__init__()
        self.word_embeddings = nn.Embedding(VOCAB, D, padding_idx=PAD)
        self.position_embeddings = nn.Embedding(T, D)
        self.emb_ln = nn.LayerNorm(D)
        self.layers = nn.ModuleList([BertLayer() for _ in range(LAYERS)])
        self.transform = nn.Sequential(nn.Linear(D, D), nn.GELU(), nn.LayerNorm(D))
        self.decoder_bias = nn.Parameter(torch.zeros(VOCAB))
        self.gradient_checkpointing = gradient_checkpointing

    def forward(self, input_ids, attention_mask):
        pos = torch.arange(input_ids.size(1), device=input_ids.device)
        x = self.emb_ln(self.word_embeddings(input_ids) + self.position_embeddings(pos))
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                x = checkpoint(layer, x, attention_mask, use_reentrant=False)
            else:
                x = layer(x, attention_mask)
        h = self.transform(x)
        return h @ self.word_embeddings.weight.t() + self.decoder_bias      # tied decoder


def mlm_batch(bs=16):
    lens = torch.randint(16, T + 1, (bs,))
    ids = torch.randint(4, VOCAB, (bs, T))
    ids[:, 0] = CLS
    attn = (torch.arange(T)[None] < lens[:, None]).long()
    ids = ids * attn
    labels = torch.full_like(ids, -100)
    choose = (torch.rand(bs, T) < 0.15) & attn.bool() & (ids != CLS)
    labels[choose] = ids[choose]
    ids = ids.masked_fill(choose, MASK)
    return ids, attn, labels


model = BertForMLM().half()
opt = torch.optim.AdamW(model.parameters(), lr=5e-4, eps=1e-4)
model.train()
for step in range(20):
    ids, attn, labels = mlm_batch()
    logits = model(ids, attn)
    loss = F.cross_entropy(logits.float().view(-1, VOCAB), labels.view(-1), ignore_index=-100)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 0:
        print(f"step {step:2d} mlm loss {loss.item():.4f}")
