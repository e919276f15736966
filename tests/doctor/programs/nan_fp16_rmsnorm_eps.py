"""An RMSNorm written with eps=1e-8, run in fp16 on a batch with zero padding rows: 1e-8 rounds to 0 in fp16, the
mean square of a zero row is 0, and rsqrt(0) is inf; the script exits 0."""
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-8):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def main():
    torch.manual_seed(0)
    model = nn.Sequential(RMSNorm(8), nn.Linear(8, 4)).half()
    x = torch.randn(2, 6, 8, dtype=torch.float16)
    x[:, 4:] = 0  # padding
    with torch.no_grad():
        print("output mean", model(x).float().mean().item())


if __name__ == "__main__":
    main()
