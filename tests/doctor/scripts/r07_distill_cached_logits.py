import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader

torch.manual_seed(0)
rng = np.random.default_rng(7)
N_CLASSES, N_FEAT = 8, 20
CACHE = tempfile.mkdtemp(prefix="kd_cache_")


def make_intents(n):
    centers = np.random.default_rng(70).normal(0, 3.0, size=(N_CLASSES, N_FEAT))
    y = rng.integers(0, N_CLASSES, n)
    x = centers[y] + rng.normal(0, 1.0, size=(n, N_FEAT))
    return x.astype(np.float32), y


def mlp(width):
    return nn.Sequential(nn.Linear(N_FEAT, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                         nn.Linear(width, N_CLASSES))


x_train, y_train = make_intents(4000)
x_val, y_val = make_intents(500)

teacher = mlp(256)
t_opt = torch.optim.Adam(teacher.parameters(), lr=3e-3)
xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
for step in range(300):
    idx = torch.randint(0, len(xt), (256,))
    loss = F.cross_entropy(teacher(xt[idx]), yt[idx])
    t_opt.zero_grad()
    loss.backward()
    t_opt.step()

with torch.no_grad():
    teacher_logits = teacher(xt).numpy()
np.save(os.path.join(CACHE, "teacher_logits.npy"), teacher_logits.astype(np.float16))
print(f"cached teacher logits {teacher_logits.shape}, teacher loss {loss.item():.4f}")


class DistillDataset(Dataset):
    def __init__(self, x, y, logits_path):
        self.x, self.y = x, y
        self.t = np.load(logits_path, mmap_mode="r")

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return torch.from_numpy(self.x[i]), int(self.y[i]), torch.from_numpy(np.array(self.t[i]))


def soft_targets(logits, temperature):
    e = torch.exp(logits / temperature)
    return e / e.sum(-1, keepdim=True)


def kd_loss(student_logits, teacher_logits, labels, temperature=2.0, alpha=0.7):
    p_t = soft_targets(teacher_logits, temperature)
    log_p_s = F.log_softmax(student_logits / temperature, dim=-1)
    soft = -(p_t * log_p_s).sum(-1).mean() * temperature ** 2
    hard = F.cross_entropy(student_logits, labels)
    return alpha * soft + (1 - alpha) * hard


student = mlp(32)
opt = torch.optim.Adam(student.parameters(), lr=2e-3)
dl = DataLoader(DistillDataset(x_train, y_train, os.path.join(CACHE, "teacher_logits.npy")),
                batch_size=128, shuffle=True)

for epoch in range(4):
    total, n = 0.0, 0
    for x, y, t_logits in dl:
        loss = kd_loss(student(x), t_logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item() * len(x)
        n += len(x)
    with torch.no_grad():
        acc = (student(torch.from_numpy(x_val)).argmax(1).numpy() == y_val).mean()
    print(f"epoch {epoch} kd_loss {total / n:.4f} val_acc {acc:.3f}")
