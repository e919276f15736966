import math
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class LocalReparamLinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w_mu, w_logvar):
        w_var = w_logvar.exp()
        act_mu = x.mm(w_mu.t())
        act_var = (x * x).mm(w_var.t()) + 1e-8
        act_std = act_var.sqrt()
        noise = torch.randn_like(act_mu)
        ctx.save_for_backward(x, w_mu, w_var, act_std, noise)
        return act_mu + act_std * noise

    @staticmethod
    def backward(ctx, grad_out):
        x, w_mu, w_var, act_std, noise = ctx.saved_tensors
        grad_var = grad_out * noise / (2 * act_std)
        grad_x = grad_out.mm(w_mu) + 2 * x * grad_var.mm(w_var)
        grad_w_mu = grad_out.t().mm(x)
        grad_w_logvar = grad_var.t().mm(x * x) * w_var
        return grad_x, grad_w_mu, grad_w_logvar


class BayesLinear(nn.Module):
    def __init__(self, d_in, d_out, prior_std=1.0):
        super().__init__()
        self.w_mu = nn.Parameter(torch.randn(d_out, d_in) / math.sqrt(d_in))
        self.w_logvar = nn.Parameter(torch.full((d_out, d_in), -9.0))
        self.bias = nn.Parameter(torch.zeros(d_out))
        self.prior_var = prior_std ** 2

    def forward(self, x):
        return LocalReparamLinearFn.apply(x, self.w_mu, self.w_logvar) + self.bias

    def kl(self):
        var = self.w_logvar.exp()
        return 0.5 * ((var + self.w_mu ** 2) / self.prior_var - 1 - self.w_logvar + math.log(self.prior_var)).sum()


class BayesMLP(nn.Module):
    def __init__(self, d_in=8, hidden=64, n_classes=3):
        super().__init__()
        self.layers = nn.ModuleList([BayesLinear(d_in, hidden), BayesLinear(hidden, hidden), BayesLinear(hidden, n_classes)])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = F.relu(x)
        return x

    def kl(self):
        return sum(layer.kl() for layer in self.layers)


def make_data(n):
    x = torch.randn(n, 8)
    logits = torch.stack([x[:, 0] + x[:, 1], x[:, 2] * x[:, 3], -x[:, 0] + 0.5 * x[:, 4]], -1)
    return x, logits.argmax(-1)


def main():
    x, y = make_data(3000)
    loader = DataLoader(TensorDataset(x, y), batch_size=100, shuffle=True)
    model = BayesMLP()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    n = len(loader.dataset)
    for epoch in range(6):
        tot = 0.0
        for xb, yb in loader:
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(xb)
                nll = F.cross_entropy(logits.float(), yb)
                loss = nll + model.kl() / n
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
        print(f"epoch {epoch}  -elbo/n {tot / len(loader):.4f}")

    model.eval()
    with torch.no_grad():
        xt, yt = make_data(1000)
        probs = torch.stack([model(xt).softmax(-1) for _ in range(16)]).mean(0)
        print("test acc", (probs.argmax(-1) == yt).float().mean().item())


if __name__ == "__main__":
    main()
