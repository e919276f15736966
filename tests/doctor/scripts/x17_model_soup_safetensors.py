import copy
import os
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

torch.manual_seed(17)

IN_DIM, N_CLASSES = 24, 5


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(IN_DIM, 96), nn.ReLU(), nn.Linear(96, 96), nn.ReLU())
        self.classifier = nn.Linear(96, N_CLASSES)

    def forward(self, x):
        return self.classifier(self.backbone(x))


def make_data(n, w):
    x = torch.randn(n, IN_DIM)
    return x, (torch.sin(x @ w) + 0.3 * torch.randn(n, N_CLASSES)).argmax(1)


def finetune(model, x, y, lr, seed, epochs=4):
    torch.manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    for _ in range(epochs):
        for idx in torch.randperm(len(x)).split(64):
            loss = F.cross_entropy(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model


def accuracy(model, x, y):
    with torch.no_grad():
        return (model(x).argmax(1) == y).float().mean().item()


def uniform_soup(models):
    sds = [m.state_dict() for m in models]
    return {k: torch.stack([sd[k].float() for sd in sds]).mean(0) for k in sds[0]}


def main():
    w = 0.25 * torch.randn(IN_DIM, N_CLASSES)
    x, y = make_data(3000, w)
    xv, yv = make_data(800, w)
    base = finetune(Net(), x, y, lr=1e-3, seed=0, epochs=3)
    print(f"base acc {accuracy(base, xv, yv):.3f}")
    ingredients = []
    for i, lr in enumerate([3e-4, 5e-4, 1e-3]):
        m = finetune(copy.deepcopy(base), x, y, lr=lr, seed=i + 1)
        ingredients.append(m)
        print(f"ingredient {i} lr {lr:g} acc {accuracy(m, xv, yv):.3f}")

    soup = uniform_soup(ingredients)
    out_dir = tempfile.mkdtemp()
    path = os.path.join(out_dir, "soup.safetensors")
    save_file({k: v.to(torch.float16).contiguous() for k, v in soup.items()}, path)
    print(f"saved soup to {path} ({os.path.getsize(path) / 1024:.1f} KiB)")

    served = Net()
    served.load_state_dict(load_file(path), assign=True)
    served.eval()
    print(f"soup acc {accuracy(served, xv, yv):.3f}")


if __name__ == "__main__":
    main()
