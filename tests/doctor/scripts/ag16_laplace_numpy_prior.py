import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import parameters_to_vector, vector_to_parameters
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)
np.random.seed(0)


def spirals(n, k=3, noise=0.25):
    t = torch.rand(n) * 3.0 + 0.5
    y = torch.randint(0, k, (n,))
    angle = t * 2.0 + y * (2 * np.pi / k)
    x = torch.stack([t * torch.cos(angle), t * torch.sin(angle)], -1) + noise * torch.randn(n, 2)
    return x, y


class Net(nn.Module):
    def __init__(self, hidden=64, k=3):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, k))

    def forward(self, x):
        return self.net(x)


def fisher_diagonal(model, loader):
    fisher = torch.zeros_like(parameters_to_vector(model.parameters()))
    for xb, _ in loader:
        for xi in xb:
            logits = model(xi.unsqueeze(0))
            y_sample = torch.distributions.Categorical(logits=logits).sample()
            grads = torch.autograd.grad(F.cross_entropy(logits, y_sample), list(model.parameters()))
            fisher += parameters_to_vector(grads) ** 2
    return fisher


def layerwise_prior(model, precisions):
    return torch.from_numpy(np.concatenate([
        np.full(p.numel(), lam) for p, lam in zip(model.parameters(), precisions)
    ]))


@torch.no_grad()
def predictive(model, theta_map, post_var, x, n_samples=30):
    probs = 0.0
    for _ in range(n_samples):
        theta = theta_map + post_var.sqrt() * torch.randn_like(post_var)
        vector_to_parameters(theta, model.parameters())
        probs = probs + model(x).softmax(-1)
    vector_to_parameters(theta_map, model.parameters())
    return probs / n_samples


def main():
    x_tr, y_tr = spirals(1500)
    x_val, y_val = spirals(500)
    model = Net()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
    loader = DataLoader(TensorDataset(x_tr, y_tr), batch_size=100, shuffle=True)
    for epoch in range(30):
        tot = 0.0
        for xb, yb in loader:
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
        if epoch % 5 == 0:
            print(f"epoch {epoch:2d}  map loss {tot / len(loader):.4f}")

    theta_map = parameters_to_vector(model.parameters()).detach().clone()
    fisher = fisher_diagonal(model, DataLoader(TensorDataset(x_tr[:300], y_tr[:300]), batch_size=100))
    fisher = fisher * (len(x_tr) / 300)
    with torch.no_grad():
        map_nll = F.cross_entropy(model(x_val), y_val).item()
    print(f"MAP val nll {map_nll:.4f}")

    for scale in np.logspace(-1, 2, 4):
        precisions = scale * np.array([1.0, 1.0, 2.0, 2.0, 4.0, 4.0])
        post_var = 1.0 / (fisher + layerwise_prior(model, precisions))
        probs = predictive(model, theta_map, post_var, x_val)
        nll = F.nll_loss(probs.clamp_min(1e-12).log(), y_val).item()
        print(f"prior scale {scale:8.2f}  laplace val nll {nll:.4f}")


if __name__ == "__main__":
    main()
