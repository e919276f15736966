import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(18)


class SwishFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * torch.sigmoid(x)

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        e = torch.exp(-x)
        s = 1.0 / (1.0 + e)
        return grad_out * (s + x * e / (1.0 + e) ** 2)


class Swish(nn.Module):
    def forward(self, x):
        return SwishFn.apply(x)


def make_sensor_data(n):
    temp = torch.rand(n) * 35
    humidity = 20 + torch.rand(n) * 70
    wind = torch.rand(n) * 15
    x = torch.stack([temp, humidity, wind], 1)
    load = 2.0 + 0.08 * temp - 0.01 * humidity + 0.05 * wind
    noise_std = 0.05 + 0.02 * wind
    return x, load + noise_std * torch.randn(n)


class HeteroscedasticNet(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(3, hidden), Swish(), nn.Linear(hidden, hidden), Swish())
        self.mean = nn.Linear(hidden, 1)
        self.log_var = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.mean(h).squeeze(-1), self.log_var(h).squeeze(-1)


def gaussian_nll(mean, log_var, y):
    mean, log_var = mean.float(), log_var.float().clamp(-10, 10)
    return (0.5 * (log_var + (y - mean) ** 2 / log_var.exp())).mean()


def main():
    x, y = make_sensor_data(5000)
    xv, yv = make_sensor_data(1000)
    model = HeteroscedasticNet()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(6):
        total = 0.0
        for idx in torch.randperm(len(x)).split(250):
            with torch.autocast("cpu", dtype=torch.float16):
                mean, log_var = model(x[idx])
            loss = gaussian_nll(mean, log_var, y[idx])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
            opt.step()
            total += loss.item() * len(idx)
        with torch.no_grad(), torch.autocast("cpu", dtype=torch.float16):
            mv, lv = model(xv)
        val = gaussian_nll(mv, lv, yv).item()
        print(f"epoch {epoch} train nll {total / len(x):.4f} val nll {val:.4f}")
    print("predicted std at wind 0/14:", lv.float().mul(0.5).exp()[xv[:, 2].argsort()[[0, -1]]].tolist())


if __name__ == "__main__":
    main()
