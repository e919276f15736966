"""House-price regression MLP on tabular features, fp16 autocast + GradScaler.
The loss is computed outside the autocast region; targets are cast to the prediction
dtype so mse_loss does not complain about mismatched dtypes."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N = 2000

# synthetic listings: area (m2), rooms, age (years), distance to centre (km), lot size (m2)
area = 40 + 160 * torch.rand(N)
rooms = torch.randint(1, 7, (N,)).float()
age = 80 * torch.rand(N)
dist = 30 * torch.rand(N)
lot = 100 + 900 * torch.rand(N)
raw = torch.stack([area, rooms, age, dist, lot], 1)
price = 1800 * area + 9000 * rooms - 600 * age - 3500 * dist + 40 * lot + 15000 * torch.randn(N) + 50000

# standardise the features
mu, sd = raw.mean(0), raw.std(0)
X = (raw - mu) / sd
Y = price

model = nn.Sequential(nn.Linear(5, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
scaler = torch.amp.GradScaler("cpu")

for epoch in range(10):
    perm = torch.randperm(N)
    for i in range(0, N, 100):
        idx = perm[i:i + 100]
        with torch.autocast(device_type="cpu", dtype=torch.float16):
            pred = model(X[idx]).squeeze(-1)
        target = Y[idx].to(pred.dtype)
        loss = F.mse_loss(pred, target)
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    if epoch % 3 == 0:
        print(f"epoch {epoch} rmse {loss.float().sqrt().item():.1f} scale {scaler.get_scale()}")

with torch.no_grad(), torch.autocast(device_type="cpu", dtype=torch.float16):
    mae = (model(X).squeeze(-1).float() - Y).abs().mean()
print(f"train MAE {mae.item():.0f}")
