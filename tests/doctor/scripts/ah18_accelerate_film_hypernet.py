import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F
from accelerate import Accelerator
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)

N_TASKS, IN_DIM, HID, TASK_DIM = 6, 12, 64, 8


def make_dataset(n_per_task=200):
    xs, ts, ys = [], [], []
    w = torch.randn(N_TASKS, IN_DIM)
    for t in range(N_TASKS):
        x = torch.randn(n_per_task, IN_DIM)
        y = torch.sin(x @ w[t] / 2) + 0.1 * (t - N_TASKS / 2)
        xs.append(x)
        ts.append(torch.full((n_per_task,), t))
        ys.append(y)
    return TensorDataset(torch.cat(xs), torch.cat(ts), torch.cat(ys))


class FiLMHyperNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.task_emb = nn.Embedding(N_TASKS, TASK_DIM)
        self.hyper = nn.Sequential(nn.Linear(TASK_DIM, 64), nn.ReLU(), nn.Linear(64, 4 * HID))
        self.fc1 = nn.Linear(IN_DIM, HID)
        self.fc2 = nn.Linear(HID, HID)
        self.out = nn.Linear(HID, 1)
        nn.init.zeros_(self.hyper[-1].weight)
        nn.init.zeros_(self.hyper[-1].bias)

    def forward(self, x, task):
        g1, b1, g2, b2 = self.hyper(self.task_emb(task)).chunk(4, dim=-1)
        h = F.silu(self.fc1(x) * (1 + g1) + b1)
        h = F.silu(self.fc2(h) * (1 + g2) + b2)
        return self.out(h).squeeze(-1)


accelerator = Accelerator(mixed_precision="bf16", cpu=True)
model = FiLMHyperNet()
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
loader = DataLoader(make_dataset(), batch_size=64, shuffle=True)
sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=6 * len(loader))
model, opt, loader, sched = accelerator.prepare(model, opt, loader, sched)

for epoch in range(6):
    model.train()
    total, count = 0.0, 0
    for x, t, y in loader:
        pred = model(x, t)
        loss = F.mse_loss(pred.float(), y)
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        sched.step()
        opt.zero_grad()
        total += loss.item() * len(y)
        count += len(y)
    accelerator.print(f"epoch {epoch}  mse {total / count:.4f}")

model.eval()
per_task = torch.zeros(N_TASKS)
n_task = torch.zeros(N_TASKS)
with torch.no_grad():
    for x, t, y in loader:
        err = (model(x, t).float() - y) ** 2
        per_task.index_add_(0, t, err)
        n_task.index_add_(0, t, torch.ones_like(err))
print("per-task mse:", [round(v, 4) for v in (per_task / n_task).tolist()])

with tempfile.TemporaryDirectory() as tmp:
    unwrapped = accelerator.unwrap_model(model)
    path = os.path.join(tmp, "film_hypernet.pt")
    torch.save(unwrapped.state_dict(), path)
    dtypes = {v.dtype for v in torch.load(path, weights_only=True).values()}
    print(f"saved {os.path.getsize(path)} bytes, dtypes {dtypes}")
