"""A model built on the meta device and loaded with `load_state_dict(assign=True)`: every saved tensor is replaced,
but the rotary table registered with `persistent=False` is not in the state dict and stays on meta."""
import torch
from torch import nn


class Rotary(nn.Module):
    def __init__(self, dim=8, seq=16):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        angles = torch.arange(seq)[:, None] * (1.0 / 10000 ** (torch.arange(dim) / dim))
        self.register_buffer("freqs", torch.cos(angles), persistent=False)

    def forward(self, x):
        return self.proj(x) * self.freqs[: x.shape[1]]


def main():
    torch.manual_seed(0)
    state = Rotary().state_dict()
    with torch.device("meta"):
        model = Rotary()
    model.load_state_dict(state, assign=True)
    model(torch.randn(2, 16, 8))


if __name__ == "__main__":
    main()
