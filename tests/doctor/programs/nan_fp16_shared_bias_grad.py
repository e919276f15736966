"""A contrastive model trained wholly in fp16 with a hand-made static loss scale of 2**16 (as GradScaler starts): the
bias every logit shares sums 4,096 scaled gradients in backward, which passes 65504, so its gradient is inf; SGD
applies it and the bias turns inf, then the loss NaN. The script exits 0."""
import torch
from torch import nn

LOSS_SCALE = 2.0 ** 16


class PairScorer(nn.Module):
    def __init__(self):
        super().__init__()
        self.image = nn.Linear(16, 8)
        self.text = nn.Linear(16, 8)
        self.logit_bias = nn.Parameter(torch.tensor(-1.0))

    def forward(self, x, y):
        logits = self.image(x) @ self.text(y).T + self.logit_bias
        labels = 2 * torch.eye(len(x), dtype=logits.dtype) - 1
        return -nn.functional.logsigmoid(labels * logits).mean()


def main():
    torch.manual_seed(0)
    model = PairScorer().half()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(3):
        x, y = torch.randn(64, 16).half(), torch.randn(64, 16).half()
        loss = model(x, y)
        (loss * LOSS_SCALE).backward()
        for p in model.parameters():
            p.grad.div_(LOSS_SCALE)
        opt.step()
        opt.zero_grad()
        print(f"step {step}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
