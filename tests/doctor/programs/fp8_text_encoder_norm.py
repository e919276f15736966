"""A text encoder kept in float8 to save memory ('fp8 offload dtype'): its hidden states stay float8 and the RMSNorm
multiplies them with an fp32 statistic (`x.float()`), which PyTorch will not promote."""
import torch
from torch import nn


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        x = x * torch.rsqrt(x.float().pow(2).mean(dim=-1, keepdim=True) + self.eps)  # float8 * fp32
        return self.weight * x


def main():
    torch.manual_seed(0)
    embed = nn.Embedding(64, 32)
    embed.weight.data = embed.weight.data.to(torch.float8_e4m3fn)  # the whole encoder stored in fp8
    encoder = nn.Sequential(embed, RMSNorm(32))
    print(encoder(torch.randint(0, 64, (2, 8))).float().sum())


if __name__ == "__main__":
    main()
