import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class QLinear(nn.Linear):
    """Linear layer trained with 8-bit fake quant; can run a bit-accurate integer simulation at eval."""

    def __init__(self, n_in, n_out, relu_input=True):
        super().__init__(n_in, n_out)
        self.relu_input = relu_input
        self.register_buffer("act_max", torch.tensor(1.0))
        self.integer_sim = False

    def act_params(self):
        qmax = 255 if self.relu_input else 127
        return self.act_max / qmax, qmax

    def forward(self, x):
        if self.training:
            with torch.no_grad():
                self.act_max.mul_(0.9).add_(0.1 * x.detach().abs().max())
        s_x, qmax = self.act_params()
        s_w = self.weight.detach().abs().amax(1, keepdim=True) / 127
        if not self.integer_sim:
            xq = x + ((x / s_x).round().clamp(-qmax - 1, qmax) * s_x - x).detach()
            wq = self.weight + ((self.weight / s_w).round().clamp(-127, 127) * s_w - self.weight).detach()
            return F.linear(xq, wq, self.bias)
        x_int = (x / s_x).round().clamp(-qmax - 1, qmax)
        w_int = (self.weight / s_w).round().clamp(-127, 127)
        acc = x_int @ w_int.t()
        b_int = (self.bias / (s_x * s_w.squeeze(1))).round()
        return (acc + b_int) * (s_x * s_w.squeeze(1))


class FixedPointMLP(nn.Module):
    def __init__(self, n_in=64, hidden=512, n_classes=10):
        super().__init__()
        self.layers = nn.ModuleList([
            QLinear(n_in, hidden, relu_input=False), QLinear(hidden, hidden), QLinear(hidden, n_classes)
        ])

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i < len(self.layers) - 1:
                x = F.relu(x)
        return x

    def set_integer_sim(self, flag):
        for layer in self.layers:
            layer.integer_sim = flag


def make_data(n=2048, n_in=64, n_classes=10):
    proto = torch.randn(n_classes, n_in)
    y = torch.randint(0, n_classes, (n,))
    return proto[y] + 0.8 * torch.randn(n, n_in), y


x, y = make_data()
train_dl = DataLoader(TensorDataset(x[:1536], y[:1536]), batch_size=64, shuffle=True)
model = FixedPointMLP()
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
for epoch in range(3):
    for xb, yb in train_dl:
        loss = F.cross_entropy(model(xb), yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch} qat loss {loss.item():.4f}")

model.eval().half()
model.set_integer_sim(True)
with torch.no_grad():
    logits = model(x[1536:].half()).float()
    sim_loss = F.cross_entropy(logits, y[1536:])
    acc = (logits.argmax(1) == y[1536:]).float().mean()
print(f"integer-sim eval loss {sim_loss.item():.4f} acc {acc.item():.3f}")
