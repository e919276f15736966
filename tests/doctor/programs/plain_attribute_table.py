"""A positional table kept as a plain tensor attribute: `model.to(torch.bfloat16)` casts parameters and buffers,
not it, so adding it to the bf16 embeddings promotes them to fp32 before the bf16 encoder layer."""
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, vocab=50, dim=16, length=12):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.pos = torch.randn(length, dim) * 0.02
        self.mix = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, 3)

    def forward(self, ids):
        h = self.embed(ids) + self.pos[: ids.shape[1]]
        return self.head(torch.relu(self.mix(h)))


def main():
    torch.manual_seed(0)
    model = Tagger().to(torch.bfloat16)
    model(torch.randint(0, 50, (2, 12)))


if __name__ == "__main__":
    main()
