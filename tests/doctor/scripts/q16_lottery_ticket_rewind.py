import copy
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.nn.utils.prune as prune

torch.manual_seed(0)
N_CLASSES, IMG = 6, 12


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 3 * 3, N_CLASSES)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


shapes = (torch.rand(N_CLASSES, 1, IMG, IMG) > 0.6).float()


def batch(n=128):
    y = torch.randint(0, N_CLASSES, (n,))
    x = shapes[y] + 0.9 * torch.randn(n, 1, IMG, IMG)
    return x, y


def train(model, steps, lr=3e-3):
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    for _ in range(steps):
        x, y = batch()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float(), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    return loss.item()


@torch.no_grad()
def evaluate(model):
    x, y = batch(2048)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(x).float()
    return F.cross_entropy(logits, y).item(), (logits.argmax(-1) == y).float().mean().item()


def sparsity(model):
    masks = [b for n, b in model.named_buffers() if n.endswith("weight_mask")]
    if not masks:
        return 0.0
    return 1 - sum(m.sum().item() for m in masks) / sum(m.numel() for m in masks)


model = SmallCNN()
train(model, 20)
rewind_state = copy.deepcopy(model.state_dict())
targets = [(model.conv1, "weight"), (model.conv2, "weight"), (model.fc, "weight")]

for rnd in range(4):
    loss = train(model, 100)
    val_loss, acc = evaluate(model)
    print(f"round {rnd} sparsity {sparsity(model):.3f} train {loss:.4f} val {val_loss:.4f} acc {acc:.3f}")
    prune.global_unstructured(targets, pruning_method=prune.L1Unstructured, amount=0.4)
    with torch.no_grad():
        for name, p in model.named_parameters():
            key = name[:-len("_orig")] if name.endswith("_orig") else name
            p.copy_(rewind_state[key])

loss = train(model, 100)
for module, name in targets:
    prune.remove(module, name)
val_loss, acc = evaluate(model)
zeros = sum((m.weight == 0).sum().item() for m, _ in targets) / sum(m.weight.numel() for m, _ in targets)
print(f"final ticket: zero weights {zeros:.3f} train {loss:.4f} val {val_loss:.4f} acc {acc:.3f}")
assert torch.isfinite(torch.tensor(val_loss))
