"""Differentially-private fine-tuning (DP-SGD) of a tabular MLP with per-sample gradients
from torch.func (functional_call + vmap + grad). The pretrained weights come from a
safetensors checkpoint that was exported in bfloat16 to save space."""
import os
import tempfile
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from torch.func import functional_call, grad, vmap

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_FEAT, N_CLASSES = 20, 3
MAX_GRAD_NORM, NOISE_MULT, LR, BATCH = 1.0, 1.1, 0.05, 64


class TabularMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(N_FEAT, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.classifier = nn.Linear(64, N_CLASSES)

    def forward(self, x):
        return self.classifier(self.encoder(x))


def make_data(n):
    w = rng.normal(size=(N_FEAT, N_CLASSES))
    x = rng.normal(size=(n, N_FEAT)).astype(np.float32)
    y = (x @ w + rng.normal(scale=0.5, size=(n, N_CLASSES))).argmax(1)
    return torch.from_numpy(x), torch.from_numpy(y)


def pretrain_and_export(path):
    model = TabularMLP()
    x, y = make_data(2048)
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for _ in range(50):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(); loss.backward(); opt.step()
    save_file({k: v.to(torch.bfloat16).contiguous() for k, v in model.state_dict().items()}, path)
    print(f"pretrained loss {loss.item():.3f}, exported {os.path.getsize(path)} bytes")


def main():
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        ckpt = os.path.join(tmp, "pretrained.safetensors")
        pretrain_and_export(ckpt)

        model = TabularMLP()
        params = {k: v.detach() for k, v in load_file(ckpt).items()}
        x_priv, y_priv = make_data(1024)

        def loss_fn(p, xb, yb):
            logits = functional_call(model, p, (xb.unsqueeze(0),))
            return F.cross_entropy(logits, yb.unsqueeze(0))

        per_sample_grads = vmap(grad(loss_fn), in_dims=(None, 0, 0))

        for step in range(20):
            idx = torch.randint(0, len(x_priv), (BATCH,))
            grads = per_sample_grads(params, x_priv[idx], y_priv[idx])
            norms = torch.sqrt(sum(g.flatten(1).pow(2).sum(1) for g in grads.values()))
            clip = (MAX_GRAD_NORM / (norms + 1e-6)).clamp(max=1.0)
            new_params = {}
            for k, g in grads.items():
                g = (g * clip.view(-1, *[1] * (g.dim() - 1))).sum(0)
                g = g + NOISE_MULT * MAX_GRAD_NORM * torch.randn_like(g)
                new_params[k] = params[k] - LR * g / BATCH
            params = new_params
            if step % 5 == 0:
                with torch.no_grad():
                    acc = (functional_call(model, params, (x_priv,)).argmax(1) == y_priv).float().mean()
                print(f"step {step:2d} private acc {acc.item():.3f}")
    print(f"done ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
