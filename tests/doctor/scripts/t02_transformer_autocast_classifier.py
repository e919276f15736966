"""Tiny transformer sequence classifier trained with CPU bf16 autocast (fp32 master weights)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Model(nn.Module):
    def __init__(self, vocab=300, d=64, n_cls=4, max_len=64):
        super().__init__()
        self.tok = nn.Embedding(vocab, d, padding_idx=0)
        self.register_buffer("pos_ids", torch.arange(max_len), persistent=False)
        self.pos = nn.Embedding(max_len, d)
        layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, n_cls)

    def forward(self, ids):
        pad = ids == 0
        x = self.tok(ids) + self.pos(self.pos_ids[: ids.size(1)])
        x = self.encoder(x, src_key_padding_mask=pad)
        keep = (~pad).unsqueeze(-1).to(x.dtype)
        x = (x * keep).sum(1) / keep.sum(1)
        return self.head(self.norm(x))


def batches(n, bs=16, T=32):
    for _ in range(n):
        ids = torch.randint(1, 300, (bs, T))
        lens = torch.randint(4, T + 1, (bs,))
        ids[torch.arange(T)[None] >= lens[:, None]] = 0
        yield ids, (ids[:, 0] % 4)


model = Model()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step, (ids, y) in enumerate(batches(8)):
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        logits = model(ids)
    loss = F.cross_entropy(logits.float(), y)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    assert torch.isfinite(loss)
    print(f"step {step} loss {loss.item():.4f} (logits dtype {logits.dtype})")
