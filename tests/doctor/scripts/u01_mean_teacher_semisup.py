"""Mean-teacher semi-supervised training of a small MLP classifier on synthetic data."""
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class Classifier(nn.Module):
    def __init__(self, d_in=32, d_hidden=64, n_classes=5):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Linear(d_in, d_hidden), nn.GELU(),
            nn.Linear(d_hidden, d_hidden), nn.GELU(),
        )
        self.head = nn.Linear(d_hidden, n_classes)

    def forward(self, x):
        return self.head(self.encoder(x))


def augment(x):
    return x + 0.1 * torch.randn_like(x)


def make_batch(n_lab=16, n_unlab=48, d_in=32, n_classes=5):
    centers = torch.randn(n_classes, d_in) * 2
    y = torch.randint(0, n_classes, (n_lab,))
    x_lab = centers[y] + torch.randn(n_lab, d_in)
    yu = torch.randint(0, n_classes, (n_unlab,))
    x_unlab = centers[yu] + torch.randn(n_unlab, d_in)
    return x_lab, y, x_unlab


student = Classifier()
teacher = copy.deepcopy(student)
for p in teacher.parameters():
    p.requires_grad_(False)

# train in bf16 to save memory
dtype = torch.bfloat16
student = student.to(dtype)

opt = torch.optim.AdamW(student.parameters(), lr=1e-3)
ema_decay = 0.99
consistency_weight = 1.0

for step in range(5):
    x_lab, y, x_unlab = make_batch()
    x_lab, x_unlab = x_lab.to(dtype), x_unlab.to(dtype)

    sup_logits = student(augment(x_lab))
    sup_loss = F.cross_entropy(sup_logits.float(), y)

    stu_unlab = student(augment(x_unlab))
    with torch.no_grad():
        tea_unlab = teacher(augment(x_unlab))
    cons_loss = F.mse_loss(stu_unlab.softmax(-1).float(), tea_unlab.softmax(-1).float())

    loss = sup_loss + consistency_weight * cons_loss
    opt.zero_grad()
    loss.backward()
    opt.step()

    with torch.no_grad():
        for tp, sp in zip(teacher.parameters(), student.parameters()):
            tp.mul_(ema_decay).add_(sp.to(tp.dtype), alpha=1 - ema_decay)

    print(f"step {step} loss {loss.item():.4f}")
