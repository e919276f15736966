import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
np.random.seed(0)

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
VOCAB, DIM, SEQ = 5000, 96, 64


def sinusoid_table(n_pos, dim):
    pos = np.arange(n_pos)[:, None]
    i = np.arange(dim)[None, :]
    angle = pos / np.power(10000, (2 * (i // 2)) / dim)
    table = np.zeros((n_pos, dim))
    table[:, 0::2] = np.sin(angle[:, 0::2])
    table[:, 1::2] = np.cos(angle[:, 1::2])
    return table


class OffloadedEmbedding(nn.Module):
    """Big vocab table stays in host memory; only the rows of the current batch go to the device."""

    def __init__(self, vocab, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(vocab, dim) * dim ** -0.5)

    def forward(self, ids):
        return F.embedding(ids.cpu(), self.weight).to(device, non_blocking=True)


class Encoder(nn.Module):
    def __init__(self, n_classes=4, depth=3):
        super().__init__()
        layer = lambda: nn.TransformerEncoderLayer(DIM, 4, 2 * DIM, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.ModuleList(layer() for _ in range(depth))
        self.register_buffer("pos", torch.from_numpy(sinusoid_table(SEQ, DIM)), persistent=False)
        self.norm = nn.LayerNorm(DIM)
        self.cls = nn.Linear(DIM, n_classes)

    def forward(self, x):
        x = x + self.pos[: x.size(1)]
        for blk in self.blocks:
            x = checkpoint(blk, x, use_reentrant=False) if self.training else blk(x)
        return self.cls(self.norm(x).mean(1))


def make_data(n):
    y = np.random.randint(0, 4, size=n)
    ids = np.random.randint(0, VOCAB, size=(n, SEQ))
    for k in range(4):
        rows = y == k
        ids[rows, :: k + 2] = 10 + k
    return torch.from_numpy(ids), torch.from_numpy(y)


def main():
    x_tr, y_tr = make_data(1024)
    x_va, y_va = make_data(256)
    emb = OffloadedEmbedding(VOCAB, DIM)
    model = Encoder().to(device)
    opt_dev = torch.optim.AdamW(model.parameters(), lr=1e-3)
    opt_emb = torch.optim.Adam(emb.parameters(), lr=1e-3)

    for epoch in range(3):
        model.train()
        perm = torch.randperm(len(x_tr))
        for i in range(0, len(perm), 64):
            idx = perm[i:i + 64]
            logits = model(emb(x_tr[idx]))
            loss = F.cross_entropy(logits, y_tr[idx].to(device))
            opt_dev.zero_grad(set_to_none=True)
            opt_emb.zero_grad(set_to_none=True)
            loss.backward()
            opt_dev.step()
            opt_emb.step()
        model.eval()
        with torch.no_grad():
            logits = model(emb(x_va))
            acc = (logits.argmax(-1).cpu() == y_va).float().mean().item()
        print(f"epoch {epoch} loss {loss.item():.4f} val acc {acc:.3f}")


if __name__ == "__main__":
    main()
