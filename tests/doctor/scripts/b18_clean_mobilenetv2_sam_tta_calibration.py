"""Clean recipe: MobileNetV2 (transformers config) trained with a hand-written SAM optimizer under
bf16 autocast (BN running stats frozen for the second SAM pass), then evaluated with flip TTA,
temperature scaling fitted with LBFGS on held-out logits, and ECE / NLL calibration metrics."""
import torch
import torch.nn.functional as F
from torch.nn.modules.batchnorm import _BatchNorm
from transformers import MobileNetV2Config, MobileNetV2ForImageClassification

torch.manual_seed(0)
NUM_CLASSES = 5


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer_cls, rho=0.05, **kwargs):
        defaults = dict(rho=rho, **kwargs)
        super().__init__(params, defaults)
        self.base_optimizer = base_optimizer_cls(self.param_groups, **kwargs)
        self.param_groups = self.base_optimizer.param_groups

    @torch.no_grad()
    def first_step(self):
        grad_norm = torch.norm(torch.stack([p.grad.norm(2) for g in self.param_groups for p in g["params"]
                                            if p.grad is not None]), 2)
        for g in self.param_groups:
            scale = g["rho"] / (grad_norm + 1e-12)
            for p in g["params"]:
                if p.grad is None:
                    continue
                e_w = p.grad * scale
                p.add_(e_w)
                self.state[p]["e_w"] = e_w

    @torch.no_grad()
    def second_step(self):
        for g in self.param_groups:
            for p in g["params"]:
                if "e_w" in self.state[p]:
                    p.sub_(self.state[p]["e_w"])
        self.base_optimizer.step()


def set_bn_momentum(model, freeze):
    for m in model.modules():
        if isinstance(m, _BatchNorm):
            if freeze:
                m.backup_momentum = m.momentum
                m.momentum = 0
            elif hasattr(m, "backup_momentum"):
                m.momentum = m.backup_momentum


def forward_loss(model, x, y):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(pixel_values=x).logits
    return F.cross_entropy(logits.float(), y, label_smoothing=0.1)


def ece(probs, labels, n_bins=10):
    conf, pred = probs.max(1)
    acc = pred.eq(labels).float()
    edges = torch.linspace(0, 1, n_bins + 1)
    total = torch.zeros(())
    for lo, hi in zip(edges[:-1], edges[1:]):
        in_bin = (conf > lo) & (conf <= hi)
        if in_bin.any():
            total += in_bin.float().mean() * (conf[in_bin].mean() - acc[in_bin].mean()).abs()
    return total.item()


labels = torch.randint(0, NUM_CLASSES, (176,))
images = torch.randn(176, 3, 32, 32) * 0.6 + labels.view(-1, 1, 1, 1) * 0.2
train_x, train_y = images[:112], labels[:112]
val_x, val_y = images[112:144], labels[112:144]
test_x, test_y = images[144:], labels[144:]

model = MobileNetV2ForImageClassification(
    MobileNetV2Config(num_channels=3, image_size=32, depth_multiplier=0.35, num_labels=NUM_CLASSES))
opt = SAM(model.parameters(), torch.optim.SGD, rho=0.05, lr=0.01, momentum=0.9, weight_decay=5e-4)

model.train()
for epoch in range(3):
    perm = torch.randperm(len(train_y))
    for i in range(0, len(perm), 16):
        idx = perm[i:i + 16]
        x, y = train_x[idx], train_y[idx]
        forward_loss(model, x, y).backward()
        opt.first_step()
        opt.zero_grad()
        set_bn_momentum(model, freeze=True)
        loss = forward_loss(model, x, y)
        loss.backward()
        set_bn_momentum(model, freeze=False)
        opt.second_step()
        opt.zero_grad()
    print(f"epoch {epoch} loss {loss.item():.4f}")


@torch.no_grad()
def tta_logits(model, x):
    model.eval()
    out = torch.zeros(x.shape[0], NUM_CLASSES, dtype=torch.float32)
    for view in (x, x.flip(-1)):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out += model(pixel_values=view).logits.float()
    return out / 2


val_logits, test_logits = tta_logits(model, val_x), tta_logits(model, test_x)

log_t = torch.zeros(1, requires_grad=True)
lbfgs = torch.optim.LBFGS([log_t], lr=0.1, max_iter=50)


def closure():
    lbfgs.zero_grad()
    nll = F.cross_entropy(val_logits / log_t.exp(), val_y)
    nll.backward()
    return nll


lbfgs.step(closure)
temp = log_t.exp().item()
for name, lg in [("uncalibrated", test_logits), (f"T={temp:.3f}", test_logits / temp)]:
    probs = lg.softmax(-1)
    print(f"{name}: acc {(probs.argmax(-1) == test_y).float().mean():.3f} "
          f"nll {F.cross_entropy(lg, test_y).item():.4f} ece {ece(probs, test_y):.4f}")
