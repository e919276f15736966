"""Distillation from a teacher kept in fp16: its confident softmax underflows to exactly 0 in fp16, and the loss
written by hand as p * (log p - log q) takes log(0) = -inf there, so 0 * -inf makes the loss NaN. The student's
gradients stay finite (they do not go through log p), so no gradient or weight check sees it; the script exits 0."""
import torch
import torch.nn.functional as F
from torch import nn


def main():
    torch.manual_seed(0)
    teacher = nn.Linear(8, 5).half().eval()
    with torch.no_grad():
        teacher.weight.mul_(40)  # a sharp, confident teacher
    student = nn.Linear(8, 5)
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    for step in range(3):
        x = torch.randn(16, 8)
        with torch.no_grad():
            p = F.softmax(teacher(x.half()), dim=-1)
        log_q = F.log_softmax(student(x), dim=-1)
        loss = (p * (p.log() - log_q)).sum(-1).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step}: kl {loss.item():.4f}")


if __name__ == "__main__":
    main()
