import json
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

IN_DIM, N_CLASSES, EWC_LAMBDA = 30, 5, 50.0


def make_task(seed):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(N_CLASSES, IN_DIM, generator=g) * 1.2
    shift = torch.randn(IN_DIM, generator=g)

    def batch(n=64):
        y = torch.randint(0, N_CLASSES, (n,))
        return centers[y] + shift + torch.randn(n, IN_DIM), y
    return batch


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(IN_DIM, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.classifier = nn.Linear(64, N_CLASSES)

    def forward(self, x):
        return self.classifier(self.features(x))


class EWC:
    def __init__(self, model):
        self.model = model
        self.fisher, self.anchor = {}, {}

    def estimate_fisher(self, batch_fn, n_batches=8):
        fisher = {n: torch.zeros_like(p) for n, p in self.model.named_parameters()}
        for _ in range(n_batches):
            x, _ = batch_fn(32)
            logits = self.model(x.to(torch.bfloat16))
            y_hat = logits.float().softmax(-1).multinomial(1).squeeze(1)
            self.model.zero_grad()
            F.cross_entropy(logits.float(), y_hat).backward()
            for n, p in self.model.named_parameters():
                fisher[n] += p.grad.detach() ** 2 / n_batches
        for n, p in self.model.named_parameters():
            self.fisher[n] = self.fisher.get(n, 0) + fisher[n]
            self.anchor[n] = p.detach().clone()

    def penalty(self):
        if not self.fisher:
            return torch.zeros(())
        return sum((self.fisher[n] * (p - self.anchor[n]) ** 2).sum() for n, p in self.model.named_parameters())


model = Net().to(torch.bfloat16)
ewc = EWC(model)
tasks = [make_task(s) for s in range(3)]

for t, task in enumerate(tasks):
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for step in range(60):
        x, y = task()
        ce = F.cross_entropy(model(x.to(torch.bfloat16)).float(), y)
        loss = ce + EWC_LAMBDA / 2 * ewc.penalty().float()
        opt.zero_grad()
        loss.backward()
        opt.step()
    accs = []
    with torch.no_grad():
        for s in range(t + 1):
            xs, ys = tasks[s](256)
            accs.append((model(xs.to(torch.bfloat16)).argmax(-1) == ys).float().mean().item())
    print(f"task {t}: ce {ce.item():.4f}  total {loss.item():.4f}  accs {[round(a, 3) for a in accs]}")
    ewc.estimate_fisher(task)

with tempfile.TemporaryDirectory() as tmp:
    np.savez(
        os.path.join(tmp, "ewc_state.npz"),
        **{f"fisher/{n}": f.numpy() for n, f in ewc.fisher.items()},
        **{f"anchor/{n}": a.numpy() for n, a in ewc.anchor.items()},
    )
    meta = {"lambda": EWC_LAMBDA, "tasks_seen": len(tasks), "params": list(ewc.fisher)}
    with open(os.path.join(tmp, "ewc_meta.json"), "w") as fh:
        json.dump(meta, fh)
    print("exported:", sorted(os.listdir(tmp)))
