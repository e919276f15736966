"""1-D CNN for sensor windows with two heads (activity class + intensity regression).
fp16 autocast with GradScaler, two losses, gradient accumulation, unscale_ before
gradient clipping, and a save / resume of model + optimizer + scaler state."""
import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
CH, LEN, NCLS, ACCUM = 3, 64, 5, 4


class SensorNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(CH, 32, 5, padding=2), nn.BatchNorm1d(32), nn.ReLU(),
            nn.Conv1d(32, 64, 5, stride=2, padding=2), nn.BatchNorm1d(64), nn.ReLU(),
            nn.Conv1d(64, 64, 3, stride=2, padding=1), nn.BatchNorm1d(64), nn.ReLU(),
            nn.AdaptiveAvgPool1d(1), nn.Flatten())
        self.cls_head = nn.Linear(64, NCLS)
        self.reg_head = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, x):
        h = self.features(x)
        return self.cls_head(h), self.reg_head(h).squeeze(-1)


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, NCLS, (n,), generator=g)
    t = torch.linspace(0, 6.28, LEN)
    freq = (y.float() + 1).view(-1, 1, 1)
    amp = torch.rand(n, generator=g) * 2 + 0.5
    x = amp.view(-1, 1, 1) * torch.sin(freq * t + torch.rand(n, CH, 1, generator=g))
    x = x + 0.2 * torch.randn(n, CH, LEN, generator=g)
    return x, y, amp


X, Y, AMP = make_data(640, 0)


def make_all():
    model = SensorNet()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    scaler = torch.amp.GradScaler("cpu")
    return model, opt, scaler


def train(model, opt, scaler, epochs, start_epoch=0):
    model.train()
    for epoch in range(start_epoch, start_epoch + epochs):
        perm = torch.randperm(len(X))
        opt.zero_grad(set_to_none=True)
        for it, i in enumerate(range(0, len(X), 32)):
            idx = perm[i:i + 32]
            with torch.autocast(device_type="cpu", dtype=torch.float16):
                logits, amp_pred = model(X[idx])
                loss_cls = F.cross_entropy(logits, Y[idx])
                loss_reg = F.smooth_l1_loss(amp_pred, AMP[idx])
            scaler.scale(loss_cls / ACCUM).backward(retain_graph=True)
            scaler.scale(0.5 * loss_reg / ACCUM).backward()
            if (it + 1) % ACCUM == 0:
                scaler.unscale_(opt)
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)
                scaler.step(opt)
                scaler.update()
                opt.zero_grad(set_to_none=True)
        print(f"epoch {epoch} cls {loss_cls.item():.4f} reg {loss_reg.item():.4f} scale {scaler.get_scale():.0f}")


model, opt, scaler = make_all()
train(model, opt, scaler, epochs=2)

with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "ckpt.pt")
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "scaler": scaler.state_dict(), "epoch": 2}, path)
    ckpt = torch.load(path, map_location="cpu")

model2, opt2, scaler2 = make_all()
model2.load_state_dict(ckpt["model"])
opt2.load_state_dict(ckpt["opt"])
scaler2.load_state_dict(ckpt["scaler"])
print("resumed scale", scaler2.get_scale())
train(model2, opt2, scaler2, epochs=2, start_epoch=ckpt["epoch"])

Xv, Yv, AMPv = make_data(256, 1)
model2.eval()
with torch.no_grad(), torch.autocast(device_type="cpu", dtype=torch.float16):
    logits, amp_pred = model2(Xv)
acc = (logits.argmax(-1) == Yv).float().mean().item()
mae = (amp_pred.float() - AMPv).abs().mean().item()
print(f"val acc {acc:.3f} amp MAE {mae:.3f}")
