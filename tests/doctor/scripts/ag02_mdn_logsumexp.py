import math
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def inverse_problem_data(n=2048):
    # classic "inverted sinusoid": multimodal p(y | x)
    t = torch.rand(n, 1) * 10.5 - 5.25
    x = 7.0 * torch.sin(0.75 * t) + 0.5 * t + torch.randn(n, 1) * 0.5
    y = t + 8.0
    return x, y


class MDN(nn.Module):
    def __init__(self, n_components=5, hidden=64):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Linear(1, hidden), nn.Tanh(),
            nn.Linear(hidden, hidden), nn.Tanh(),
        )
        self.pi = nn.Linear(hidden, n_components)
        self.mu = nn.Linear(hidden, n_components)
        self.log_sigma = nn.Linear(hidden, n_components)

    def forward(self, x):
        h = self.trunk(x)
        log_pi = torch.log_softmax(self.pi(h), dim=-1)
        return log_pi, self.mu(h), self.log_sigma(h)


def mdn_nll(log_pi, mu, log_sigma, y):
    z = (y - mu) * torch.exp(-log_sigma)
    log_comp = -0.5 * z * z - log_sigma - 0.5 * math.log(2 * math.pi)
    log_joint = log_pi + log_comp
    log_lik = torch.log(torch.sum(torch.exp(log_joint), dim=-1))
    return -log_lik.mean()


def main():
    x, y = inverse_problem_data()
    x = (x - x.mean()) / x.std()
    loader = DataLoader(TensorDataset(x.half(), y.half()), batch_size=256, shuffle=True)

    model = MDN().half()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)

    for epoch in range(8):
        total, count = 0.0, 0
        for xb, yb in loader:
            log_pi, mu, log_sigma = model(xb)
            loss = mdn_nll(log_pi, mu, log_sigma, yb)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            total += loss.item() * xb.shape[0]
            count += xb.shape[0]
        print(f"epoch {epoch}  train nll {total / count:.4f}")

    with torch.no_grad():
        xs = torch.linspace(-1.5, 1.5, 5).unsqueeze(-1).half()
        log_pi, mu, log_sigma = model(xs)
        best = log_pi.argmax(-1, keepdim=True)
        print("most likely component means:", mu.gather(-1, best).squeeze(-1).float().tolist())


if __name__ == "__main__":
    main()
