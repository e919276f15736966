import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_CLASSES = 8


def make_batch(n, size=16):
    y = torch.randint(0, NUM_CLASSES, (n,))
    angle = y.float() / NUM_CLASSES * 6.283
    x = 0.4 * torch.randn(n, 3, size, size)
    x[:, 0] += 1.5 * torch.cos(angle)[:, None, None]
    x[:, 1] += 1.5 * torch.sin(angle)[:, None, None]
    return x, y


def cnn(width, depth, out_dim=NUM_CLASSES):
    layers, cin = [], 3
    for i in range(depth):
        layers += [nn.Conv2d(cin, width, 3, padding=1, stride=2 if i else 1), nn.BatchNorm2d(width), nn.ReLU()]
        cin = width
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, out_dim))


class CosineTeacher(nn.Module):
    def __init__(self, width=48, dim=32):
        super().__init__()
        self.encoder = cnn(width, 3, out_dim=dim)
        self.class_embed = nn.Parameter(torch.randn(NUM_CLASSES, dim))
        self.logit_scale = nn.Parameter(torch.tensor(4.6052))

    def forward(self, x):
        f = F.normalize(self.encoder(x), dim=-1)
        w = F.normalize(self.class_embed, dim=-1)
        return self.logit_scale.exp() * f @ w.t()


def train_teacher(teacher, steps=40):
    opt = torch.optim.Adam(teacher.parameters(), lr=3e-3)
    for step in range(steps):
        x, y = make_batch(64)
        loss = F.cross_entropy(teacher(x), y, label_smoothing=0.1)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"teacher final loss {loss.item():.4f}")


def distill_loss(student_logits, teacher_logits, labels, T=1.0, alpha=0.7):
    p_t = F.softmax(teacher_logits / T, dim=1)
    log_p_s = F.log_softmax(student_logits / T, dim=1)
    kd = (p_t * (p_t.log() - log_p_s)).sum(1).mean() * T * T
    ce = F.cross_entropy(student_logits, labels)
    return alpha * kd + (1 - alpha) * ce, kd, ce


def main():
    teacher = CosineTeacher()
    train_teacher(teacher)
    teacher = teacher.half().eval()
    for p in teacher.parameters():
        p.requires_grad_(False)

    student = cnn(16, 2)
    opt = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    for step in range(20):
        x, y = make_batch(64)
        with torch.no_grad():
            t_logits = teacher(x.half())
        s_logits = student(x)
        loss, kd, ce = distill_loss(s_logits, t_logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 5 == 4:
            print(f"step {step} loss {loss.item():.4f} kd {kd.item():.4f} ce {ce.item():.4f}")


if __name__ == "__main__":
    main()
