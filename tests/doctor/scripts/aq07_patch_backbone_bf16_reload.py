import math
import os
import tempfile
import torch
import torch.nn as nn

torch.manual_seed(0)

C, L, H, PATCH = 4, 128, 32, 16
DTYPE = torch.bfloat16


def make_windows(n):
    t = torch.arange(L + H, dtype=torch.float32)
    per = torch.randint(12, 48, (n, C, 1)).float()
    x = torch.sin(2 * math.pi * t / per) + 0.05 * t / (L + H) * torch.randn(n, C, 1)
    return x[..., :L] + 0.1 * torch.randn(n, C, L), x[..., L:]


class PatchBackbone(nn.Module):
    def __init__(self, d_model=64, n_layers=2):
        super().__init__()
        self.patch_embed = nn.Conv1d(1, d_model, kernel_size=PATCH, stride=PATCH)
        self.pos = nn.Parameter(torch.zeros(1, L // PATCH, d_model))
        layer = nn.TransformerEncoderLayer(d_model, 4, 128, dropout=0.0, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers, enable_nested_tensor=False)

    def forward(self, x):
        b, c, _ = x.shape
        tok = self.patch_embed(x.reshape(b * c, 1, L)).transpose(1, 2) + self.pos
        return self.encoder(tok)


class Forecaster(nn.Module):
    def __init__(self, d_model=64):
        super().__init__()
        self.backbone = PatchBackbone(d_model)
        self.head = nn.Linear(d_model * (L // PATCH), H)

    def forward(self, x):
        b, c, _ = x.shape
        mu = x.mean(-1, keepdim=True)
        sd = x.std(-1, keepdim=True) + 1e-3
        h = self.backbone((x - mu) / sd)
        return self.head(h.flatten(1)).view(b, c, H) * sd + mu


pretrain = Forecaster()
opt = torch.optim.AdamW(pretrain.parameters(), lr=2e-3)
for step in range(60):
    x, y = make_windows(32)
    loss = nn.functional.l1_loss(pretrain(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(f"pretrain step {step} mae {loss.item():.4f}")

tmp = tempfile.mkdtemp()
ckpt = os.path.join(tmp, "backbone.pt")
torch.save({"backbone." + k: v for k, v in pretrain.backbone.state_dict().items()}, ckpt)

serving = Forecaster().to(DTYPE)
missing, unexpected = serving.load_state_dict(torch.load(ckpt), strict=False, assign=True)
print("missing keys:", missing)
serving.eval()

x, y = make_windows(64)
with torch.no_grad():
    pred = serving(x.to(DTYPE)).float()
naive_err = (x[..., 1:] - x[..., :-1]).abs().mean(-1, keepdim=True)
mase = ((pred - y).abs() / naive_err).mean()
smape = (2 * (pred - y).abs() / (pred.abs() + y.abs()).clamp_min(1e-3)).mean()
print(f"zero-shot MASE {mase.item():.3f} sMAPE {smape.item():.3f}")
