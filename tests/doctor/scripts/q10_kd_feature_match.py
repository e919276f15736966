import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_CLASSES, IMG = 8, 16
T, ALPHA, BETA = 4.0, 0.5, 0.1


def conv_net(widths):
    layers, c = [], 1
    for w in widths:
        layers += [nn.Conv2d(c, w, 3, padding=1), nn.BatchNorm2d(w), nn.ReLU(), nn.MaxPool2d(2)]
        c = w
    return nn.Sequential(*layers)


class Net(nn.Module):
    def __init__(self, widths):
        super().__init__()
        self.features = conv_net(widths)
        self.head = nn.Linear(widths[-1], N_CLASSES)

    def forward(self, x):
        f = self.features(x)
        return self.head(f.mean((2, 3))), f


templates = torch.rand(N_CLASSES, 1, IMG, IMG)


def batch(n):
    y = torch.randint(0, N_CLASSES, (n,))
    shift = torch.randint(-2, 3, (2,))
    x = torch.roll(templates[y], tuple(shift.tolist()), dims=(2, 3))
    x = (x * 255 + 40 * torch.randn_like(x)).clamp(0, 255).to(torch.uint8)
    return x, y


def prep(x_uint8):
    return (x_uint8.float() / 255.0 - 0.5) / 0.25


teacher = Net([32, 64])
opt = torch.optim.AdamW(teacher.parameters(), lr=2e-3)
for step in range(100):
    x, y = batch(64)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits, _ = teacher(prep(x))
    loss = F.cross_entropy(logits.float(), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"teacher loss {loss.item():.4f}")
teacher.eval().requires_grad_(False)

student = Net([8, 16])
adapter = nn.Conv2d(16, 64, 1)
opt = torch.optim.AdamW(list(student.parameters()) + list(adapter.parameters()), lr=3e-3)
for step in range(150):
    x, y = batch(64)
    x = prep(x)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        t_logits, t_feat = teacher(x)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        s_logits, s_feat = student(x)
        s_feat = adapter(s_feat)
    kl = F.kl_div(F.log_softmax(s_logits.float() / T, -1), F.log_softmax(t_logits.float() / T, -1),
                  reduction="batchmean", log_target=True) * T * T
    feat = F.mse_loss(F.normalize(s_feat.float().flatten(1), dim=1), F.normalize(t_feat.float().flatten(1), dim=1))
    ce = F.cross_entropy(s_logits.float(), y)
    loss = ALPHA * kl + (1 - ALPHA) * ce + BETA * feat
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 30 == 0:
        print(f"step {step:3d} loss {loss.item():.4f} kl {kl.item():.4f} ce {ce.item():.4f} feat {feat.item():.5f}")

student.eval()
with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
    x, y = batch(512)
    s_logits, _ = student(prep(x))
    t_logits, _ = teacher(prep(x))
s_acc = (s_logits.argmax(-1) == y).float().mean().item()
t_acc = (t_logits.argmax(-1) == y).float().mean().item()
print(f"teacher acc {t_acc:.3f}  student acc {s_acc:.3f}  final loss {loss.item():.4f}")
