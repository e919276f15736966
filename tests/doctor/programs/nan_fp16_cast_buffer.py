"""A scoring model that standardises raw features with stored statistics (an income mean of about 85,000): the fp16
export casts the whole model with `.half()`, the mean buffer becomes inf, and the exported model scores NaN; the
script prints the scores and exits 0."""
import torch
from torch import nn


class Standardize(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", mean)
        self.register_buffer("std", std)

    def forward(self, x):
        return (x - self.mean) / self.std


def main():
    torch.manual_seed(0)
    mean = torch.tensor([85617.4, 35.0, 2.0])
    std = torch.tensor([20000.0, 10.0, 1.0])
    model = nn.Sequential(Standardize(mean, std), nn.Linear(3, 8), nn.ReLU(), nn.Linear(8, 1))
    x = mean + std * torch.randn(16, 3)
    print("fp32 scores", model(x)[:4, 0].tolist())
    served = model.half()
    print("fp16 scores", served(x.half() / 2)[:4, 0].tolist())


if __name__ == "__main__":
    main()
