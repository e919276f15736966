import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

IN_DIM, HIDDEN, N_CLASSES = 28, 96, 6
N_TASKS, STEPS_PER_TASK = 3, 40
SI_C, SI_XI, OMEGA_MAX = 0.1, 1e-8, 50.0


def permuted_task(seed):
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(IN_DIM, generator=g)
    centers = torch.randn(N_CLASSES, IN_DIM, generator=g) * 1.5

    def batch(bs=64):
        y = torch.randint(0, N_CLASSES, (bs,))
        x = centers[y] + torch.randn(bs, IN_DIM)
        return x[:, perm], y
    return batch


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(IN_DIM, HIDDEN)
        self.fc2 = nn.Linear(HIDDEN, HIDDEN)
        self.out = nn.Linear(HIDDEN, N_CLASSES)

    def forward(self, x):
        return self.out(F.relu(self.fc2(F.relu(self.fc1(x)))))


class SynapticIntelligence:
    def __init__(self, model):
        self.params = dict(model.named_parameters())
        self.omega = {n: torch.zeros_like(p) for n, p in self.params.items()}
        self.anchor = {n: p.detach().clone() for n, p in self.params.items()}
        self.start_task()

    def start_task(self):
        self.w = {n: torch.zeros_like(p) for n, p in self.params.items()}
        self.task_start = {n: p.detach().clone() for n, p in self.params.items()}

    def penalty(self):
        return sum((self.omega[n] * (p - self.anchor[n]) ** 2).sum() for n, p in self.params.items())

    def accumulate(self, grads, before):
        for n, p in self.params.items():
            if grads[n] is not None:
                self.w[n] -= grads[n] * (p.detach() - before[n])

    def consolidate(self):
        for n, p in self.params.items():
            delta = p.detach() - self.task_start[n]
            self.omega[n] += (torch.relu(self.w[n]) / (delta ** 2 + SI_XI)).clamp(max=OMEGA_MAX)
            self.anchor[n] = p.detach().clone()
        self.start_task()


model = MLP().half()
opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
si = SynapticIntelligence(model)
tasks = [permuted_task(s) for s in range(N_TASKS)]

for t, task in enumerate(tasks):
    for step in range(STEPS_PER_TASK):
        x, y = task()
        logits = model(x.half())
        ce = F.cross_entropy(logits.float(), y)
        loss = ce + SI_C * si.penalty().float()
        opt.zero_grad()
        loss.backward()
        grads = {n: (p.grad.detach().clone() if p.grad is not None else None) for n, p in model.named_parameters()}
        before = {n: p.detach().clone() for n, p in model.named_parameters()}
        opt.step()
        si.accumulate(grads, before)
        if step % 10 == 0:
            print(f"task {t} step {step:3d}  ce {ce.item():.4f}  total {loss.item():.4f}")
    si.consolidate()

with torch.no_grad():
    for t, task in enumerate(tasks):
        x, y = task(512)
        acc = (model(x.half()).argmax(-1) == y).float().mean().item()
        print(f"task {t} accuracy {acc:.3f}")
