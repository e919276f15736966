"""A KV cache set up after the model was cast to bf16: its buffers are made with the default dtype (fp32), and
writing bf16 keys into them fails."""
import torch
from torch import nn


class KVCache(nn.Module):
    def __init__(self, length, dim):
        super().__init__()
        self.register_buffer("k_cache", torch.zeros(1, length, dim))

    def update(self, pos, k):
        self.k_cache.index_copy_(1, pos, k)
        return self.k_cache


class Attention(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.wk = nn.Linear(dim, dim)
        self.cache = None

    def forward(self, x, pos):
        return self.cache.update(pos, self.wk(x))


def main():
    torch.manual_seed(0)
    model = Attention().to(torch.bfloat16)
    model.cache = KVCache(16, 8)
    with torch.no_grad():
        model(torch.randn(1, 4, 8, dtype=torch.bfloat16), torch.arange(4))


if __name__ == "__main__":
    main()
