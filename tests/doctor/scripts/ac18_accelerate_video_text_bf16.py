import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

VOCAB, MAX_WORDS, FRAMES, FEAT, DIM = 300, 16, 12, 128, 64


def make_dataset(n):
    """Per-frame clip features (e.g. from a frozen image encoder) and padded captions."""
    topic = torch.randint(0, 30, (n,))
    frame_feats = torch.randn(n, FRAMES, FEAT) * 0.5
    frame_feats[torch.arange(n), :, topic] += 2.0
    lengths = torch.randint(4, MAX_WORDS + 1, (n,))
    words = torch.randint(40, VOCAB, (n, MAX_WORDS))
    words[:, 0] = topic + 1
    pad = torch.arange(MAX_WORDS)[None] >= lengths[:, None]
    words[pad] = 0
    return TensorDataset(frame_feats, words, (~pad).long())


class AttnPool(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.query = nn.Parameter(torch.randn(dim) * 0.02)
        self.key = nn.Linear(dim, dim)

    def forward(self, x, mask=None):
        scores = self.key(x) @ self.query / math.sqrt(x.shape[-1])
        if mask is not None:
            scores = scores.masked_fill(mask == 0, torch.finfo(scores.dtype).min)
        w = scores.softmax(-1)
        return (w.unsqueeze(-1) * x).sum(1)


class Retriever(nn.Module):
    def __init__(self):
        super().__init__()
        self.frame_proj = nn.Linear(FEAT, DIM)
        self.temporal = nn.TransformerEncoderLayer(DIM, 4, DIM * 2, dropout=0.1, batch_first=True)
        self.video_pool = AttnPool(DIM)
        self.word_emb = nn.Embedding(VOCAB, DIM, padding_idx=0)
        self.text_enc = nn.TransformerEncoderLayer(DIM, 4, DIM * 2, dropout=0.1, batch_first=True)
        self.text_pool = AttnPool(DIM)
        self.logit_scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

    def forward(self, frames, words, word_mask):
        v = self.video_pool(self.temporal(self.frame_proj(frames)))
        t = self.text_enc(self.word_emb(words), src_key_padding_mask=word_mask == 0)
        t = self.text_pool(t, word_mask)
        v, t = F.normalize(v.float(), dim=-1), F.normalize(t.float(), dim=-1)
        return self.logit_scale.exp().clamp(max=100) * v @ t.t()


def main():
    accelerator = Accelerator(mixed_precision="bf16", cpu=True)
    model = Retriever()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    train_dl = DataLoader(make_dataset(512), batch_size=64, shuffle=True)
    model, opt, train_dl = accelerator.prepare(model, opt, train_dl)

    for epoch in range(4):
        model.train()
        running = 0.0
        for frames, words, mask in train_dl:
            logits = model(frames, words, mask)
            target = torch.arange(logits.shape[0], device=logits.device)
            loss = (F.cross_entropy(logits, target) + F.cross_entropy(logits.t(), target)) / 2
            opt.zero_grad()
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            running += loss.item()
        accelerator.print(f"epoch {epoch} contrastive loss {running / len(train_dl):.4f}")

    model.eval()
    frames, words, mask = make_dataset(128).tensors
    with torch.no_grad(), accelerator.autocast():
        logits = model(frames, words, mask)
    r1 = (logits.argmax(1) == torch.arange(128)).float().mean().item()
    accelerator.print(f"video->text R@1 on 128 held-out pairs: {r1:.3f}, logit scale "
                      f"{accelerator.unwrap_model(model).logit_scale.exp().item():.2f}")


if __name__ == "__main__":
    main()
