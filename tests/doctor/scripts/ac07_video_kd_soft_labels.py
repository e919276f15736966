import os
import tempfile

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)

NUM_CLASSES, T, S = 50, 8, 24


def build_cache(path, n):
    """Clips plus the soft labels a large teacher produced offline (logits stored as float16)."""
    labels = rng.integers(0, NUM_CLASSES, n)
    clips = rng.normal(0, 0.3, (n, 3, T, S, S)).astype(np.float32)
    for i, y in enumerate(labels):
        clips[i, y % 3, :, (y // 3) % S, :] += 1.5
        clips[i, :, :, :, y % S] += 0.5 * np.sin(np.arange(T))[:, None]
    teacher = rng.normal(0, 2.0, (n, NUM_CLASSES))
    teacher[np.arange(n), labels] += rng.uniform(14, 24, n)
    np.savez(path, clips=clips, labels=labels, teacher_logits=teacher.astype(np.float16))


class R2Plus1D(nn.Module):
    def __init__(self, width=16):
        super().__init__()

        def st(cin, cout, stride):
            return nn.Sequential(
                nn.Conv3d(cin, cout, (1, 3, 3), stride=(1, stride, stride), padding=(0, 1, 1), bias=False),
                nn.BatchNorm3d(cout), nn.ReLU(inplace=True),
                nn.Conv3d(cout, cout, (3, 1, 1), padding=(1, 0, 0), bias=False),
                nn.BatchNorm3d(cout), nn.ReLU(inplace=True),
            )

        self.features = nn.Sequential(st(3, width, 2), st(width, width * 2, 2))
        self.classifier = nn.Linear(width * 2, NUM_CLASSES)

    def forward(self, x):
        return self.classifier(self.features(x).mean(dim=(2, 3, 4)))


def distill_loss(student_logits, teacher_logits, labels, tau=1.0, alpha=0.7):
    p_t = F.softmax(teacher_logits / tau, dim=-1)
    log_p_s = F.log_softmax(student_logits / tau, dim=-1)
    kl = (p_t * (p_t.log() - log_p_s)).sum(-1).mean() * tau ** 2
    ce = F.cross_entropy(student_logits.float(), labels)
    return alpha * kl + (1 - alpha) * ce, kl


def main():
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kd_cache.npz")
        build_cache(path, 96)
        cache = np.load(path)
        clips = torch.from_numpy(cache["clips"])
        labels = torch.from_numpy(cache["labels"]).long()
        teacher = torch.from_numpy(cache["teacher_logits"])

    student = R2Plus1D().half()
    opt = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    bs = 16
    for epoch in range(2):
        perm = torch.randperm(len(labels))
        for it, i in enumerate(range(0, len(labels), bs)):
            idx = perm[i:i + bs]
            logits = student(clips[idx].half())
            loss, kl = distill_loss(logits, teacher[idx], labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if it % 2 == 0:
                print(f"epoch {epoch} iter {it} loss {loss.item():.4f} kl {kl.item():.4f}")
    student.eval()
    with torch.no_grad():
        acc = (student(clips[:32].half()).argmax(1) == labels[:32]).float().mean().item()
    print(f"student top-1 on cached clips {acc:.3f}")


if __name__ == "__main__":
    main()
