import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(8)

N_CLASSES, IN_DIM = 10, 32
T = 2.0


def make_dataset(n, centers):
    y = torch.randint(0, N_CLASSES, (n,))
    x = centers[y] + 0.6 * torch.randn(n, IN_DIM)
    return x, y


def mlp(width, depth):
    layers, d = [], IN_DIM
    for _ in range(depth):
        layers += [nn.Linear(d, width), nn.ReLU()]
        d = width
    return nn.Sequential(*layers, nn.Linear(d, N_CLASSES))


def train_teacher(teacher, x, y, epochs=15):
    opt = torch.optim.Adam(teacher.parameters(), lr=3e-3)
    for _ in range(epochs):
        for idx in torch.randperm(len(x)).split(128):
            loss = F.cross_entropy(teacher(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return loss.item()


def distill_loss(student_logits, teacher_logits, labels, alpha=0.7):
    p_t = F.softmax(teacher_logits / T, dim=-1)
    log_p_s = F.log_softmax(student_logits / T, dim=-1)
    kl = (p_t * (p_t.log() - log_p_s)).sum(-1).mean() * T * T
    return alpha * kl + (1 - alpha) * F.cross_entropy(student_logits, labels)


def accuracy(model, x, y, dtype=torch.float32):
    with torch.no_grad():
        return (model(x.to(dtype)).argmax(-1) == y).float().mean().item()


def main():
    centers = torch.randn(N_CLASSES, IN_DIM) * 1.5
    x, y = make_dataset(6000, centers)
    xv, yv = make_dataset(1000, centers)
    teacher = mlp(256, 3)
    print(f"teacher final ce {train_teacher(teacher, x, y):.4f}")
    teacher = teacher.half().eval()
    print(f"teacher acc {accuracy(teacher, xv, yv, torch.float16):.3f}")

    student = mlp(32, 1)
    opt = torch.optim.Adam(student.parameters(), lr=3e-3)
    for epoch in range(5):
        total = 0.0
        for idx in torch.randperm(len(x)).split(128):
            with torch.no_grad():
                t_logits = teacher(x[idx].half())
            loss = distill_loss(student(x[idx]), t_logits, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
        print(f"epoch {epoch} distill loss {total / len(x):.4f} student acc {accuracy(student, xv, yv):.3f}")


if __name__ == "__main__":
    main()
