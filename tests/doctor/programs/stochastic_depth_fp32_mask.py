"""A bf16 residual stack with stochastic depth: the drop-path mask is made with `torch.rand` (fp32, the default
dtype), so the block returns fp32 and the Sequential hands fp32 activations to the next bf16 layer."""
import torch
from torch import nn


class DropPath(nn.Module):
    def __init__(self, p=0.2):
        super().__init__()
        self.p = p

    def forward(self, x):
        keep = 1 - self.p
        mask = (keep + torch.rand(x.shape[0], 1)).floor()
        return x / keep * mask


class Block(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.drop_path = DropPath()

    def forward(self, x):
        return x + self.drop_path(torch.relu(self.fc(x)))


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Sequential(Block(), Block()), nn.Linear(16, 4)).to(torch.bfloat16)
    model(torch.randn(8, 16, dtype=torch.bfloat16)).sum().backward()


if __name__ == "__main__":
    main()
