import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D_IN, N_CLASSES = 64, 10
DTYPE = torch.bfloat16
TOTAL, PRUNE_START, PRUNE_END, PRUNE_EVERY, FINAL_SPARSITY = 400, 40, 300, 20, 0.9


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(D_IN, 256)
        self.fc2 = nn.Linear(256, 256)
        self.fc3 = nn.Linear(256, N_CLASSES)

    def forward(self, x):
        return self.fc3(F.relu(self.fc2(F.relu(self.fc1(x)))))


def cubic_sparsity(step):
    if step < PRUNE_START:
        return 0.0
    frac = min(1.0, (step - PRUNE_START) / (PRUNE_END - PRUNE_START))
    return FINAL_SPARSITY * (1 - (1 - frac) ** 3)


class GlobalMagnitudePruner:
    def __init__(self, layers):
        self.layers = layers
        self.masks = [torch.ones_like(l.weight, dtype=torch.bool) for l in layers]

    @torch.no_grad()
    def prune_to(self, sparsity):
        scores = torch.cat([l.weight.abs().flatten() for l in self.layers])
        threshold = torch.quantile(scores, sparsity)
        for i, l in enumerate(self.layers):
            self.masks[i] = l.weight.abs() > threshold
        self.apply()

    @torch.no_grad()
    def apply(self):
        for l, m in zip(self.layers, self.masks):
            l.weight.mul_(m)

    def sparsity(self):
        total = sum(m.numel() for m in self.masks)
        return 1 - sum(m.sum().item() for m in self.masks) / total


teacher_w = torch.randn(D_IN, N_CLASSES)


def batch(n=256):
    x = torch.randn(n, D_IN)
    y = (x @ teacher_w + 0.5 * torch.randn(n, N_CLASSES)).argmax(-1)
    return x.to(DTYPE), y


model = MLP().to(DTYPE)
pruner = GlobalMagnitudePruner([model.fc1, model.fc2, model.fc3])
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, nesterov=True)

for step in range(TOTAL):
    x, y = batch()
    loss = F.cross_entropy(model(x).float(), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    pruner.apply()
    if step >= PRUNE_START and step <= PRUNE_END and (step - PRUNE_START) % PRUNE_EVERY == 0:
        pruner.prune_to(cubic_sparsity(step))
    if step % 50 == 0:
        print(f"step {step:3d} loss {loss.item():.4f} sparsity {pruner.sparsity():.3f}")

with torch.no_grad():
    x, y = batch(4096)
    logits = model(x).float()
print(f"final sparsity {pruner.sparsity():.3f}  eval loss {F.cross_entropy(logits, y).item():.4f} "
      f"acc {(logits.argmax(-1) == y).float().mean().item():.3f}")
