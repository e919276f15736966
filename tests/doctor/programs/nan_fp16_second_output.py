"""An fp16 model that returns a mean and a variance: the variance, E[x^2] - E[x]^2 over squares above 255.9,
is inf - inf = NaN while the mean stays finite; the script prints a NaN score and exits 0."""
import torch
from torch import nn


class Gaussian(nn.Module):
    def __init__(self):
        super().__init__()
        self.members = nn.ModuleList(nn.Linear(3, 1) for _ in range(4))

    def forward(self, x):
        outs = torch.stack([m(x) for m in self.members])
        mean = outs.mean(0)
        return mean, (outs ** 2).mean(0) - mean ** 2


def main():
    torch.manual_seed(0)
    model = Gaussian()
    with torch.no_grad():
        for i, m in enumerate(model.members):
            m.bias.fill_(300.0 + i)
    model = model.half()
    with torch.inference_mode():
        mean, var = model(torch.randn(5, 3, dtype=torch.float16))
    print(f"mean {mean.float().mean():.2f} var {var.float().mean():.2f}")


if __name__ == "__main__":
    main()
