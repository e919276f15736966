import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune
from torch.utils.data import DataLoader, TensorDataset, WeightedRandomSampler


def make_credit_data(n=6000, seed=0):
    rng = np.random.default_rng(seed)
    income = rng.lognormal(10.5, 0.6, n)
    debt = rng.gamma(2.0, 4000.0, n)
    age = rng.integers(21, 75, n)
    late = rng.poisson(0.4, n)
    region = rng.integers(0, 5, n)
    logit = -3.0 + 2.5 * debt / income * 5 + 0.8 * late - 0.02 * (age - 40) + 0.3 * (region == 3)
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    num = np.stack([np.log(income), np.log1p(debt), age, late], axis=1)
    num = (num - num.mean(0)) / num.std(0)
    return torch.tensor(num, dtype=torch.float32), torch.tensor(region), torch.tensor(y)


class CreditNet(nn.Module):
    def __init__(self, n_num=4, n_regions=5, hidden=64):
        super().__init__()
        self.region_emb = nn.Embedding(n_regions, 4)
        self.body = nn.Sequential(nn.Linear(n_num + 4, hidden), nn.LayerNorm(hidden), nn.ReLU(),
                                  nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 2))

    def forward(self, num, region):
        return self.body(torch.cat([num, self.region_emb(region)], dim=1))


def run_epoch(model, loader, opt=None):
    total, correct, n = 0.0, 0, 0
    for num, region, y in loader:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(num, region)
        loss = F.cross_entropy(logits.float(), y)
        if opt is not None:
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            opt.step()
        total += loss.item() * len(y)
        correct += (logits.argmax(1) == y).sum().item()
        n += len(y)
    return total / n, correct / n


def main():
    torch.manual_seed(0)
    num, region, y = make_credit_data()
    train = TensorDataset(num[:5000], region[:5000], y[:5000])
    val = TensorDataset(num[5000:], region[5000:], y[5000:])
    class_freq = torch.bincount(y[:5000]).double() / 5000
    weights = (1.0 / class_freq)[y[:5000]]
    sampler = WeightedRandomSampler(weights, num_samples=5000, replacement=True)
    train_loader = DataLoader(train, batch_size=128, sampler=sampler)
    val_loader = DataLoader(val, batch_size=500)

    model = CreditNet()
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2 and "region_emb" not in n]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2 or "region_emb" in n]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 1e-3}, {"params": no_decay, "weight_decay": 0.0}], lr=3e-3)

    for epoch in range(6):
        if epoch == 3:
            to_prune = [(model.body[0], "weight"), (model.body[3], "weight")]
            prune.global_unstructured(to_prune, pruning_method=prune.L1Unstructured, amount=0.5)
        tr = run_epoch(model.train(), train_loader, opt)
        with torch.no_grad():
            va = run_epoch(model.eval(), val_loader)
        print(f"epoch {epoch} train loss {tr[0]:.4f} val loss {va[0]:.4f} val acc {va[1]:.3f}")

    for module, name in [(model.body[0], "weight"), (model.body[3], "weight")]:
        prune.remove(module, name)
    sparsity = (model.body[0].weight == 0).float().mean().item()
    print(f"layer-0 sparsity after pruning: {sparsity:.2f}")

    model.eval()
    example = (num[:8], region[:8])
    exported = torch.export.export(model, example)
    path = os.path.join(tempfile.mkdtemp(prefix="credit_"), "credit.pt2")
    torch.export.save(exported, path)
    loaded = torch.export.load(path).module()
    with torch.no_grad():
        ref = model(*example)
        out = loaded(*example)
    print("exported max abs diff:", (ref - out).abs().max().item(), "probs:", out.softmax(1)[:3, 1].tolist())


if __name__ == "__main__":
    main()
