import copy
import os
import tempfile
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def make_split(n, seed):
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, 4, (n,), generator=g)
    x = torch.randn(n, 1, 16, 16, generator=g) * 0.8
    for c in range(4):
        sel = y == c
        r0, c0 = (c // 2) * 8, (c % 2) * 8
        x[sel, :, r0:r0 + 8, c0:c0 + 8] += 1.5
    return x, y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.fc = nn.Linear(32, 4)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.relu(self.bn2(self.conv2(x)))
        return self.fc(x.mean((2, 3)))


@torch.no_grad()
def evaluate(model, x, y):
    model.eval()
    return (model(x).argmax(1) == y).float().mean().item()


x_tr, y_tr = make_split(1024, 1)
x_val, y_val = make_split(512, 2)
base = Net()
ckpt_dir = tempfile.mkdtemp()
recipes = [dict(lr=0.05, wd=0.0, seed=10), dict(lr=0.02, wd=5e-4, seed=11), dict(lr=0.08, wd=1e-4, seed=12)]

paths = []
for r in recipes:
    torch.manual_seed(r["seed"])
    model = copy.deepcopy(base)
    opt = torch.optim.SGD(model.parameters(), lr=r["lr"], momentum=0.9, weight_decay=r["wd"])
    for epoch in range(3):
        model.train()
        perm = torch.randperm(len(x_tr))
        for i in range(0, len(x_tr), 64):
            idx = perm[i:i + 64]
            loss = F.cross_entropy(model(x_tr[idx]), y_tr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
    acc = evaluate(model, x_val, y_val)
    path = os.path.join(ckpt_dir, f"ingredient_lr{r['lr']}_seed{r['seed']}.pt")
    torch.save({"state_dict": model.state_dict(), "val_acc": acc}, path)
    paths.append(path)
    print(f"ingredient {os.path.basename(path)} val acc {acc:.3f}")

ckpts = [torch.load(p, map_location="cpu") for p in paths]
ckpts.sort(key=lambda c: c["val_acc"], reverse=True)

soup = {k: v.clone() for k, v in ckpts[0]["state_dict"].items()}
n_in = 1
for ck in ckpts[1:]:
    n_in += 1
    for k, v in ck["state_dict"].items():
        soup[k].mul_((n_in - 1) / n_in).add_(v, alpha=1.0 / n_in)

soup_model = Net()
soup_model.load_state_dict(soup)
print(f"uniform soup of {n_in} val acc {evaluate(soup_model, x_val, y_val):.3f}")
