import json
import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class KWSNet(nn.Module):
    def __init__(self, n_mels=20, n_classes=6, ch=48):
        super().__init__()
        self.conv1 = nn.Conv1d(n_mels, ch, 5, padding=2)
        self.conv2 = nn.Conv1d(ch, ch, 5, padding=2, groups=ch)
        self.pw = nn.Conv1d(ch, ch, 1)
        self.norm = nn.GroupNorm(4, ch)
        self.fc = nn.Linear(ch, n_classes)

    def forward(self, x):
        h = F.relu(self.conv1(x))
        h = F.relu(self.norm(self.pw(self.conv2(h))))
        return self.fc(h.mean(-1))


def synth_keywords(n=256, n_mels=20, frames=40, n_classes=6):
    y = torch.randint(0, n_classes, (n,))
    t = torch.linspace(0, 1, frames)
    mel = torch.arange(n_mels).float()[:, None]
    centers = (y.float() + 1) * n_mels / (n_classes + 1)
    sweep = centers[:, None, None] + 4 * torch.sin(2 * torch.pi * t * (1 + y[:, None, None] % 3))
    spec = torch.exp(-0.5 * ((mel[None] - sweep) / 1.5) ** 2)
    return spec + 0.1 * torch.randn(n, n_mels, frames), y


@torch.no_grad()
def export_pow2(model, path, pct=0.995, exp_bits=4):
    manifest = {}
    tensors = {}
    for name, mod in model.named_modules():
        if not isinstance(mod, (nn.Conv1d, nn.Linear)):
            continue
        w = mod.weight.flatten(1)
        clip = torch.quantile(w.abs(), pct, dim=1, keepdim=True)
        w = torch.maximum(torch.minimum(w, clip), -clip)
        e = torch.round(torch.log2(w.abs() / clip + 1e-12)).clamp(-(2 ** exp_bits) + 1, 0)
        code = (e.to(torch.int8) - 1) * w.sign().to(torch.int8)
        tensors[name + ".code"] = code.view(mod.weight.shape)
        tensors[name + ".clip"] = clip.float().squeeze(1)
        manifest[name] = {"shape": list(mod.weight.shape), "exp_bits": exp_bits}
    torch.save(tensors, path)
    with open(path + ".json", "w") as f:
        json.dump(manifest, f, indent=1)
    return manifest


x, y = synth_keywords()
model = KWSNet().to(torch.bfloat16)
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)

for epoch in range(8):
    perm = torch.randperm(len(y))
    for i in range(0, len(y), 32):
        idx = perm[i:i + 32]
        logits = model(x[idx].to(torch.bfloat16))
        loss = F.cross_entropy(logits.float(), y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    acc = (model(x.to(torch.bfloat16)).argmax(1) == y).float().mean()
    print(f"epoch {epoch} loss {loss.item():.4f} acc {acc.item():.3f}")

model.eval()
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "kws_pow2.pt")
    manifest = export_pow2(model, out)
    print(f"exported {len(manifest)} layers, {os.path.getsize(out) / 1024:.1f} KiB")
