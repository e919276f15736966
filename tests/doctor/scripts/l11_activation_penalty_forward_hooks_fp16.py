"""Image classifier with an L2 activation penalty (activation regularisation) collected
through forward hooks on every conv block. Model cast to fp16 with .half()."""
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
ACT_REG = 1e-6


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.block1 = conv_block(3, 16)
        self.block2 = conv_block(16, 32)
        self.block3 = conv_block(32, 32)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        x = self.block1(x)
        x = F.max_pool2d(self.block2(x), 2)
        x = F.max_pool2d(self.block3(x), 2)
        return self.fc(x.mean((2, 3)))


activation_penalties = []


def act_reg_hook(module, inputs, output):
    activation_penalties.append(output.pow(2).sum())


def make_batch(n=48):
    y = torch.randint(0, 10, (n,))
    x = torch.randn(n, 3, 24, 24) * 0.5
    x[torch.arange(n), y % 3] += (y[:, None, None].float() / 10)  # weak class signal
    return x, y


def main():
    t0 = time.time()
    model = Net().half()
    for blk in (model.block1, model.block2, model.block3):
        blk.register_forward_hook(act_reg_hook)
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

    for step in range(8):
        x, y = make_batch()
        activation_penalties.clear()
        logits = model(x.half())
        ce = F.cross_entropy(logits, y)
        penalty = torch.stack(activation_penalties).sum()
        loss = ce + ACT_REG * penalty
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 2 == 0:
            print(f"step {step:2d} ce {ce.item():.4f} act-penalty {penalty.item():.1f} loss {loss.item():.4f}")
    print(f"done ({time.time() - t0:.1f}s)")


if __name__ == "__main__":
    main()
