import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
NUM_CLASSES = 8


def make_batch(n, size=16):
    y = torch.from_numpy(rng.integers(0, NUM_CLASSES, n)).long()
    angle = y.float() / NUM_CLASSES * 6.2832
    x = 0.5 * torch.randn(n, 3, size, size)
    x[:, 0] += torch.cos(angle)[:, None, None]
    x[:, 1] += torch.sin(angle)[:, None, None]
    return x, y


def cnn(width, depth):
    layers, cin = [], 3
    for i in range(depth):
        layers += [nn.Conv2d(cin, width, 3, padding=1, stride=2 if i else 1), nn.BatchNorm2d(width), nn.ReLU()]
        cin = width
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width, NUM_CLASSES))


def kd_loss(student_logits, teacher_logits, labels, T=4.0, alpha=0.8):
    log_p_s = F.log_softmax(student_logits.float() / T, dim=-1)
    log_p_t = F.log_softmax(teacher_logits.float() / T, dim=-1)
    kd = F.kl_div(log_p_s, log_p_t, log_target=True, reduction="batchmean") * T * T
    ce = F.cross_entropy(student_logits.float(), labels)
    return alpha * kd + (1 - alpha) * ce


def ece(logits, labels, n_bins=10):
    probs = F.softmax(logits.float(), dim=-1)
    conf, pred = probs.max(-1)
    bins = torch.clamp((conf * n_bins).long(), max=n_bins - 1)
    count = torch.bincount(bins, minlength=n_bins).float()
    conf_sum = torch.zeros(n_bins).scatter_add_(0, bins, conf)
    acc_sum = torch.zeros(n_bins).scatter_add_(0, bins, (pred == labels).float())
    return ((conf_sum - acc_sum).abs().sum() / count.sum()).item()


def main():
    teacher = cnn(48, 3)
    opt = torch.optim.Adam(teacher.parameters(), lr=3e-3)
    for step in range(40):
        x, y = make_batch(64)
        loss = F.cross_entropy(teacher(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"teacher loss {loss.item():.4f}")
    teacher = teacher.to(torch.bfloat16).eval().requires_grad_(False)

    student = cnn(16, 2)
    opt = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
    for step in range(30):
        x, y = make_batch(64)
        with torch.no_grad():
            t_logits = teacher(x.to(torch.bfloat16))
        with torch.autocast("cpu", dtype=torch.bfloat16):
            s_logits = student(x)
        loss = kd_loss(s_logits, t_logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 9:
            print(f"distill step {step} loss {loss.item():.4f}")

    student.eval()
    x_val, y_val = make_batch(256)
    with torch.no_grad():
        logits = student(x_val)
    log_t = torch.zeros(1, requires_grad=True)
    t_opt = torch.optim.Adam([log_t], lr=0.05)
    for _ in range(100):
        nll = F.cross_entropy(logits / log_t.exp(), y_val)
        t_opt.zero_grad()
        nll.backward()
        t_opt.step()
    T = log_t.exp().item()
    print(f"val nll {F.cross_entropy(logits, y_val).item():.4f} -> {nll.item():.4f} at T={T:.3f}")
    print(f"ece {ece(logits, y_val):.4f} -> {ece(logits / T, y_val):.4f}")


if __name__ == "__main__":
    main()
