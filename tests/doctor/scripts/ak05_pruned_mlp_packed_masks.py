import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def make_mlp(n_in=32, hidden=128, n_out=4):
    return nn.Sequential(
        nn.Linear(n_in, hidden), nn.ReLU(),
        nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, n_out),
    )


def regression_batch(batch=128, n_in=32):
    x = torch.randn(batch, n_in)
    y = torch.stack([x[:, :8].sum(1), (x[:, 8:16] ** 2).mean(1), torch.sin(x[:, 16]), x[:, 20] * x[:, 21]], 1)
    return x, y


def train(model, steps, lr, tag):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for step in range(steps):
        x, y = regression_batch()
        loss = F.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == steps - 1:
            print(f"[{tag}] step {step:3d} loss {loss.item():.4f}")
    return model


def magnitude_masks(model, sparsity):
    masks = {}
    for name, p in model.named_parameters():
        if name.endswith("weight") and p.dim() == 2:
            k = int(sparsity * p.numel())
            thr = p.detach().abs().flatten().kthvalue(k).values
            masks[name] = p.detach().abs() <= thr
    return masks


def save_compact(model, masks, path):
    packed = {n: (np.packbits(m.numpy().ravel()), tuple(m.shape)) for n, m in masks.items()}
    torch.save({"state_dict": model.state_dict(), "pruned_bits": packed}, path)


def load_compact(path):
    ckpt = torch.load(path, weights_only=False)
    masks = {}
    for n, (bits, shape) in ckpt["pruned_bits"].items():
        flat = np.unpackbits(bits)[: int(np.prod(shape))]
        masks[n] = torch.from_numpy(flat.reshape(shape))
    return ckpt["state_dict"], masks


dense = train(make_mlp(), 150, 1e-3, "dense")
masks = magnitude_masks(dense, sparsity=0.7)
with torch.no_grad():
    for name, p in dense.named_parameters():
        if name in masks:
            p.masked_fill_(masks[name], 0.0)

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "pruned_70.pt")
    save_compact(dense, masks, path)
    print(f"saved {os.path.getsize(path) / 1024:.1f} KiB")
    state, pruned = load_compact(path)

student = make_mlp()
student.load_state_dict(state)
params = dict(student.named_parameters())
for name, m in pruned.items():
    params[name].register_hook(lambda g, m=m: g.masked_fill(m, 0.0))
    density = 1.0 - m.float().mean().item()
    print(f"{name}: density {density:.2f}")

train(student, 100, 5e-4, "finetune")
with torch.no_grad():
    x, y = regression_batch(512)
    print(f"final eval mse {F.mse_loss(student(x), y).item():.4f}")
