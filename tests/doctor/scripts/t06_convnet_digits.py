"""Plain fp32 CNN on synthetic 28x28 digits-like data, with an eval pass."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader

torch.manual_seed(0)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(32 * 7 * 7, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        x = self.dropout(x.flatten(1))
        return self.fc2(F.relu(self.fc1(x)))


def make_data(n=512):
    y = torch.randint(0, 10, (n,))
    x = torch.rand(n, 1, 28, 28) * 0.3
    for i in range(n):
        r = 2 + 2 * int(y[i])
        x[i, 0, r:r + 4, 4:24] += 0.7
    x = (x - 0.1307) / 0.3081
    return TensorDataset(x, y)


def run_epoch(model, loader, opt=None):
    model.train(opt is not None)
    total, correct, n = 0.0, 0, 0
    for xb, yb in loader:
        with torch.set_grad_enabled(opt is not None):
            out = model(xb)
            loss = F.cross_entropy(out, yb)
        if opt is not None:
            opt.zero_grad()
            loss.backward()
            opt.step()
        total += loss.item() * len(xb)
        correct += (out.argmax(1) == yb).sum().item()
        n += len(xb)
    return total / n, correct / n


model = ConvNet()
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
train_dl = DataLoader(make_data(), batch_size=64, shuffle=True)
test_dl = DataLoader(make_data(128), batch_size=64)
for epoch in range(3):
    tl, ta = run_epoch(model, train_dl, opt)
    vl, va = run_epoch(model, test_dl)
    assert all(map(lambda v: torch.isfinite(torch.tensor(v)), (tl, vl)))
    print(f"epoch {epoch}: train loss {tl:.4f} acc {ta:.2f} | val loss {vl:.4f} acc {va:.2f}")
