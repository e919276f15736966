import copy
import torch
import torch.nn as nn

N_FEATURES, N_LABELS = 64, 12


class Tagger(nn.Module):
    def __init__(self, d_in=N_FEATURES, d=128, n_labels=N_LABELS):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, d), nn.LayerNorm(d), nn.ReLU(),
                                  nn.Linear(d, d), nn.LayerNorm(d), nn.ReLU())
        self.head = nn.Linear(d, n_labels)

    def forward(self, x):
        return self.head(self.body(x))


def bce_loss(logits, targets, pos_weight=None):
    p = torch.sigmoid(logits)
    pos = targets * torch.log(p)
    if pos_weight is not None:
        pos = pos * pos_weight
    neg = (1 - targets) * torch.log(1 - p)
    return -(pos + neg).mean()


def make_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    proto = torch.randn(N_LABELS, N_FEATURES, generator=torch.Generator().manual_seed(123))
    y = (torch.rand(n, N_LABELS, generator=g) < 0.2).float()
    x = y @ proto / 2 + 0.3 * torch.randn(n, N_FEATURES, generator=g)
    return x, y


def main():
    torch.manual_seed(0)
    x, y = make_data(4096, 0)
    xv, yv = make_data(512, 1)
    pos_weight = ((1 - y).sum(0) / y.sum(0)).clamp(max=4.0)
    model = Tagger()
    opt = torch.optim.AdamW([
        {"params": model.body.parameters(), "lr": 2e-3, "weight_decay": 1e-4},
        {"params": model.head.parameters(), "lr": 5e-3, "weight_decay": 0.0},
    ])
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=128, shuffle=True)
    swa, n_avg = None, 0
    for epoch in range(5):
        for xb, yb in loader:
            loss = bce_loss(model(xb), yb, pos_weight)
            opt.zero_grad()
            loss.backward()
            opt.step()
        if epoch >= 2:
            if swa is None:
                swa = copy.deepcopy(model)
            else:
                with torch.no_grad():
                    for ps, p in zip(swa.parameters(), model.parameters()):
                        ps.mul_(n_avg / (n_avg + 1)).add_(p / (n_avg + 1))
            n_avg += 1
        print(f"epoch {epoch} train bce {loss.item():.4f}")

    eval_model = swa.half().eval()
    with torch.no_grad():
        logits = eval_model(xv.half())
        val_loss = bce_loss(logits, yv.half())
        pred = (logits > 0).float()
        f1 = 2 * (pred * yv).sum() / (pred.sum() + yv.sum())
    print(f"swa fp16 eval: bce {val_loss.item():.4f} micro-f1 {f1.item():.3f}")


if __name__ == "__main__":
    main()
