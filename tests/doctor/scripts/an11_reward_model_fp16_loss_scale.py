import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

VOCAB, D, SEQ, N = 120, 64, 32, 512
LOSS_SCALE = 2.0 ** 16


def make_pairs(n):
    chosen = torch.randint(0, VOCAB, (n, SEQ))
    rejected = torch.randint(0, VOCAB, (n, SEQ))
    chosen[:, -6:] = torch.randint(0, 20, (n, 6))
    rejected[:, -6:] = torch.randint(60, VOCAB, (n, 6))
    return TensorDataset(chosen, rejected)


class ScalarRewardModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.conv = nn.Conv1d(D, D, kernel_size=3, padding=1)
        self.norm = nn.LayerNorm(D)
        self.head = nn.Linear(D, 1)

    def forward(self, ids):
        h = self.embed(ids).transpose(1, 2)
        h = F.gelu(self.conv(h)).transpose(1, 2)
        h = self.norm(h).mean(1)
        return self.head(h).squeeze(-1)


model = ScalarRewardModel().half()
params = list(model.parameters())
loader = DataLoader(make_pairs(N), batch_size=64, shuffle=True)
lr = 1e-3

step = 0
for epoch in range(2):
    for chosen, rejected in loader:
        r_c, r_r = model(chosen), model(rejected)
        loss = -F.logsigmoid(r_c - r_r).sum()
        for p in params:
            p.grad = None
        (loss * LOSS_SCALE).backward()
        with torch.no_grad():
            for p in params:
                p.grad.div_(LOSS_SCALE)
                p.add_(p.grad, alpha=-lr)
        if step % 4 == 0:
            acc = (r_c > r_r).float().mean()
            print(f"step {step} loss {loss.item():.4f} acc {acc.item():.3f}")
        step += 1

with tempfile.TemporaryDirectory() as d:
    torch.save(model.state_dict(), f"{d}/reward_model_fp16.pt")
print(f"final loss {loss.item():.4f}")
