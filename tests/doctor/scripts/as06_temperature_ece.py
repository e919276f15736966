import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_CLASSES = 5


def make_data(n, size=16):
    y = torch.randint(0, NUM_CLASSES, (n,))
    protos = torch.linspace(-1.0, 1.0, NUM_CLASSES)
    x = 0.5 * torch.randn(n, 3, size, size)
    x[:, 0] += protos[y][:, None, None]
    x[:, 1] -= protos[y][:, None, None]
    return x, y


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.Conv2d(32, 64, 3, padding=1, stride=2), nn.BatchNorm2d(64), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Linear(64, NUM_CLASSES)

    def forward(self, x):
        return self.head(self.body(x))


def softmax_t(logits, temperature):
    e = torch.exp(logits / temperature)
    return e / e.sum(dim=1, keepdim=True)


def expected_calibration_error(probs, labels, n_bins=10):
    conf, pred = probs.max(1)
    correct = pred.eq(labels).float()
    edges = torch.linspace(0, 1, n_bins + 1)
    ece = torch.zeros(())
    for lo, hi in zip(edges[:-1], edges[1:]):
        in_bin = (conf > lo) & (conf <= hi)
        if in_bin.any():
            ece += in_bin.float().mean() * (conf[in_bin].float().mean() - correct[in_bin].mean()).abs()
    return ece


def fit_temperature(logits, labels, steps=50):
    log_t = torch.zeros(1, requires_grad=True)
    opt = torch.optim.LBFGS([log_t], lr=0.1, max_iter=steps)

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(logits / log_t.exp(), labels)
        loss.backward()
        return loss

    opt.step(closure)
    return log_t.exp().item()


def main():
    x_tr, y_tr = make_data(512)
    x_val, y_val = make_data(256)
    model = SmallCNN()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    for epoch in range(6):
        for i in range(0, 512, 64):
            loss = F.cross_entropy(model(x_tr[i:i + 64]), y_tr[i:i + 64])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")

    model = model.half().eval()
    with torch.no_grad():
        logits = torch.cat([model(x_val[i:i + 64].half()) for i in range(0, 256, 64)])

    nll = F.cross_entropy(logits.float(), y_val)
    probs = softmax_t(logits, 1.0)
    print(f"val nll {nll.item():.4f}  ece before {expected_calibration_error(probs, y_val).item():.4f}")
    t = fit_temperature(logits.float(), y_val)
    probs = softmax_t(logits, t)
    cal_nll = -torch.log(probs.gather(1, y_val[:, None]).float()).mean()
    print(f"temperature {t:.3f}  nll after {cal_nll.item():.4f}  "
          f"ece after {expected_calibration_error(probs, y_val).item():.4f}")


if __name__ == "__main__":
    main()
