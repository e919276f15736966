import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
N_CLASSES = 6


def gaussian_blobs(n, d=10, spread=0.8):
    centers = torch.randn(N_CLASSES, d, generator=torch.Generator().manual_seed(1)) * spread
    y = torch.randint(0, N_CLASSES, (n,))
    x = centers[y] + torch.randn(n, d)
    return x, y


class Classifier(nn.Module):
    def __init__(self, d=10, hidden=128):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(d, hidden), nn.GELU(),
            nn.Linear(hidden, hidden), nn.GELU(),
        )
        self.head = nn.Linear(hidden, N_CLASSES)

    def forward(self, x):
        return self.head(self.body(x))


def train(model, loader, epochs=6):
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3, weight_decay=1e-4)
    for epoch in range(epochs):
        running = 0.0
        for xb, yb in loader:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            running += loss.item()
        print(f"epoch {epoch}  train ce {running / len(loader):.4f}")


@torch.no_grad()
def predict_proba(model, x, batch_size=512):
    out = []
    with torch.autocast("cpu", dtype=torch.bfloat16):
        for i in range(0, x.shape[0], batch_size):
            out.append(model(x[i:i + batch_size]).softmax(-1))
    return torch.cat(out)


def calibrate(model, x_cal, y_cal, alpha=0.1):
    probs = predict_proba(model, x_cal)
    scores = 1.0 - probs.gather(1, y_cal.unsqueeze(1)).squeeze(1)
    n = scores.shape[0]
    q_level = math.ceil((n + 1) * (1 - alpha)) / n
    return torch.quantile(scores, q_level, interpolation="higher")


def prediction_sets(model, x, qhat):
    probs = predict_proba(model, x)
    return probs >= (1.0 - qhat)


def main():
    x_tr, y_tr = gaussian_blobs(6000)
    x_cal, y_cal = gaussian_blobs(2000)
    x_te, y_te = gaussian_blobs(2000)

    model = Classifier()
    train(model, DataLoader(TensorDataset(x_tr, y_tr), batch_size=128, shuffle=True))
    model.eval()

    qhat = calibrate(model, x_cal, y_cal, alpha=0.1)
    sets = prediction_sets(model, x_te, qhat)
    coverage = sets[torch.arange(len(y_te)), y_te].float().mean()
    print(f"qhat={float(qhat):.4f}  coverage={coverage:.3f}  avg set size={sets.sum(1).float().mean():.2f}")


if __name__ == "__main__":
    main()
