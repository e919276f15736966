"""Hand-written fp16 attention masking padded keys with -1e9: -1e9 is -inf in fp16, so a query that sees only
padding gets a softmax over -inf alone -> NaN, and the loss is NaN; the script exits 0."""
import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x, pad):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        scores = q @ k.transpose(-1, -2) / q.shape[-1] ** 0.5
        causal = torch.ones(x.shape[1], x.shape[1], dtype=torch.bool).triu(1)
        masked = causal | pad[:, None, :]  # left padding: the first query sees padding only
        scores = scores + masked.to(scores.dtype) * -1e9  # fits fp32, not fp16 (65504)
        return self.out(scores.softmax(-1) @ v)


class Net(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.embed = nn.Embedding(50, d)
        self.attn = Attention(d)
        self.head = nn.Linear(d, 50)

    def forward(self, ids, pad):
        return self.head(self.attn(self.embed(ids), pad))


def main():
    torch.manual_seed(0)
    model = Net().half()
    ids = torch.randint(1, 50, (2, 6))
    pad = torch.zeros(2, 6, dtype=torch.bool)
    pad[1, :2] = True  # the second row is left-padded
    logits = model(ids, pad)
    loss = nn.functional.cross_entropy(logits.float().flatten(0, 1), ids.flatten())
    loss.backward()
    print(f"loss {loss.item()}")


if __name__ == "__main__":
    main()
