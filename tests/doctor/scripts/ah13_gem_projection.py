import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

IN_DIM, N_CLASSES, N_TASKS = 20, 4, 3
MEM_PER_TASK, STEPS = 32, 30


def make_task(t):
    g = torch.Generator().manual_seed(t)
    rot = torch.linalg.qr(torch.randn(IN_DIM, IN_DIM, generator=g))[0]
    centers = torch.randn(N_CLASSES, IN_DIM, generator=g) * 1.5

    def batch(n=48):
        y = torch.randint(0, N_CLASSES, (n,))
        return (centers[y] + torch.randn(n, IN_DIM)) @ rot, y
    return batch


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(IN_DIM, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.cls = nn.Linear(64, N_CLASSES)

    def forward(self, x):
        return self.cls(self.body(x))


def flat_grad(model):
    return torch.cat([p.grad.reshape(-1) for p in model.parameters()])


def write_grad(model, g):
    offset = 0
    for p in model.parameters():
        n = p.numel()
        p.grad.copy_(g[offset:offset + n].view_as(p))
        offset += n


def project(g, mem_grads, eps=1e-3):
    G = torch.stack(mem_grads)
    dots = G @ g
    if (dots >= 0).all():
        return g, 0
    active = G[dots < 0]
    gram = active @ active.T + eps * torch.eye(len(active), dtype=active.dtype)
    coef = torch.linalg.solve(gram, active @ g)
    return g - active.T @ coef, len(active)


model = Net().half()
opt = torch.optim.SGD(model.parameters(), lr=0.05)
tasks = [make_task(t) for t in range(N_TASKS)]
memory = []

for t, task in enumerate(tasks):
    for step in range(STEPS):
        x, y = task()
        mem_grads = []
        for mx, my in memory:
            opt.zero_grad()
            F.cross_entropy(model(mx.half()).float(), my).backward()
            mem_grads.append(flat_grad(model).clone())
        opt.zero_grad()
        loss = F.cross_entropy(model(x.half()).float(), y)
        loss.backward()
        n_active = 0
        if mem_grads:
            g, n_active = project(flat_grad(model), mem_grads)
            write_grad(model, g)
        opt.step()
        if step % 10 == 0:
            print(f"task {t} step {step:3d}  loss {loss.item():.4f}  active constraints {n_active}")
    memory.append(task(MEM_PER_TASK))

with torch.no_grad():
    for t, task in enumerate(tasks):
        x, y = task(400)
        print(f"task {t} acc {(model(x.half()).argmax(-1) == y).float().mean().item():.3f}")
