"""An fp16 classifier with an activation penalty summed in a forward hook on each block: the sum of squares over a
batch passes fp16's 65504 inside the hook, the loss is inf on every step while the logits and the gradients stay
finite (the penalty's gradient is a small constant times the activations); the script exits 0."""
import torch
import torch.nn.functional as F
from torch import nn

penalties = []


def penalty_hook(module, inputs, output):
    penalties.append(output.pow(2).sum())


def main():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Sequential(nn.Linear(32, 256), nn.ReLU()), nn.Linear(256, 4)).half()
    model[0].register_forward_hook(penalty_hook)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(4):
        x, y = torch.randn(64, 32).half() * 8, torch.randint(0, 4, (64,))
        penalties.clear()
        loss = F.cross_entropy(model(x), y) + 1e-6 * torch.stack(penalties).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"loss {loss.item()}")


if __name__ == "__main__":
    main()
