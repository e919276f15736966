import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
rng = np.random.default_rng(0)
N_FEAT, N_CLASSES = 24, 3


W_TRUE = rng.normal(size=(N_FEAT, N_CLASSES)).astype(np.float32) * 0.6


def make_cohort(n):
    x = rng.normal(size=(n, N_FEAT)).astype(np.float32)
    w = W_TRUE
    risk = x @ w + 1.0 * rng.normal(size=(n, N_CLASSES)).astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(risk.argmax(1)).long()


x_tr, y_tr = make_cohort(1500)
x_val, y_val = make_cohort(600)
x_te, y_te = make_cohort(600)

model = nn.Sequential(nn.Linear(N_FEAT, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(), nn.Linear(256, N_CLASSES))
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for epoch in range(60):
    perm = torch.randperm(len(x_tr))
    for i in range(0, len(x_tr), 100):
        idx = perm[i:i + 100]
        loss = F.cross_entropy(model(x_tr[idx]), y_tr[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    if epoch % 20 == 19:
        print(f"epoch {epoch + 1} train loss {loss.item():.4f}")

serving_model = model.half().eval()
with torch.no_grad():
    val_logits = serving_model(x_val.half())
    test_logits = serving_model(x_te.half())

log_t = torch.zeros(1, requires_grad=True)
lbfgs = torch.optim.LBFGS([log_t], lr=0.1, max_iter=100)


def closure():
    lbfgs.zero_grad()
    loss = F.cross_entropy(val_logits.float() / log_t.exp(), y_val)
    loss.backward()
    return loss


lbfgs.step(closure)
T = log_t.exp().item()
print(f"fitted temperature {T:.3f}")


def softmax_t(logits, temperature):
    e = torch.exp(logits / temperature)
    return e / e.sum(dim=-1, keepdim=True)


def expected_calibration_error(probs, labels, n_bins=15):
    conf, pred = probs.max(dim=-1)
    correct = pred.eq(labels).float()
    edges = torch.linspace(0, 1, n_bins + 1)
    ece = torch.zeros(())
    for lo, hi in zip(edges[:-1], edges[1:]):
        in_bin = (conf > lo) & (conf <= hi)
        if in_bin.any():
            ece += in_bin.float().mean() * (conf[in_bin].float().mean() - correct[in_bin].mean()).abs()
    return ece


for name, temp in [("uncalibrated", 1.0), ("temperature-scaled", T)]:
    probs = softmax_t(test_logits, temp)
    acc = probs.argmax(-1).eq(y_te).float().mean().item()
    nll = -torch.log(probs.gather(1, y_te[:, None]).float()).mean().item()
    ece = expected_calibration_error(probs, y_te).item()
    print(f"{name:>20s}: acc {acc:.3f}  nll {nll:.4f}  ece {ece:.4f}")
