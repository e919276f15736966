import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
D_IN, N_CLASSES, N_TRAIN = 48, 100, 4096
T, ALPHA = 2.0, 0.7

centers = torch.randn(N_CLASSES, D_IN) * 1.5
y_all = torch.randint(0, N_CLASSES, (N_TRAIN,))
x_all = centers[y_all] + torch.randn(N_TRAIN, D_IN)


def mlp(width, depth):
    layers, d = [], D_IN
    for _ in range(depth):
        layers += [nn.Linear(d, width), nn.ReLU()]
        d = width
    return nn.Sequential(*layers, nn.Linear(d, N_CLASSES))


teacher = mlp(512, 3)
opt = torch.optim.Adam(teacher.parameters(), lr=1e-3)
for epoch in range(8):
    perm = torch.randperm(N_TRAIN)
    for i in range(0, N_TRAIN, 128):
        idx = perm[i:i + 128]
        loss = F.cross_entropy(teacher(x_all[idx]), y_all[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"teacher epoch {epoch} loss {loss.item():.4f}")

cache_dir = tempfile.mkdtemp()
with torch.no_grad():
    teacher.eval()
    torch.save({"x": x_all, "y": y_all, "logits": teacher(x_all).half()},
               os.path.join(cache_dir, "teacher_logits.pt"))
del teacher


class DistillSet(Dataset):
    def __init__(self, path):
        blob = torch.load(path)
        self.x, self.y, self.t = blob["x"], blob["y"], blob["logits"]

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i], self.t[i]


def kd_loss(student_logits, teacher_logits, labels):
    p_t = F.softmax(teacher_logits / T, dim=-1)
    log_p_s = F.log_softmax(student_logits / T, dim=-1)
    kl = (p_t * (p_t.log() - log_p_s)).sum(-1).mean() * T * T
    ce = F.cross_entropy(student_logits, labels)
    return ALPHA * kl + (1 - ALPHA) * ce, kl


loader = DataLoader(DistillSet(os.path.join(cache_dir, "teacher_logits.pt")), batch_size=128, shuffle=True)
student = mlp(64, 1)
opt = torch.optim.AdamW(student.parameters(), lr=3e-3)
for epoch in range(4):
    for xb, yb, tb in loader:
        loss, kl = kd_loss(student(xb), tb, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"student epoch {epoch} loss {loss.item():.4f} kl {kl.item():.4f}")

with torch.no_grad():
    yt = torch.randint(0, N_CLASSES, (2000,))
    xt = centers[yt] + torch.randn(2000, D_IN)
    acc = (student(xt).argmax(-1) == yt).float().mean().item()
print(f"student test acc {acc:.3f}  final kd loss {loss.item():.4f}")
