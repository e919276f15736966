import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D_IN, HIDDEN, N_CLASSES = 32, 96, 5


class RoundSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return torch.round(x)

    @staticmethod
    def backward(ctx, grad):
        return grad


class QATLinear(nn.Linear):
    """Per-output-channel symmetric weight fake-quantisation."""

    def __init__(self, in_f, out_f, bits=4):
        super().__init__(in_f, out_f)
        self.qmax = 2 ** (bits - 1) - 1
        self.quantize = False
        self.register_buffer("w_scale", torch.ones(out_f, 1, dtype=torch.float16))
        self.register_buffer("row_mask", torch.ones(out_f, 1))

    def forward(self, x):
        w = self.weight * self.row_mask
        if not self.quantize:
            return F.linear(x, w, self.bias)
        with torch.no_grad():
            self.w_scale.copy_((w.abs().amax(dim=1, keepdim=True) / self.qmax).clamp(min=1e-8))
        w_q = RoundSTE.apply(w / self.w_scale).clamp(-self.qmax - 1, self.qmax) * self.w_scale
        return F.linear(x, w_q, self.bias)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = QATLinear(D_IN, HIDDEN)
        self.fc2 = QATLinear(HIDDEN, HIDDEN)
        self.out = nn.Linear(HIDDEN, N_CLASSES)

    def forward(self, x):
        return self.out(F.relu(self.fc2(F.relu(self.fc1(x)))))


W_true = torch.randn(D_IN, N_CLASSES)


def batch(n):
    x = torch.randn(n, D_IN)
    return x, (x @ W_true + 0.3 * torch.randn(n, N_CLASSES)).argmax(-1)


def fit(model, steps, lr, tag):
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    for step in range(steps):
        x, y = batch(256)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0 or step == steps - 1:
            print(f"[{tag}] step {step:3d} loss {loss.item():.4f}")


def prune_channels(layer, amount):
    norms = layer.weight.detach().norm(dim=1)
    n_prune = int(amount * norms.numel())
    idx = norms.argsort()[:n_prune]
    layer.row_mask[idx] = 0.0
    with torch.no_grad():
        layer.weight[idx] = 0.0
        layer.bias[idx] = 0.0


model = Net()
fit(model, 150, 3e-3, "fp warmup")

for m in (model.fc1, model.fc2):
    prune_channels(m, 0.3)
    m.quantize = True
print(f"pruned rows: fc1 {int((model.fc1.row_mask == 0).sum())}, fc2 {int((model.fc2.row_mask == 0).sum())}")
fit(model, 150, 1e-3, "qat int4")

with torch.no_grad():
    x, y = batch(2048)
    logits = model(x)
    val = F.cross_entropy(logits, y).item()
    acc = (logits.argmax(-1) == y).float().mean().item()
print(f"int4 eval loss {val:.4f} acc {acc:.3f}")
