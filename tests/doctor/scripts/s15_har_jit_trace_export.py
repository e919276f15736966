import math
import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
ACTIVITIES = ["walk", "run", "sit", "stand", "stairs_up", "stairs_down"]
WINDOW, CHANNELS = 100, 6


def synth_imu(n):
    y = torch.randint(0, len(ACTIVITIES), (n,))
    t = torch.arange(WINDOW).float() / 50.0
    freq = torch.tensor([1.8, 2.8, 0.0, 0.0, 1.4, 1.6])[y]
    amp = torch.tensor([1.0, 2.0, 0.05, 0.1, 1.2, 0.9])[y]
    sig = amp[:, None, None] * torch.sin(2 * math.pi * freq[:, None, None] * t[None, None, :] +
                                         torch.arange(CHANNELS).float()[None, :, None])
    sig[:, 2] += 9.81 + torch.tensor([0.0, 0.0, -3.0, 0.0, 0.5, -0.5])[y][:, None]
    return (sig + 0.2 * torch.randn_like(sig)).transpose(1, 2), y


def sinusoid_table(n_pos, d):
    pos = torch.arange(n_pos).float()[:, None]
    div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
    table = torch.zeros(n_pos, d)
    table[:, 0::2], table[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)
    return table


class HARTransformer(nn.Module):
    def __init__(self, d=64, n_layers=2):
        super().__init__()
        self.input_proj = nn.Linear(CHANNELS, d)
        self.pe = sinusoid_table(WINDOW, d)
        layer = nn.TransformerEncoderLayer(d, 4, 128, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)
        self.classifier = nn.Linear(d, len(ACTIVITIES))

    def forward(self, x):
        h = self.input_proj(x) + self.pe[: x.shape[1]]
        h = self.encoder(h)
        return self.classifier(h.mean(1))


x_tr, y_tr = synth_imu(1024)
x_te, y_te = synth_imu(256)
mean, std = x_tr.mean((0, 1)), x_tr.std((0, 1))
norm = lambda x: (x - mean) / std

model = HARTransformer()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01)
for epoch in range(3):
    model.train()
    perm = torch.randperm(len(x_tr))
    for i in range(0, len(x_tr), 64):
        idx = perm[i:i + 64]
        loss = F.cross_entropy(model(norm(x_tr[idx])), y_tr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        acc = (model(norm(x_te)).argmax(1) == y_te).float().mean().item()
    print(f"epoch {epoch} loss {loss.item():.4f} test acc {acc:.3f}")

export_model = model.eval().to(torch.bfloat16)
example = norm(x_te[:8]).to(torch.bfloat16)
with torch.no_grad():
    traced = torch.jit.trace(export_model, example)
out_dir = tempfile.mkdtemp()
path = os.path.join(out_dir, "har_bf16.pt")
traced.save(path)
print(f"saved traced model to {path} ({os.path.getsize(path) / 1e3:.1f} kB)")

loaded = torch.jit.load(path)
with torch.no_grad():
    logits = loaded(norm(x_te).to(torch.bfloat16)).float()
print(f"traced bf16 test acc {(logits.argmax(1) == y_te).float().mean().item():.3f}")
