import math
import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

IN_DIM, HID, OUT_DIM = 8, 32, 1
N_FREQ = 16


class TaskEncoder(nn.Module):
    def __init__(self, n_freq=N_FREQ, out=64):
        super().__init__()
        freqs = torch.exp(torch.linspace(0, math.log(100.0), n_freq))
        self.register_buffer("freqs", freqs, persistent=False)
        self.proj = nn.Sequential(nn.Linear(2 * n_freq, out), nn.SiLU(), nn.Linear(out, out))

    def forward(self, task_param):
        ang = task_param[:, None] * self.freqs[None, :]
        return self.proj(torch.cat([ang.sin(), ang.cos()], dim=-1))


class WeightHyperNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.task_encoder = TaskEncoder()
        self.n_w1, self.n_w2 = IN_DIM * HID + HID, HID * OUT_DIM + OUT_DIM
        self.generator = nn.Linear(64, self.n_w1 + self.n_w2)
        nn.init.normal_(self.generator.weight, std=0.01)

    def target_forward(self, x, flat):
        w1 = flat[: IN_DIM * HID].view(HID, IN_DIM)
        b1 = flat[IN_DIM * HID: self.n_w1]
        w2 = flat[self.n_w1: self.n_w1 + HID * OUT_DIM].view(OUT_DIM, HID)
        b2 = flat[self.n_w1 + HID * OUT_DIM:]
        return F.linear(torch.tanh(F.linear(x, w1, b1)), w2, b2)

    def forward(self, x, task_param):
        flat = self.generator(self.task_encoder(task_param))
        return torch.stack([self.target_forward(x[i], flat[i]) for i in range(len(task_param))])


def make_tasks(n, n_points=32):
    tp = torch.rand(n)
    x = torch.randn(n, n_points, IN_DIM)
    w = torch.linspace(-1, 1, IN_DIM)
    y = torch.sin((x * w).sum(-1, keepdim=True) * (1 + 3 * tp[:, None, None]))
    return x, tp, y


model = WeightHyperNet()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for step in range(150):
    x, tp, y = make_tasks(16)
    loss = F.mse_loss(model(x, tp), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 30 == 0:
        print(f"step {step:3d}  mse {loss.item():.4f}")

with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "hypernet.pt")
    torch.save(model.state_dict(), path)
    print(f"saved checkpoint ({os.path.getsize(path) / 1024:.1f} KiB)")

    with torch.device("meta"):
        served = WeightHyperNet()
    state = torch.load(path, map_location="cpu", weights_only=True)
    served.load_state_dict(state, assign=True)
    served.eval()

    x, tp, y = make_tasks(64)
    with torch.no_grad():
        pred = served(x, tp)
    print(f"reloaded model eval mse {F.mse_loss(pred, y).item():.4f}")
