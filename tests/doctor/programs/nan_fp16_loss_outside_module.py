"""An fp16 model whose loss is written by hand outside any module: a softmax spelled as exp / sum over similarities
divided by a temperature; exp of values above 11.09 passes fp16's 65504, the loss is inf and the gradients NaN; the
model's own outputs stay finite; the script exits 0."""
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 16))

    def forward(self, a, b):
        return self.net(a) @ self.net(b).t() / 0.05  # similarities over a temperature


def contrastive(sim):
    e = torch.exp(sim)
    return -torch.log(torch.diagonal(e) / e.sum(dim=1)).mean()


def main():
    torch.manual_seed(0)
    model = Encoder().half()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    for step in range(2):
        a, b = torch.randn(8, 32, dtype=torch.float16) * 2, torch.randn(8, 32, dtype=torch.float16) * 2
        loss = contrastive(model(a, b))
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(f"step {step}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
