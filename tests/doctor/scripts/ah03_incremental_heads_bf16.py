import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

IN_DIM, FEAT = 24, 48
CLASSES_PER_TASK = [4, 3, 5]


def make_task(task_id, n_classes, n=256):
    g = torch.Generator().manual_seed(100 + task_id)
    centers = torch.randn(n_classes, IN_DIM, generator=g) * 1.5
    y = torch.randint(0, n_classes, (n,), generator=g)
    x = centers[y] + torch.randn(n, IN_DIM, generator=g)
    return TensorDataset(x, y)


class MultiHeadNet(nn.Module):
    def __init__(self, first_task_classes):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Linear(IN_DIM, FEAT), nn.GELU(), nn.Linear(FEAT, FEAT), nn.GELU(), nn.LayerNorm(FEAT)
        )
        self.heads = nn.ModuleList([nn.Linear(FEAT, first_task_classes)])

    def add_head(self, n_classes):
        self.heads.append(nn.Linear(FEAT, n_classes))
        return self.heads[-1]

    def forward(self, x, task_id):
        return self.heads[task_id](self.trunk(x))


def evaluate(model, datasets):
    model.eval()
    out = []
    with torch.no_grad():
        for t, ds in enumerate(datasets):
            x, y = ds.tensors
            logits = model(x.to(torch.bfloat16), t)
            out.append((logits.argmax(-1) == y).float().mean().item())
    model.train()
    return out


model = MultiHeadNet(CLASSES_PER_TASK[0]).to(torch.bfloat16)
seen = []

for task_id, n_classes in enumerate(CLASSES_PER_TASK):
    if task_id > 0:
        model.add_head(n_classes)
    ds = make_task(task_id, n_classes)
    seen.append(ds)
    loader = DataLoader(ds, batch_size=32, shuffle=True)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)

    for epoch in range(3):
        total = 0.0
        for x, y in loader:
            logits = model(x.to(torch.bfloat16), task_id)
            loss = F.cross_entropy(logits.float(), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(y)
        print(f"task {task_id} epoch {epoch}  loss {total / len(ds):.4f}")

    accs = evaluate(model, seen)
    print(f"after task {task_id}: " + "  ".join(f"T{i}={a:.3f}" for i, a in enumerate(accs)))
