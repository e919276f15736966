"""Time-series classifier (nn.TransformerEncoder) trained, checkpointed, then re-instantiated
with meta-device init + to_empty() for a fast evaluation job."""
import math
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

SEQ_LEN, N_FEAT, N_CLS = 32, 6, 3


class SinusoidalPE(nn.Module):
    def __init__(self, d_model, max_len=256):
        super().__init__()
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(1, max_len, d_model)
        pe[0, :, 0::2] = torch.sin(pos * div)
        pe[0, :, 1::2] = torch.cos(pos * div)
        self.pe = pe  # fixed table, not a learnable parameter

    def forward(self, x):
        return x + self.pe[:, : x.size(1)]


class TSClassifier(nn.Module):
    def __init__(self, d_model=48, nhead=4, layers=2):
        super().__init__()
        self.inp = nn.Linear(N_FEAT, d_model)
        self.pos = SinusoidalPE(d_model)
        layer = nn.TransformerEncoderLayer(d_model, nhead, dim_feedforward=96, batch_first=True, dropout=0.1)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.norm = nn.LayerNorm(d_model)
        self.cls = nn.Linear(d_model, N_CLS)

    def forward(self, x):
        h = self.pos(self.inp(x))
        h = self.encoder(h)
        return self.cls(self.norm(h.mean(1)))


def synth(n):
    y = torch.randint(0, N_CLS, (n,))
    t = torch.linspace(0, 4 * math.pi, SEQ_LEN)
    freq = (y.float() + 1.0).view(-1, 1, 1)
    x = torch.sin(freq * t.view(1, -1, 1) + torch.rand(n, 1, N_FEAT)) + 0.3 * torch.randn(n, SEQ_LEN, N_FEAT)
    return x, y


def main():
    xtr, ytr = synth(256)
    xva, yva = synth(64)
    model = TSClassifier()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for epoch in range(3):
        model.train()
        perm = torch.randperm(len(xtr))
        for i in range(0, len(xtr), 32):
            idx = perm[i : i + 32]
            loss = F.cross_entropy(model(xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "ts_classifier.pt")
        torch.save({"model": model.state_dict(), "epoch": 3}, path)

        # --- evaluation job: skip random init, allocate once, then load ---
        with torch.device("meta"):
            eval_model = TSClassifier()
        eval_model = eval_model.to_empty(device="cpu")
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
        eval_model.load_state_dict(ckpt["model"])
        eval_model.eval()

        correct = 0
        with torch.no_grad():
            for i in range(0, len(xva), 16):
                logits = eval_model(xva[i : i + 16])
                correct += (logits.argmax(-1) == yva[i : i + 16]).sum().item()
        print(f"val acc {correct / len(xva):.3f}")


if __name__ == "__main__":
    main()
