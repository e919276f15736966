import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

WORLD_SIZE = 4


class FlatParams:
    """View all parameters of a module as one flat bf16 vector (and the same for grads)."""

    def __init__(self, module):
        self.params = list(module.parameters())
        self.numel = sum(p.numel() for p in self.params)

    def flat_grad(self):
        return torch.cat([p.grad.reshape(-1) for p in self.params])

    @torch.no_grad()
    def assign(self, flat):
        offset = 0
        for p in self.params:
            p.copy_(flat[offset:offset + p.numel()].view_as(p))
            offset += p.numel()


class ShardedAdamW:
    """ZeRO-2 in one process: fp32 master weights + Adam states partitioned across ranks."""

    def __init__(self, model, lr=2e-3, betas=(0.9, 0.99), eps=1e-8, weight_decay=0.01, seed=0):
        self.flat = FlatParams(model)
        rng = np.random.default_rng(seed)
        perm = rng.permutation(self.flat.numel).astype(np.int32)
        self.shard_idx = [torch.from_numpy(s) for s in np.array_split(perm, WORLD_SIZE)]
        full = torch.cat([p.detach().reshape(-1).float() for p in self.flat.params])
        self.master = [full[idx].clone() for idx in self.shard_idx]
        self.m = [torch.zeros_like(w) for w in self.master]
        self.v = [torch.zeros_like(w) for w in self.master]
        self.lr, self.betas, self.eps, self.wd, self.t = lr, betas, eps, weight_decay, 0

    @torch.no_grad()
    def step(self):
        self.t += 1
        b1, b2 = self.betas
        grad = self.flat.flat_grad()
        new_flat = torch.empty(self.flat.numel, dtype=grad.dtype)
        for r, idx in enumerate(self.shard_idx):
            g = grad[idx].float()
            self.m[r].lerp_(g, 1 - b1)
            self.v[r].mul_(b2).addcmul_(g, g, value=1 - b2)
            denom = (self.v[r] / (1 - b2 ** self.t)).sqrt_().add_(self.eps)
            self.master[r].mul_(1 - self.lr * self.wd)
            self.master[r].addcdiv_(self.m[r], denom, value=-self.lr / (1 - b1 ** self.t))
            new_flat[idx] = self.master[r].to(new_flat.dtype)
        self.flat.assign(new_flat)

    def consolidated_master(self):
        full = torch.empty(self.flat.numel, dtype=torch.float32)
        for idx, shard in zip(self.shard_idx, self.master):
            full.index_copy_(0, idx, shard)
        return full


def make_data(n=2048, d=20, seed=0):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g)
    y = ((x[:, :5].sum(1) > 0).long() + (x[:, 5:10].sum(1) > 0).long())
    return x, y


def main():
    torch.manual_seed(0)
    x, y = make_data()
    model = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 3))
    model = model.to(torch.bfloat16)
    opt = ShardedAdamW(model)
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=64, shuffle=True)
    for epoch in range(3):
        for i, (xb, yb) in enumerate(loader):
            loss = F.cross_entropy(model(xb.to(torch.bfloat16)).float(), yb)
            model.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")

    full = opt.consolidated_master()
    export = nn.Sequential(nn.Linear(20, 128), nn.ReLU(), nn.Linear(128, 128), nn.ReLU(), nn.Linear(128, 3))
    FlatParams(export).assign(full)
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "model_fp32.pt")
        torch.save(export.state_dict(), path)
        print(f"exported {os.path.getsize(path)} bytes")
    with torch.no_grad():
        acc = (export(x).argmax(-1) == y).float().mean().item()
    print(f"fp32 export acc {acc:.3f}")


if __name__ == "__main__":
    main()
