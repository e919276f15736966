"""Tabular model: pretrain a regressor with bf16 autocast, calibrate its predictive
noise with LBFGS in double precision, then re-use the trunk for a 3-class task with a
fresh head."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N, F_IN = 2048, 12

X = torch.randn(N, F_IN)
y_reg = X[:, :4].sum(1) + 0.3 * torch.randn(N)
y_cls = torch.bucketize(X[:, 4] + X[:, 5], torch.tensor([-0.7, 0.7]))


class Net(nn.Module):
    def __init__(self, out_dim):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(F_IN, 64), nn.SiLU(), nn.Linear(64, 64), nn.SiLU())
        self.head = nn.Linear(64, out_dim)

    def forward(self, x):
        return self.head(self.trunk(x))


# ---- stage 1: regression pretraining ----
model = Net(1)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for epoch in range(4):
    for i in range(0, N, 256):
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            pred = model(X[i:i + 256]).squeeze(-1)
        loss = F.mse_loss(pred.float(), y_reg[i:i + 256])
        opt.zero_grad()
        loss.backward()
        opt.step()
print("stage 1 mse", loss.item())

# ---- stage 2: fit the Gaussian noise scale (needs double precision for LBFGS) ----
torch.set_default_dtype(torch.float64)
with torch.no_grad():
    resid = (model(X).squeeze(-1) - y_reg).double()
log_sigma = torch.zeros((), requires_grad=True)
lbfgs = torch.optim.LBFGS([log_sigma], lr=0.5, max_iter=50)


def closure():
    lbfgs.zero_grad()
    nll = (0.5 * (resid / log_sigma.exp()) ** 2 + log_sigma).mean()
    nll.backward()
    return nll


lbfgs.step(closure)
print("calibrated sigma", log_sigma.exp().item())

# ---- stage 3: new 3-class task on the pretrained trunk ----
model.head = nn.Linear(64, 3)
opt = torch.optim.Adam([{"params": model.trunk.parameters(), "lr": 3e-4},
                        {"params": model.head.parameters(), "lr": 3e-3}])
for epoch in range(4):
    for i in range(0, N, 256):
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            logits = model(X[i:i + 256])
        loss = F.cross_entropy(logits.float(), y_cls[i:i + 256])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print("stage 3 epoch", epoch, "ce", loss.item())
