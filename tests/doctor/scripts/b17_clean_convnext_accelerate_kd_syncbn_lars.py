"""Clean recipe: knowledge distillation from a CNN teacher (BatchNorm converted to SyncBatchNorm
for multi-process runs) into a ConvNeXt student (transformers config) with accelerate bf16
mixed precision, gradient accumulation and a hand-written LARS optimizer."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.optim import Optimizer
from torch.utils.data import DataLoader, TensorDataset
from accelerate import Accelerator
from transformers import ConvNextConfig, ConvNextForImageClassification

torch.manual_seed(0)
NUM_CLASSES, T, ALPHA = 6, 2.0, 0.5


class LARS(Optimizer):
    def __init__(self, params, lr, momentum=0.9, weight_decay=1e-4, eta=0.001):
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay, eta=eta))

    @torch.no_grad()
    def step(self, closure=None):
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad
                if p.ndim > 1:  # no weight decay / adaptation for biases and norm params
                    d_p = d_p.add(p, alpha=g["weight_decay"])
                    w_norm, g_norm = torch.norm(p), torch.norm(d_p)
                    q = torch.where((w_norm > 0) & (g_norm > 0), g["eta"] * w_norm / g_norm, torch.ones_like(w_norm))
                    d_p = d_p.mul(q)
                buf = self.state[p].setdefault("mu", torch.zeros_like(p))
                buf.mul_(g["momentum"]).add_(d_p)
                p.add_(buf, alpha=-g["lr"])


def make_teacher():
    net = nn.Sequential(
        nn.Conv2d(3, 32, 3, 1, 1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, NUM_CLASSES))
    return nn.SyncBatchNorm.convert_sync_batchnorm(net)


accelerator = Accelerator(mixed_precision="bf16", cpu=True, gradient_accumulation_steps=2)

labels = torch.randint(0, NUM_CLASSES, (128,))
images = torch.randn(128, 3, 32, 32) + labels.view(-1, 1, 1, 1) * 0.15
dl = DataLoader(TensorDataset(images, labels), batch_size=16, shuffle=True)

# 1) quick teacher training (stands in for a pretrained CNN)
teacher = make_teacher()
t_opt = torch.optim.SGD(teacher.parameters(), lr=0.05, momentum=0.9)
teacher, t_opt, t_dl = accelerator.prepare(teacher, t_opt, dl)
teacher.train()
for x, y in t_dl:
    loss = F.cross_entropy(teacher(x), y)
    t_opt.zero_grad()
    accelerator.backward(loss)
    t_opt.step()
teacher.eval()
accelerator.print(f"teacher last loss {loss.item():.4f}")

# 2) distillation into ConvNeXt
cfg = ConvNextConfig(num_channels=3, patch_size=2, hidden_sizes=[16, 32, 48], depths=[1, 1, 1], num_stages=3,
                     drop_path_rate=0.1, num_labels=NUM_CLASSES)
student = ConvNextForImageClassification(cfg)
opt = LARS(student.parameters(), lr=0.5)
student, opt, s_dl = accelerator.prepare(student, opt, dl)
student.train()
for epoch in range(2):
    for x, y in s_dl:
        with accelerator.accumulate(student):
            with torch.no_grad():
                t_logits = teacher(x)
            s_logits = student(pixel_values=x).logits
            kd = F.kl_div(F.log_softmax(s_logits.float() / T, -1), F.log_softmax(t_logits.float() / T, -1),
                          reduction="batchmean", log_target=True) * T * T
            loss = ALPHA * kd + (1 - ALPHA) * F.cross_entropy(s_logits.float(), y)
            accelerator.backward(loss)
            if accelerator.sync_gradients:
                accelerator.clip_grad_norm_(student.parameters(), 5.0)
            opt.step()
            opt.zero_grad()
    accelerator.print(f"epoch {epoch} kd {kd.item():.4f} loss {loss.item():.4f}")
